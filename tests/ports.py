"""Ports of the real services the tests start: pytest-xdist workers probe for a free port at the
same moments, so each looks from its own part of a range (a free port is only free until bound)."""
import os


def xdist_worker() -> int:
    """This pytest-xdist worker's number (gw3 -> 3; 0 without xdist)."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def ipfs_api_port(ipfs_node_tool) -> int:
    """A free port of tools/ipfs_node.py's API range, from this worker's part of it on."""
    return ipfs_node_tool.free_api_port(xdist_worker() * 20)
