"""SPECIFICATION.md 5.1: a task whose last round is finalized without any accepted checkpoint ends
NoResult (never Completed) and settles like any end: the unearned bounty is refunded."""

from dataclasses import replace

from brownie import chain

from tests.registry.rounds.driver import TOKEN, RoundDriver, events_of
from workers.protocol import Role, Status


def test_one_round_with_the_trainer_rejected_ends_without_a_result(staked, create_task, task_params, samplers,
                                                                   trainer, requester, state, vault):
    task_id = create_task(replace(task_params, num_rounds=1))
    for s in samplers:
        staked.registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    staked.registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    chain.mine(2)
    staked.registry.drawValidators(task_id, {"from": trainer})
    driver = RoundDriver(staked.registry, state, task_id, samplers, trainer)

    tx = driver.play_round(bitmap=0b011)  # the samplers accepted, the trainer's checkpoint rejected

    assert [e["status"] for e in events_of(tx, "TaskStatusChanged")] == [Status.NO_RESULT]
    settled = tx.events["TaskSettled"]
    paid = [int(x) for x in settled["paidByRole"]]
    assert settled["status"] == Status.NO_RESULT and paid[Role.TRAINER] == 0
    assert settled["refund"] == task_params.bounty - sum(paid) >= 7_000 * TOKEN  # the trainer's share at least
    t = state.taskOf(task_id)
    assert (t["status"], t["checkpointCid"]) == (Status.NO_RESULT, "")
    assert vault.claimableOf(requester) >= settled["refund"] and vault.escrowOf(task_id) == 0
    assert staked.stakes.stakeOf(trainer, Role.TRAINER)["locked"] == 0
