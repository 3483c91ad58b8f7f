"""workers/crypto/attest_messages.py: message layouts and the call arguments built from votes."""

import pytest
from eth_abi import encode
from eth_utils import keccak

from workers.crypto.attest_messages import aggregate_args, attestation_message, key_from_node_key, pop_message
from workers.crypto.bls import BlsKey, aggregate_g1, aggregate_g2

REGISTRY = "0x" + "ab" * 20


def test_attestation_message_layout():
    expected = keccak(encode(["bytes32", "uint256", "address", "uint256", "uint256", "uint256"],
                             [keccak(b"decentrl.attest.v1"), 31337, REGISTRY, 5, 2, 0b101]))
    assert attestation_message(31337, REGISTRY, 5, 2, 0b101) == expected
    assert attestation_message(1, REGISTRY, 5, 2, 0b101) != expected


def test_pop_message_names_the_node():
    key = BlsKey.from_secret(11)
    assert pop_message(1, REGISTRY, "0x" + "01" * 20, key) != pop_message(1, REGISTRY, "0x" + "02" * 20, key)


def test_node_key_derivation_is_domain_separated():
    node_key = b"\x07" * 32
    assert key_from_node_key(node_key) == key_from_node_key(node_key)
    assert key_from_node_key(node_key) != BlsKey.from_seed(node_key)


def test_aggregate_args_bitmap_and_sums():
    keys = {0: BlsKey.from_secret(3), 2: BlsKey.from_secret(5)}
    message = attestation_message(31337, REGISTRY, 1, 0, 7)
    votes = {slot: (k.sign(message), list(k.pubkey_g2)) for slot, k in keys.items()}
    salts = {2: b"\x02" * 32, 0: b"\x00" * 32}
    task, round_, bitmap, signers, sigma, apk2, in_order = aggregate_args(1, 0, 7, votes, salts)
    assert (task, round_, bitmap, signers) == (1, 0, 7, 0b101)
    assert in_order == [b"\x00" * 32, b"\x02" * 32]  # one per signer, in slot order
    assert sigma == aggregate_g1(v[0] for v in votes.values())
    assert apk2 == list(BlsKey.from_secret(8).pubkey_g2) == aggregate_g2(v[1] for v in votes.values())
    assert aggregate_args(1, 0, 7, votes, salts, registered_keys=True) == (
        task, round_, bitmap, signers, sigma, apk2, in_order)
    with pytest.raises(ValueError):
        aggregate_args(1, 0, 7, votes, {0: b"\x00" * 32})  # a signer without its salt
