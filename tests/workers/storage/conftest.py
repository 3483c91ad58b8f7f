"""Fixtures for the storage tests: a fake clock, an embedded store, and one real offline
js-ipfs node per test session (tools/ipfs_node.py) with an IpfsStore on it. Helpers the tests
import are in storage_support.py."""
from pathlib import Path

import pytest
from storage_support import FakeClock, free_port, ipfs_node_tool

from workers.storage.store import EmbeddedStore, IpfsStore


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
