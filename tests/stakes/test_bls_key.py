"""registerBlsKey(): validators only; the key pair and its proof of possession are checked on-chain
(SPECIFICATION.md 3.1) with keys made by workers/crypto (py-ecc), so Python and the contract agree
on the PoP message, hash-to-G1 and the key encodings; a rogue key cannot register."""

import brownie
from brownie import chain
from eth_abi.packed import encode_packed
from eth_utils import keccak

from tests.stakes.conftest import TOKEN
from workers.crypto.attest_messages import pop_message, registration_args
from workers.crypto.bls import BlsKey, P, aggregate_g1, aggregate_g2

KEY = BlsKey.from_seed(b"\x05" * 32)
VICTIM = BlsKey.from_seed(b"\x06" * 32)


def test_non_validator_cannot_register(stakes, stake, node):
    stake(node, 0, 100 * TOKEN)
    with brownie.reverts(f"NotAValidator: {node.address.lower()}"):
        stakes.registerBlsKey(*registration_args(KEY, node.address, chain.id, stakes.address), {"from": node})


def test_python_pop_message_matches_contract(stakes, validator):
    pk2, pk1, _ = registration_args(KEY, validator.address, chain.id, stakes.address)
    expected = pop_message(chain.id, stakes.address, validator.address, KEY)
    assert bytes(stakes.blsPopMessage(validator, pk2, pk1)) == expected


def test_valid_key_registers_and_emits(stakes, stake, validator):
    stake(validator, 2, 200 * TOKEN)
    pk2, pk1, pop = registration_args(KEY, validator.address, chain.id, stakes.address)
    tx = stakes.registerBlsKey(pk2, pk1, pop, {"from": validator})
    ev = tx.events["BlsKeyRegistered"]
    assert ev["keyHash"] == "0x" + keccak(encode_packed(["uint256[4]"], [pk2])).hex()
    stored2, stored1 = stakes.blsKeyOf(validator)
    assert [int(x) for x in stored2] == pk2 and [int(x) for x in stored1] == pk1


def test_proof_for_another_node_is_rejected(stakes, stake, validator, validators):
    stake(validator, 2, 200 * TOKEN)
    pk2, pk1, pop_other = registration_args(KEY, validators[1].address, chain.id, stakes.address)
    with brownie.reverts(f"InvalidProofOfPossession: {validator.address.lower()}"):
        stakes.registerBlsKey(pk2, pk1, pop_other, {"from": validator})


def test_mismatched_g1_key_is_rejected(stakes, stake, validator):
    stake(validator, 2, 200 * TOKEN)
    pk2, _, pop = registration_args(KEY, validator.address, chain.id, stakes.address)
    with brownie.reverts(f"BlsKeysMismatch: {validator.address.lower()}"):
        stakes.registerBlsKey(pk2, list(VICTIM.pubkey_g1), pop, {"from": validator})


def test_key_off_curve_is_rejected(stakes, stake, validator):
    stake(validator, 2, 200 * TOKEN)
    pk2, pk1, pop = registration_args(KEY, validator.address, chain.id, stakes.address)
    with brownie.reverts(f"InvalidBlsKey: {validator.address.lower()}"):
        stakes.registerBlsKey([1, 2, 3, 4], pk1, pop, {"from": validator})


def test_rogue_key_cannot_register_without_the_victims_secret(stakes, stake, validator):
    """pk_rogue = pk_attacker - pk_victim: the attacker signs with the only secret it has."""
    stake(validator, 2, 200 * TOKEN)
    x1, x0, y1, y0 = VICTIM.pubkey_g2
    rogue2 = aggregate_g2([KEY.pubkey_g2, [x1, x0, P - y1, P - y0]])
    vx, vy = VICTIM.pubkey_g1
    rogue1 = aggregate_g1([KEY.pubkey_g1, [vx, P - vy]])
    message = bytes(stakes.blsPopMessage(validator, rogue2, rogue1))
    with brownie.reverts(f"InvalidProofOfPossession: {validator.address.lower()}"):
        stakes.registerBlsKey(rogue2, rogue1, KEY.sign(message), {"from": validator})


def test_key_is_write_once(stakes, stake, validator):
    """A task's aggregate key subtracts, on a slot's release, the key its holder had when it took the
    slot: a registered key can never be replaced, not even by the same key (SPECIFICATION.md 3.1)."""
    stake(validator, 2, 200 * TOKEN)
    stakes.registerBlsKey(*registration_args(KEY, validator.address, chain.id, stakes.address), {"from": validator})
    for again in (VICTIM, KEY):
        with brownie.reverts(f"BlsKeyAlreadyRegistered: {validator.address.lower()}"):
            stakes.registerBlsKey(*registration_args(again, validator.address, chain.id, stakes.address),
                                  {"from": validator})
    assert [int(x) for x in stakes.blsKeyG1Of(validator)] == list(KEY.pubkey_g1)
