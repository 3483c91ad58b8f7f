"""Constants and helpers of the node tests (a plain module: under pytest-xdist a runtime
`from conftest import` can get another folder's conftest)."""
import json
import uuid
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORTS = range(16392, 16400)
ROLES = ("sampler", "trainer", "validator")


@dataclass
class Event:
    """Stands in for workers.chain's ChainEvent (same fields)."""

    name: str
    args: dict
    block: int = 1
    tx_hash: str = ""
    log_index: int = 0
    key: str = ""

    def __post_init__(self):
        if not self.key:
            self.tx_hash = "0x" + uuid.uuid4().hex * 2
            self.key = f"{self.tx_hash}:{self.log_index}"


def notes(rclient, kind, key):
    return [json.loads(x) for x in rclient.lrange(f"test:{kind}:{key}", 0, -1)]
