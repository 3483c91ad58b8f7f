"""The committed CID table against a live js-ipfs node, and the node against our CID module."""
import pytest
from vectors import load, pattern

from workers.cid import compute

VECTORS = load()


@pytest.mark.parametrize("size, name, cid", VECTORS, ids=[f"{n}-{s}" for s, n, _ in VECTORS])
def test_node_gives_the_table_cid(ipfs_store, size, name, cid):
    # The node's own answer, not our computation: IpfsStore.put would compare the two itself.
    client = ipfs_store._client
    answer = client.add_bytes(pattern(name, size), opts={**ipfs_store.ADD_OPTS, "pin": False}, timeout=60)
    assert answer == cid


def test_node_agrees_on_content_the_table_lacks(ipfs_store):
    data = b"".join(i.to_bytes(4, "big") for i in range(300_000))  # 1.2 MB counter
    assert ipfs_store._client.add_bytes(data, opts=ipfs_store.ADD_OPTS, timeout=30) == compute(data)
