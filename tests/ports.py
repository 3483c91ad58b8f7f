"""Ports of the real services the tests start: pytest-xdist workers probe for a free port at the
same moments, so each looks from its own part of a range (a free port is only free until bound)."""
import contextlib
import os
import socket


def xdist_worker() -> int:
    """This pytest-xdist worker's number (gw3 -> 3; 0 without xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def ipfs_api_port(ipfs_node_tool) -> int:
    """A free port of tools/ipfs_node.py's API range, from this worker's part of it on."""
    return ipfs_node_tool.free_api_port(xdist_worker() * 20)


def worker_part(ports: range, parts: int = 4) -> range:
    """This xdist worker's own part of `ports` (one of `parts`), for a port that is probed free
    and bound by another process seconds later: no other worker (of the first `parts`) probes it."""
    size = len(ports) // parts
    start = ports.start + (xdist_worker() % parts) * size
    return range(start, start + size)


@contextlib.contextmanager
def dead_port():
    """A port that refuses connections for as long as the block runs: bound, never listening, so
    no other process can start a service on it meanwhile."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]
