"""A whole decentrl network on one machine, from real parts: an anvil chain with the protocol
deployed (chain.py) and nodes with their own accounts, stakes and Celery workers (network.py).
Used by `decentrl demo`, the integration tests and the benchmarks."""
