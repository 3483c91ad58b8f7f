"""Driving the subgraph's compiled mappings from tests: the build, the harness, and events.

`Scenario` builds events the way a chain would (blocks, transactions, log indexes) from the ABIs in
subgraph/abis and the manifest's handlers, and runs them through subgraph/harness (Node, over the
WASM of `graph build`). `chain_events` turns the logs a real chain holds into the same form, so a
test can index a brownie-driven run and compare the entities with the contracts' views.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

from eth_abi import decode
from eth_utils import event_abi_to_log_topic, keccak, to_checksum_address

ROOT = Path(__file__).resolve().parents[2]
SUBGRAPH = ROOT / "subgraph"
HARNESS = SUBGRAPH / "harness" / "run.js"
PLACEHOLDER = SUBGRAPH / "placeholder-deployment.json"

sys.path.insert(0, str(ROOT / "tools"))
import subgraph_manifest  # noqa: E402

TX_SENDER = "0x" + "5e" * 20


def ensure_built() -> None:
    """`make subgraph` (a no-op when the build is current), one process at a time (`make test`'s
    contract-checks takes the same lock)."""
    lock = ROOT / ".make" / "subgraph-test.lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "subgraph"], cwd=ROOT, check=True)


def manifest() -> dict:
    """The manifest as built for the placeholder record (same handlers as for any network)."""
    import yaml

    record = json.loads(PLACEHOLDER.read_text())
    return yaml.safe_load(subgraph_manifest.render(subgraph_manifest.TEMPLATE.read_text(), record))


def abi(name: str) -> list:
    return json.loads((subgraph_manifest.ABI_DIR / f"{name}.json").read_text())


class Handlers:
    """data source -> event name -> (handler, event ABI), from the manifest and subgraph/abis."""

    def __init__(self):
        self.by_source = {}
        for ds in manifest()["dataSources"]:
            handlers = {h["event"]: h["handler"] for h in ds["mapping"]["eventHandlers"]}
            events = {}
            for item in abi(ds["source"]["abi"]):
                if item["type"] == "event":
                    events[item["name"]] = (handlers[subgraph_manifest.event_signature(item)], item)
            self.by_source[ds["name"]] = events

    def of(self, source: str, event: str):
        return self.by_source[source][event]


def plain(value):
    """A Python value as the harness takes it: ints as decimal strings, bytes as 0x hex."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (IntEnum, int)):
        return str(int(value))
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


def params_of(event_abi: dict, values: dict) -> list:
    missing = [i["name"] for i in event_abi["inputs"] if i["name"] not in values]
    extra = set(values) - {i["name"] for i in event_abi["inputs"]}
    if missing or extra:
        raise TypeError(f"{event_abi['name']}: missing {missing}, unknown {sorted(extra)}")
    return [
        {"name": i["name"], "type": i["type"], "value": plain(values[i["name"]]), "components": i.get("components")}
        for i in event_abi["inputs"]
    ]


@dataclass
class Result:
    entities: dict
    logs: list
    handled: int
    error: dict | None

    def get(self, entity: str, id_: str) -> dict:
        return self.entities[entity][id_]

    def all(self, entity: str) -> list:
        return list(self.entities.get(entity, {}).values())

    def ids(self, entity: str) -> set:
        return set(self.entities.get(entity, {}))


def run_harness(events: list) -> Result:
    proc = subprocess.run(["node", str(HARNESS)], input=json.dumps({"events": events}), capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"harness failed:\n{proc.stderr}")
    out = json.loads(proc.stdout)
    return Result(out["entities"], out["logs"], out["handled"], out["error"])


@dataclass
class Scenario:
    """Synthetic events in chain order: each `emit` is mined in a block of its own unless grouped
    with `tx()`; logIndex counts within the block, as on Ethereum."""

    addresses: dict = field(default_factory=lambda: json.loads(PLACEHOLDER.read_text())["contracts"])
    block: int = 100
    timestamp: int = 1_700_000_000
    events: list = field(default_factory=list)
    handlers: Handlers = field(default_factory=Handlers)
    _tx: dict | None = None
    _nonce: int = 0

    def _new_tx(self, sender: str) -> dict:
        self._nonce += 1
        self.block += 1
        self.timestamp += 12
        return {"hash": "0x" + keccak(self._nonce.to_bytes(8, "big")).hex(), "from": sender, "logs": 0,
                "block": {"number": self.block, "timestamp": self.timestamp}}

    @contextmanager
    def tx(self, sender: str = TX_SENDER):
        """Events emitted inside share one transaction (and block)."""
        self._tx = self._new_tx(sender)
        try:
            yield self._tx
        finally:
            self._tx = None

    def sleep(self, seconds: int) -> None:
        self.timestamp += seconds

    def emit(self, source: str, event: str, *, tx_from: str = TX_SENDER, **values) -> dict:
        handler, event_abi = self.handlers.of(source, event)
        tx = self._tx or self._new_tx(tx_from)
        ev = {
            "dataSource": source,
            "handler": handler,
            "address": self.addresses[source],
            "logIndex": tx["logs"],
            "block": tx["block"],
            "transaction": {"hash": tx["hash"], "from": tx["from"], "to": self.addresses[source]},
            "params": params_of(event_abi, values),
        }
        tx["logs"] += 1
        self.events.append(ev)
        return ev

    def run(self) -> Result:
        return run_harness(self.events)


def event_id(ev: dict) -> str:
    """The id the mappings give an entity that stands for `ev` (txHash-logIndex)."""
    return f"{ev['transaction']['hash']}-{ev['logIndex']}"


# ---------------------------------------------------------------- a real chain's logs


def chain_events(w3, contracts: dict, from_block: int) -> list:
    """Every log of `contracts` ({data source name: address}) since `from_block`, in chain order,
    as harness events with their real block, transaction and log index."""
    handlers = Handlers()
    by_address = {to_checksum_address(a): name for name, a in contracts.items()}
    topics = {}
    for name in contracts:
        for ev_name, (handler, item) in handlers.by_source[name].items():
            topics[(name, "0x" + event_abi_to_log_topic(item).hex())] = (handler, item)
    logs = w3.eth.get_logs({"fromBlock": from_block, "toBlock": "latest", "address": list(by_address)})
    logs = sorted(logs, key=lambda log: (log["blockNumber"], log["logIndex"]))
    blocks, senders, events = {}, {}, []
    for log in logs:
        name = by_address[to_checksum_address(log["address"])]
        topic0 = "0x" + bytes(log["topics"][0]).hex()
        handler, item = topics[(name, topic0)]
        indexed = [i for i in item["inputs"] if i.get("indexed")]
        plain_inputs = [i for i in item["inputs"] if not i.get("indexed")]
        values = {}
        for i, topic in zip(indexed, log["topics"][1:]):
            values[i["name"]] = decode([i["type"]], bytes(topic))[0]
        for i, v in zip(plain_inputs, decode([i["type"] for i in plain_inputs], bytes(log["data"]))):
            values[i["name"]] = v
        number = log["blockNumber"]
        if number not in blocks:
            blocks[number] = w3.eth.get_block(number)["timestamp"]
        tx_hash = "0x" + bytes(log["transactionHash"]).hex()
        if tx_hash not in senders:
            senders[tx_hash] = w3.eth.get_transaction(tx_hash)["from"]
        events.append({
            "dataSource": name,
            "handler": handler,
            "address": log["address"],
            "logIndex": log["logIndex"],
            "block": {"number": number, "timestamp": blocks[number]},
            "transaction": {"hash": tx_hash, "from": senders[tx_hash], "to": log["address"]},
            "params": params_of(item, values),
        })
    return events


def address_id(address) -> str:
    """The id of a Node or Account: the lower-case address."""
    return str(address).lower()
