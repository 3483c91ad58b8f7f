"""commit records one commitment per node and round, emits ResultCommitted, and refuses empty,
repeated, foreign and premature commitments with the exact error."""

import brownie

from workers.protocol import Role, Status


def test_commit_records_submission_and_emits_event(registry, round_driver, samplers, state):
    s = samplers[1]
    c = round_driver.commitment_of(s)
    tx = round_driver.commit(s)
    assert dict(tx.events["ResultCommitted"]) == {
        "taskId": round_driver.task_id, "round": 0, "node": s.address,
        "role": Role.SAMPLER, "slot": 1, "commitment": "0x" + c.hex(),
    }
    sub = state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 1)
    assert sub["commitment"] == "0x" + c.hex()
    assert sub["node"] == s.address
    assert sub["root"] == "0x" + "00" * 32
    assert (sub["revealed"], sub["verdict"], sub["cid"]) == (False, 0, "")
    assert state.taskOf(round_driver.task_id)["pending"] == 1


def test_commitment_matches_contract_helper(registry, round_driver, samplers, state):
    root, cid, salt = round_driver.result(samplers[0])
    expected = state.commitmentFor(round_driver.task_id, 0, samplers[0], root, cid, salt)
    assert expected == "0x" + round_driver.commitment_of(samplers[0]).hex()


def test_empty_commitment_reverts(registry, round_driver, samplers):
    with brownie.reverts("EmptyCommitment: "):
        registry.commit(round_driver.task_id, b"\x00" * 32, {"from": samplers[0]})


def test_second_commit_reverts(registry, round_driver, samplers):
    round_driver.commit(samplers[0])
    with brownie.reverts(f"AlreadyCommitted: {round_driver.task_id}, {samplers[0].address.lower()}"):
        registry.commit(round_driver.task_id, b"\x01" * 32, {"from": samplers[0]})


def test_commit_by_node_outside_task_reverts(registry, round_driver, outsider, requester):
    for node in (outsider, requester):
        with brownie.reverts(f"NotAssigned: {round_driver.task_id}, {node.address.lower()}"):
            registry.commit(round_driver.task_id, b"\x01" * 32, {"from": node})


def test_commit_before_activation_reverts(registry, create_task, samplers, trainer):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.OPEN}"):
        registry.commit(task_id, b"\x01" * 32, {"from": samplers[0]})
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.DRAWING}"):
        registry.commit(task_id, b"\x01" * 32, {"from": samplers[0]})
