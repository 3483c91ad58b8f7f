"""What the attestation relay carries between validators over IPFS pubsub (`--attest-relay ipfs`,
SPECIFICATION.md 5.5.2): one topic per deployment, and on it relay entries signed by the account
they name.

A message is JSON {"task", "round", "slot", "entry", "sig"}: `entry` is RelayEntry.to_json() as
signed, `sig` the EIP-191 signature by entry.node's account key of
keccak256(abi.encode(TAG, chainId, registry, task, round, slot, keccak256(entry))). Anyone on the
topic can publish, so a message counts only if that signature recovers to the node it names: a
peer cannot post for another validator, and a signed entry cannot be moved to another deployment,
task, round or slot. Whether the node holds the slot is the chain's to say (relay_gate)."""
from __future__ import annotations

import json
from dataclasses import dataclass

from eth_abi import encode
from eth_account import Account
from eth_account.messages import encode_defunct
from eth_utils import keccak

from workers.node.handlers.relay import RelayEntry

TAG = keccak(b"decentrl.attest-relay.v1")
MAX_MESSAGE_BYTES = 2048
"""A signed entry is about 500 bytes; anything longer is dropped unread."""
MAX_SLOT = 64
"""TaskRegistry.MAX_VALIDATORS: no task has a validator slot at or above it."""
MAX_ID = 2**64
"""Task ids and rounds beyond this are nobody's (the chain counts them one by one)."""


def relay_topic(chain_id: int, registry: str) -> str:
    """The pubsub topic of one deployment's relay: every validator node of it subscribes."""
    return f"decentrl/attest-relay/v1/{int(chain_id)}/{registry.lower()}"


@dataclass(frozen=True)
class SignedEntry:
    task_id: int
    round: int
    slot: int
    entry: RelayEntry


def _digest(chain_id: int, registry: str, task_id: int, round_: int, slot: int, entry_json: str) -> bytes:
    return keccak(encode(["bytes32", "uint256", "address", "uint256", "uint256", "uint256", "bytes32"],
                         [TAG, int(chain_id), registry, int(task_id), int(round_), int(slot),
                          keccak(entry_json.encode())]))


def sign_entry(account, chain_id: int, registry: str, task_id: int, round_: int, slot: int,
               entry: RelayEntry) -> bytes:
    """The message `account` (an eth_account LocalAccount, the entry's node) publishes for its slot."""
    if entry.node.lower() != account.address.lower():
        raise ValueError(f"entry names {entry.node}, not the signing account {account.address}")
    entry_json = entry.to_json()
    signed = account.sign_message(encode_defunct(primitive=_digest(chain_id, registry, task_id, round_, slot,
                                                                   entry_json)))
    return json.dumps({"task": int(task_id), "round": int(round_), "slot": int(slot), "entry": entry_json,
                       "sig": "0x" + bytes(signed.signature).hex()}, sort_keys=True).encode()


def open_entry(data: bytes, chain_id: int, registry: str) -> SignedEntry | None:
    """The signed entry in `data`, or None for anything else: too long, not JSON of the above
    shape, ids out of range, an entry RelayEntry.parse refuses, or a signature that does not
    recover to the entry's node under this deployment, task, round and slot."""
    if len(data) > MAX_MESSAGE_BYTES:
        return None
    try:
        raw = json.loads(data)
        task_id, round_, slot, entry_json, sig = (raw[k] for k in ("task", "round", "slot", "entry", "sig"))
    except (ValueError, TypeError, KeyError):
        return None
    if not all(type(v) is int for v in (task_id, round_, slot)) or not isinstance(entry_json, str) \
            or not isinstance(sig, str):
        return None
    if not (0 < task_id < MAX_ID and 0 <= round_ < MAX_ID and 0 <= slot < MAX_SLOT):
        return None
    entry = RelayEntry.parse(entry_json)
    if entry is None or not sig.startswith("0x") or len(sig) != 132:
        return None
    try:
        signer = Account.recover_message(
            encode_defunct(primitive=_digest(chain_id, registry, task_id, round_, slot, entry_json)),
            signature=bytes.fromhex(sig[2:]))
    except Exception:  # noqa: BLE001 - eth_keys' errors for a malformed signature: not a signed entry
        return None
    if signer.lower() != entry.node.lower():
        return None
    return SignedEntry(task_id, round_, slot, entry)
