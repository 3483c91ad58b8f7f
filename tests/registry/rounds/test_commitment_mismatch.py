"""A reveal must open the caller's own commitment exactly: a wrong salt or root reverts
CommitmentMismatch, and a commitment copied from another node cannot be opened by the copier,
who then misses the reveal (lazy copying fails)."""

import brownie

from workers.protocol import Outcome, Role


def _mismatch(task_id, node):
    return brownie.reverts(f"CommitmentMismatch: {task_id}, {node.address.lower()}")


def test_wrong_salt_reverts(registry, round_driver, samplers):
    round_driver.commit_samples()
    root, cid, _ = round_driver.result(samplers[0])
    with _mismatch(round_driver.task_id, samplers[0]):
        registry.reveal(round_driver.task_id, root, cid, b"\x07" * 32, {"from": samplers[0]})


def test_wrong_root_reverts(registry, round_driver, samplers):
    round_driver.commit_samples()
    _, cid, salt = round_driver.result(samplers[0])
    with _mismatch(round_driver.task_id, samplers[0]):
        registry.reveal(round_driver.task_id, b"\x09" * 32, cid, salt, {"from": samplers[0]})


def test_wrong_cid_reverts(registry, round_driver, samplers):
    round_driver.commit_samples()
    root, _, salt = round_driver.result(samplers[0])
    with _mismatch(round_driver.task_id, samplers[0]):
        registry.reveal(round_driver.task_id, root, "bafy-other", salt, {"from": samplers[0]})


def test_copied_commitment_cannot_be_opened_by_copier(registry, round_driver, samplers, state):
    honest, copier = samplers
    tx = round_driver.commit(honest)
    copied = tx.events["ResultCommitted"]["commitment"]
    registry.commit(round_driver.task_id, copied, {"from": copier})
    round_driver.reveal(honest)  # the honest result is now public
    root, cid, salt = round_driver.result(honest)
    with _mismatch(round_driver.task_id, copier):
        registry.reveal(round_driver.task_id, root, cid, salt, {"from": copier})

    tx = round_driver.expire()
    assert dict(tx.events["SlotVacated"]) == {
        "taskId": round_driver.task_id, "node": copier.address, "role": Role.SAMPLER,
        "slot": 1, "reason": Outcome.WITHHELD,  # committed, never opened: slashed
    }
    assert state.taskOf(round_driver.task_id)["revealedMask"] == 0  # set when Attest starts
    assert not state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 1)["revealed"]
