"""The messages validators BLS-sign and the call arguments built from them.

Both messages are the contracts' own (StakeManager.blsPopMessage, StateView.attestationMessage),
recomputed here so a node signs without a chain round trip; tests check they agree."""

from __future__ import annotations

from eth_abi import encode
from eth_utils import keccak, to_checksum_address

from workers.crypto.bls import BlsKey, aggregate_g1, aggregate_g2

ATTEST_DOMAIN = keccak(b"decentrl.attest.v1")
POP_DOMAIN = keccak(b"decentrl.bls-pop.v1")
NODE_KEY_DST = b"decentrl.bls-from-node-key.v1"


def attestation_message(chain_id: int, registry: str, task_id: int, round_: int, accept_bitmap: int) -> bytes:
    return keccak(encode(["bytes32", "uint256", "address", "uint256", "uint256", "uint256"],
                         [ATTEST_DOMAIN, chain_id, to_checksum_address(registry), task_id, round_, accept_bitmap]))


def pop_message(chain_id: int, stake_manager: str, node: str, key: BlsKey) -> bytes:
    return keccak(encode(["bytes32", "uint256", "address", "address", "uint256[4]", "uint256[2]"],
                         [POP_DOMAIN, chain_id, to_checksum_address(stake_manager), to_checksum_address(node),
                          list(key.pubkey_g2), list(key.pubkey_g1)]))


def key_from_node_key(node_private_key: bytes) -> BlsKey:
    """The node's BLS key, derived one way from its account key under a domain tag: nothing new to
    store or back up, and the BLS key reveals nothing about the account key (keccak is one-way).
    Whoever holds the account key can already attest for the node, so this adds no power."""
    if len(node_private_key) != 32:
        raise ValueError("node private key must be 32 bytes")
    return BlsKey.from_seed(keccak(NODE_KEY_DST + node_private_key))


def registration_args(key: BlsKey, node: str, chain_id: int, stake_manager: str) -> tuple[list, list, list]:
    """Arguments of StakeManager.registerBlsKey for `node`: (G2 key, G1 key, proof of possession)."""
    return list(key.pubkey_g2), list(key.pubkey_g1), key.sign(pop_message(chain_id, stake_manager, node, key))


def aggregate_args(task_id: int, round_: int, accept_bitmap: int, votes: dict[int, tuple[list, list]],
                   salts: dict[int, bytes], registered_keys: bool = False) -> tuple:
    """Arguments of TaskRegistry.attestAggregate from {validator slot: (signature, G2 key)}, all of
    them on the same (task, round, bitmap), and {slot: the salt its sealed vote opens with}:
    (taskId, round, acceptBitmap, signerBitmap, sigma, apk2, salts in slot order).
    registered_keys: the G2 keys were read from StakeManager (bls.aggregate_g2)."""
    if not votes:
        raise ValueError("no votes to aggregate")
    if set(salts) != set(votes):
        raise ValueError(f"salts for slots {sorted(salts)}, votes of slots {sorted(votes)}")
    signer_bitmap = sum(1 << slot for slot in votes)
    sigma = aggregate_g1(sig for sig, _ in votes.values())
    apk2 = aggregate_g2((pk for _, pk in votes.values()), registered=registered_keys)
    return task_id, round_, accept_bitmap, signer_bitmap, sigma, apk2, [bytes(salts[v]) for v in sorted(votes)]
