"""IpfsStore against a real (offline js-ipfs) node: same CIDs as the embedded store, pins, GC."""
import pytest
from storage_support import DAY
from vectors import CHUNK, MIB, pattern


@pytest.mark.parametrize("size", [0, 1, CHUNK + 1, 2 * MIB])
def test_put_gives_the_embedded_store_cid(ipfs_store, store, size):
    data = pattern("shake256", size)
    assert ipfs_store.put(data) == store.put(data)


def test_get_returns_the_verified_bytes(ipfs_store):
    data = pattern("shake256", MIB + 3)
    cid = ipfs_store.put(data)
    assert ipfs_store.get(cid, timeout=10) == data


def test_content_added_elsewhere_is_fetched_and_verified(ipfs_store, store):
    # e.g. a sampler's rollout, read by a trainer with its own ledger
    cid = store.put(b"rollout from another node")
    ipfs_store._client.add_bytes(b"rollout from another node", opts=ipfs_store.ADD_OPTS)
    assert ipfs_store.get(cid) == b"rollout from another node"
    assert ipfs_store.list() == []


def test_put_pins_on_the_node_while_kept(ipfs_store):
    cid = ipfs_store.put(b"intermediate checkpoint")
    assert ipfs_store.has(cid)
    [entry] = ipfs_store.list()
    assert (entry.cid, entry.size, entry.pinned) == (cid, 23, False)


def test_gc_unpins_expired_results_and_keeps_pinned_ones(ipfs_store, clock):
    old = ipfs_store.put(b"round 1 rollout")
    final = ipfs_store.put(b"final policy", pin=True)
    clock.advance(7 * DAY)
    assert ipfs_store.gc() == [old]
    assert not ipfs_store.has(old) and ipfs_store.has(final)
    assert [e.cid for e in ipfs_store.list()] == [final]


def test_pin_re_pins_content_on_the_node(ipfs_store):
    cid = ipfs_store.put(b"policy to keep")
    ipfs_store._client.pin.rm(cid)  # e.g. unpinned by the operator
    assert not ipfs_store.has(cid)
    ipfs_store.pin(cid)
    assert ipfs_store.has(cid) and ipfs_store.list()[0].pinned


def test_delete_unpins(ipfs_store):
    cid = ipfs_store.put(b"to delete", pin=True)
    ipfs_store.delete(cid)
    assert not ipfs_store.has(cid) and ipfs_store.list() == []
