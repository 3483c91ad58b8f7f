"""The keyring: a task's data key wrapped for each assigned node, published by the requester.

Canonical JSON (sorted keys, "," and ":", ASCII), stored content-addressed; its CID is posted on
chain by the requester (`KeyringBoard.postKeyring`), which is what makes nodes trust it:

    {"chain_id": int, "entries": {"<node address>": {"box": hex, "ephemeral": hex}, ...},
     "format": "decentrl.keyring", "inputs": "<ciphertext CID>", "registry": "<address>",
     "task_id": int, "version": 1}

Each entry is `keywrap.wrap(data key, node's public key, WrapContext(chain, registry, task, node))`.
Nothing in it is secret: only the named node can open its box, and only for this task."""
from __future__ import annotations

import json
from dataclasses import dataclass

from eth_utils import to_checksum_address

from workers.crypto.errors import MalformedKeyring, NoKeyForNode, WrongTask
from workers.crypto.keywrap import WrapContext, WrappedKey, unwrap, wrap

FORMAT = "decentrl.keyring"
VERSION = 1
_KEYS = {"chain_id", "entries", "format", "inputs", "registry", "task_id", "version"}


@dataclass(frozen=True)
class Keyring:
    chain_id: int
    registry: str
    task_id: int
    inputs: str
    """CID of the ciphertext whose data key the entries hold."""
    entries: dict
    """{checksummed node address: WrappedKey}"""

    def context(self, node: str) -> WrapContext:
        return WrapContext(self.chain_id, self.registry, self.task_id, node)

    def to_bytes(self) -> bytes:
        doc = {"chain_id": self.chain_id, "format": FORMAT, "inputs": self.inputs,
               "registry": to_checksum_address(self.registry), "task_id": self.task_id, "version": VERSION,
               "entries": {a: {"box": w.box.hex(), "ephemeral": w.ephemeral.hex()} for a, w in self.entries.items()}}
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")

    def key_for(self, node: str, private_key: bytes) -> bytes:
        """The data key opened with `node`'s private key: NoKeyForNode without an entry for it,
        TamperedCiphertext if its box does not open for this (task, node, chain, registry)."""
        node = to_checksum_address(node)
        if node not in self.entries:
            raise NoKeyForNode(f"the keyring of task {self.task_id} has no key for node {node} "
                               f"({len(self.entries)} entries); the requester posts a new one after each assignment")
        return unwrap(self.entries[node], private_key, self.context(node))


def build(*, chain_id: int, registry: str, task_id: int, inputs_cid: str, data_key: bytes,
          public_keys: dict) -> Keyring:
    """A keyring wrapping `data_key` for every {node address: 64-byte public key}."""
    ring = Keyring(chain_id, to_checksum_address(registry), task_id, inputs_cid, {})
    for node, public in sorted(public_keys.items()):
        node = to_checksum_address(node)
        ring.entries[node] = wrap(data_key, public, ring.context(node))
    return ring


def parse(data: bytes, *, chain_id: int, registry: str, task_id: int, inputs_cid: str) -> Keyring:
    """The keyring in `data`, checked to be for this task's inputs (WrongTask otherwise)."""
    try:
        doc = json.loads(bytes(data).decode("ascii"))
        if not isinstance(doc, dict) or set(doc) != _KEYS or doc["format"] != FORMAT or doc["version"] != VERSION:
            raise ValueError(f"expected keys {sorted(_KEYS)}, format {FORMAT!r}, version {VERSION}")
        ring = Keyring(int(doc["chain_id"]), to_checksum_address(doc["registry"]), int(doc["task_id"]),
                       str(doc["inputs"]),
                       {to_checksum_address(a): WrappedKey(bytes.fromhex(e["ephemeral"]), bytes.fromhex(e["box"]))
                        for a, e in doc["entries"].items()})
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise MalformedKeyring(f"keyring of task {task_id} is malformed: {error}") from None
    want = (chain_id, to_checksum_address(registry), task_id, inputs_cid)
    got = (ring.chain_id, ring.registry, ring.task_id, ring.inputs)
    if got != want:
        raise WrongTask(f"the keyring posted for task {task_id} is for chain {got[0]}, registry {got[1]}, "
                        f"task {got[2]}, inputs {got[3]}; this task is chain {want[0]}, registry {want[1]}, "
                        f"task {want[2]}, inputs {want[3]}")
    return ring
