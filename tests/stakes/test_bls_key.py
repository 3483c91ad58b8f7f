"""registerBlsKey(): validators only, non-zero key, event carries keccak256(abi.encodePacked(pubkey))."""

import brownie
from eth_abi.packed import encode_packed
from eth_utils import keccak

from tests.stakes.conftest import TOKEN
from workers.protocol import Role

PUBKEY = [11, 22, 33, 44]
PROOF = [55, 66]


def key_hash(pubkey):
    return keccak(encode_packed(["uint256[4]"], [pubkey]))


def test_non_validator_cannot_register(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    with brownie.reverts(f"NotAValidator: {node.address.lower()}"):
        stakes.registerBlsKey(PUBKEY, PROOF, {"from": node})


def test_zero_key_reverts(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    with brownie.reverts("InvalidBlsKey: "):
        stakes.registerBlsKey([0, 0, 0, 0], PROOF, {"from": validator})


def test_key_with_one_nonzero_word_is_accepted(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.registerBlsKey([0, 0, 0, 1], PROOF, {"from": validator})
    assert [int(x) for x in stakes.blsKeyOf(validator)[0]] == [0, 0, 0, 1]


def test_register_emits_key_hash_and_key(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    tx = stakes.registerBlsKey(PUBKEY, PROOF, {"from": validator})
    ev = tx.events["BlsKeyRegistered"]
    assert ev["node"] == validator
    assert bytes(ev["keyHash"]) == key_hash(PUBKEY)
    assert [int(x) for x in ev["pubkey"]] == PUBKEY


def test_bls_key_of_returns_key_and_proof(stakes, stake, validator, outsider):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.registerBlsKey(PUBKEY, PROOF, {"from": validator})
    key, proof = stakes.blsKeyOf(validator)
    assert [int(x) for x in key] == PUBKEY
    assert [int(x) for x in proof] == PROOF
    assert [[int(x) for x in part] for part in stakes.blsKeyOf(outsider)] == [[0, 0, 0, 0], [0, 0]]


def test_reregistering_replaces_key(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.registerBlsKey(PUBKEY, PROOF, {"from": validator})
    stakes.registerBlsKey([1, 2, 3, 4], [5, 6], {"from": validator})
    assert [int(x) for x in stakes.blsKeyOf(validator)[0]] == [1, 2, 3, 4]


def test_validator_that_left_cannot_register(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.requestUnstake(Role.VALIDATOR, 200 * TOKEN, {"from": validator})
    with brownie.reverts(f"NotAValidator: {validator.address.lower()}"):
        stakes.registerBlsKey(PUBKEY, PROOF, {"from": validator})
