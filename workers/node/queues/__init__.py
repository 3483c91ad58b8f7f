"""Queues and dispatch: the Celery app, its tasks, the handler table, job records, the claim rate."""
