"""A task fails after MAX_IDLE_ROUNDS (2) rounds in a row without an accepted checkpoint, keeping
what was earned and refunding the rest; an Open task past its claim deadline fails on advance
with a full refund."""

import brownie
from brownie import chain

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Role, Status


def test_two_idle_rounds_fail_the_task(registry, vault, stakes, round_driver, requester, samplers, state):
    round_driver.play_round(bitmap=0b011)  # trainer rejected: idle 1
    # round 1: the samplers are accepted again, nobody trains
    round_driver.commit_samples()
    round_driver.reveal_samples()
    tx = round_driver.attest_all(0b011)[-1]
    bounty = 10_000 * TOKEN
    paid = [int(x) for x in state.paidOf(round_driver.task_id)]
    # samplers: 2 x 200 DRL in each of 2 rounds; validators: 3 x floor(200 DRL / 3) in each round
    assert paid == [800 * TOKEN, 0, 2 * 3 * (200 * TOKEN // 3)]
    settled = dict(tx.events["TaskSettled"])
    assert settled["status"] == Status.FAILED
    assert [int(x) for x in settled["paidByRole"]] == paid
    assert settled["refund"] == bounty - sum(paid)
    assert vault.claimableOf(requester) == bounty - sum(paid)
    assert vault.escrowOf(round_driver.task_id) == 0
    assert [vault.claimableOf(s) for s in samplers] == [400 * TOKEN, 400 * TOKEN]
    t = state.taskOf(round_driver.task_id)
    assert (t["status"], t["idleRounds"]) == (Status.FAILED, 2)
    for s in samplers:
        assert stakes.stakeOf(s, Role.SAMPLER)["locked"] == 0


def test_open_task_past_claim_deadline_fails_with_full_refund(registry, vault, stakes, create_task, requester,
                                                              samplers, task_params, state):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    deadline = state.taskOf(task_id)["claimDeadline"]
    with brownie.reverts(f"DeadlineNotReached: {task_id}, {deadline}"):
        registry.advance(task_id, {"from": samplers[0]})
    chain.sleep(deadline - chain[-1].timestamp + 1)
    chain.mine()
    tx = registry.advance(task_id, {"from": samplers[0]})
    settled = tx.events["TaskSettled"]
    assert (settled["taskId"], settled["status"], settled["refund"]) == (task_id, Status.FAILED, task_params.bounty)
    assert [int(x) for x in settled["paidByRole"]] == [0, 0, 0]
    assert [e["status"] for e in events_of(tx, "TaskStatusChanged")] == [Status.FAILED]
    assert vault.claimableOf(requester) == task_params.bounty
    assert stakes.stakeOf(samplers[0], Role.SAMPLER)["locked"] == 0
