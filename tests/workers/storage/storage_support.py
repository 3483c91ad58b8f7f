"""Constants and helpers of the storage tests (a plain module: under pytest-xdist a runtime
`from conftest import` can get another folder's conftest)."""
import importlib.util
import sys
from pathlib import Path

from tests.ports import ipfs_api_port

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("ipfs_node", ROOT / "tools" / "ipfs_node.py")
ipfs_node_tool = sys.modules["ipfs_node"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ipfs_node_tool)

DAY = 24 * 3600.0


class FakeClock:
    """Seconds since the epoch, moved by hand."""

    def __init__(self, now: float = 1_700_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def free_port() -> int:
    """A port in this project's IPFS API range that nothing listens on (this test worker's part)."""
    return ipfs_api_port(ipfs_node_tool)
