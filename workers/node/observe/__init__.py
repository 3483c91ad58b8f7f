"""Observability: Prometheus metrics, the health check, structured logs, and why no work arrives."""
