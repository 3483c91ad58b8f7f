"""IpfsStore errors say what to fix: missing content times out, a down node is unreachable."""
import time

import pytest

from storage_support import free_port
from workers.storage.cid import compute
from workers.storage.store import ContentNotFound, IpfsStore, StoreUnavailable


def test_missing_cid_times_out_with_a_clear_error(ipfs_store):
    cid = compute(b"never added anywhere")
    started = time.monotonic()
    with pytest.raises(ContentNotFound, match=f"{cid} could not be fetched from the IPFS node at .* within 1 s"):
        ipfs_store.get(cid, timeout=1)
    assert 0.9 < time.monotonic() - started < 5
    assert not ipfs_store.has(cid)


@pytest.fixture
def down_store(tmp_path):
    store = IpfsStore(f"/ip4/127.0.0.1/tcp/{free_port()}/http", tmp_path / "ledger.sqlite")
    yield store
    store.close()


@pytest.mark.parametrize("call", [
    lambda s: s.put(b"data"),
    lambda s: s.get(compute(b"data")),
    lambda s: s.has(compute(b"data")),
])
def test_unreachable_node_says_so(down_store, call):
    with pytest.raises(StoreUnavailable, match=f"IPFS node at {down_store.api} is unreachable .*: start it"):
        call(down_store)


def test_bad_api_address_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="bad IPFS API address 'localhost:5001'"):
        IpfsStore("localhost:5001", tmp_path / "ledger.sqlite")


def test_default_timeout_is_the_design_value(ipfs_store):
    assert ipfs_store.timeout == 30.0
