"""A revealed result needs a non-zero root and a cid of 1 to 128 bytes (InvalidResult); a
128-byte cid is accepted."""

import brownie

from workers.protocol import Role, commitment


def _commit_for(registry, round_driver, node, root, cid, salt):
    c = commitment(round_driver.task_id, 0, node.address, root, cid, salt)
    registry.commit(round_driver.task_id, c, {"from": node})


def _to_reveal(registry, round_driver, samplers, root, cid, salt):
    _commit_for(registry, round_driver, samplers[0], root, cid, salt)
    round_driver.commit(samplers[1])


def test_zero_root_reverts(registry, round_driver, samplers):
    salt = b"\x05" * 32
    _to_reveal(registry, round_driver, samplers, b"\x00" * 32, "bafy-x", salt)
    with brownie.reverts("InvalidResult: "):
        registry.reveal(round_driver.task_id, b"\x00" * 32, "bafy-x", salt, {"from": samplers[0]})


def test_empty_cid_reverts(registry, round_driver, samplers):
    salt = b"\x05" * 32
    _to_reveal(registry, round_driver, samplers, b"\x01" * 32, "", salt)
    with brownie.reverts("InvalidResult: "):
        registry.reveal(round_driver.task_id, b"\x01" * 32, "", salt, {"from": samplers[0]})


def test_cid_longer_than_128_bytes_reverts(registry, round_driver, samplers, state):
    salt, cid = b"\x05" * 32, "b" * 129
    _to_reveal(registry, round_driver, samplers, b"\x01" * 32, cid, salt)
    with brownie.reverts("InvalidResult: "):
        registry.reveal(round_driver.task_id, b"\x01" * 32, cid, salt, {"from": samplers[0]})
    assert not state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 0)["revealed"]


def test_cid_of_128_bytes_is_accepted(registry, round_driver, samplers, state):
    salt, cid = b"\x05" * 32, "b" * 128
    _to_reveal(registry, round_driver, samplers, b"\x01" * 32, cid, salt)
    tx = registry.reveal(round_driver.task_id, b"\x01" * 32, cid, salt, {"from": samplers[0]})
    assert tx.events["ResultRevealed"]["cid"] == cid
    assert state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 0)["cid"] == cid
