"""workers.cid gives the CIDs a real IPFS node gives (table in cid_vectors.json)."""
import io

import pytest
from vectors import CHUNK, MIB, load, pattern

from workers.cid import compute

VECTORS = load()


def test_table_covers_every_layout():
    sizes = {size for size, _, _ in VECTORS}
    # empty, one byte, one chunk -1/exact/+1 (raw leaf -> dag-pb root), 174 chunks (one full
    # level) and 174+ chunks (second DAG level)
    assert {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, MIB, 174 * CHUNK, 174 * CHUNK + 1, 45 * MIB} <= sizes


@pytest.mark.parametrize("size, name, cid", VECTORS, ids=[f"{n}-{s}" for s, n, _ in VECTORS])
def test_bytes_give_the_node_cid(size, name, cid):
    assert compute(pattern(name, size)) == cid


@pytest.mark.parametrize("size, name, cid", [v for v in VECTORS if v[0] > CHUNK][:3])
def test_file_object_gives_the_same_cid(size, name, cid):
    assert compute(io.BytesIO(pattern(name, size))) == cid


class TrickleReader(io.RawIOBase):
    """Returns at most 1000 bytes per read, like a pipe."""

    def __init__(self, data: bytes):
        self.inner = io.BytesIO(data)

    def read(self, n=-1):
        return self.inner.read(min(n, 1000) if n >= 0 else 1000)


def test_short_reads_do_not_shift_chunk_boundaries():
    size, name, cid = next(v for v in VECTORS if v[0] == MIB)
    assert compute(TrickleReader(pattern(name, size))) == cid


def test_kubo_documented_cids():
    # kubo: `echo -n | ipfs add --cid-version 1` and `echo "hello world" | ipfs add --cid-version 1`
    assert compute(b"") == "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"
    assert compute(b"hello world\n") == "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"


def test_raw_leaf_up_to_one_chunk_dag_pb_beyond():
    assert compute(bytes(CHUNK)).startswith("bafkrei")
    assert compute(bytes(CHUNK + 1)).startswith("bafybei")
