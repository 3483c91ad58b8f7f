"""Fixtures for the storage tests: a fake clock, an embedded store, and one real offline
js-ipfs node per test session (tools/ipfs_node.py) with an IpfsStore on it."""
import importlib.util
import socket
import sys
from pathlib import Path

import pytest

from workers.storage.store import EmbeddedStore, IpfsStore

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
    """A port in this project's IPFS API range (5101-5199) that nothing listens on."""
    for port in ipfs_node_tool.API_PORTS:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError("every port in 5101-5199 is taken")


def pytest_collection_modifyitems(items):
    # ipfshttpclient 0.7.0 passes urllib3 2 a deprecated `strict` argument; harmless until urllib3 3.
    for item in items:
        if Path(item.fspath).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.filterwarnings("ignore:The 'strict' parameter:FutureWarning"))


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def store(tmp_path, clock):
    return EmbeddedStore(tmp_path / "store", clock=clock)


@pytest.fixture(scope="session")
def ipfs_node(tmp_path_factory):
    node = ipfs_node_tool.start(tmp_path_factory.mktemp("ipfs-repo"), free_port())
    yield node
    ipfs_node_tool.stop(node.pid)


@pytest.fixture
def ipfs_store(ipfs_node, tmp_path, clock):
    store = IpfsStore(ipfs_node.api, tmp_path / "ipfs-ledger.sqlite", clock=clock)
    yield store
    store.close()
