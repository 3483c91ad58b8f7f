"""Known CIDs: `cid_vectors.json` holds (size, pattern, cid) as js-ipfs 0.66.1 gave them for
`add --cid-version 1 --raw-leaves` (kubo's default CIDv1 import); `test_node_cids.py` checks
the table against a live node on every run, so it cannot drift from what a node gives."""
import hashlib
import json
from pathlib import Path

KIB = 1024
MIB = 1024 * KIB
CHUNK = 256 * KIB
TABLE = Path(__file__).with_name("cid_vectors.json")


def pattern(name: str, size: int) -> bytes:
    """`shake256`: incompressible bytes, every chunk different; `zeros`: every chunk the same
    (identical leaves, so links repeat)."""
    if name == "shake256":
        return hashlib.shake_256(b"decentrl cid vectors").digest(size)
    if name == "zeros":
        return bytes(size)
    raise ValueError(f"unknown pattern {name!r}")


def load() -> list[tuple[int, str, str]]:
    return [(v["size"], v["pattern"], v["cid"]) for v in json.loads(TABLE.read_text())["vectors"]]
