"""The committed, versioned ABIs in workers/chain/abi/ (written by tools/export_abi.py)."""

import json
from functools import cache, lru_cache
from pathlib import Path

from eth_utils import to_checksum_address

from workers import protocol

ABI_DIR = Path(__file__).resolve().parent / "abi"
CONTRACTS = ("TaskRegistry", "StakeManager", "Reputation", "RewardVault", "RLToken", "KeyringBoard",
             "DisputeManager", "ProtocolConfig", "TaskFront", "StateView")


@cache
def abi_document(name: str) -> dict:
    """{"contract", "version", "abiHash", "abi"} for one contract."""
    path = ABI_DIR / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"no committed ABI for {name!r} in {ABI_DIR} (known: {', '.join(CONTRACTS)})")
    return json.loads(path.read_text())


def load_abi(name: str) -> list:
    return abi_document(name)["abi"]


ENUMS = {
    "Role": protocol.Role,
    "Outcome": protocol.Outcome,
    "ITaskRegistry.Status": protocol.Status,
    "ITaskRegistry.Phase": protocol.Phase,
    "ITaskRegistry.Verdict": protocol.Verdict,
    "IDisputeManager.Status": protocol.DisputeStatus,
    "IDisputeManager.Evidence": protocol.Evidence,
}
"""The protocol enum of each Solidity enum, by its qualified name in internalType: a dispute's
Status is not a task's (the last name alone mixed them up)."""


def typed_value(spec: dict, value):
    """A decoded ABI value as the workers use it: the protocol enum for a Solidity enum
    (by internalType), a checksummed address, anything else unchanged."""
    internal = spec.get("internalType") or ""
    if internal.startswith("enum "):
        enum = ENUMS.get(internal[len("enum "):])
        if enum is not None and value in enum._value2member_map_:
            return enum(value)
    if spec["type"] == "address" and isinstance(value, str):
        return checksummed(value)
    return value


@lru_cache(maxsize=4096)
def checksummed(address: str) -> str:
    """to_checksum_address, remembered: a node decodes the same few accounts in every event and
    read, and each checksum is a keccak (a tenth of a watcher's CPU went there)."""
    return to_checksum_address(address)


def canonical_type(item: dict) -> str:
    """The ABI type as it appears in a signature (tuples spelled out)."""
    if item["type"].startswith("tuple"):
        return "(" + ",".join(canonical_type(c) for c in item["components"]) + ")" + item["type"][5:]
    return item["type"]
