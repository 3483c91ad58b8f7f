"""cancelTask unlocks exactly what each assignment locked: validators already drawn into a
half-filled draw, and the stake as it was locked even if minStake changed since."""

from dataclasses import replace

from brownie import chain

from workers.protocol import Role, Status

TOKEN = 10**18


def test_partially_drawn_validators_unlocked(registry, stakes, requester, samplers, trainer, validators,
                                            outsider, create_task, task_params, state):
    task_id = create_task(replace(task_params, num_validators=5))
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    chain.mine(2)
    registry.drawValidators(task_id, {"from": outsider})  # only three validators exist
    assert state.taskOf(task_id)["status"] == Status.DRAWING
    tx = registry.cancelTask(task_id, {"from": requester})
    unlocked = {(e["node"], e["role"], e["amount"]) for e in tx.events["StakeUnlocked"]}
    assert {(v.address, Role.VALIDATOR, 200 * TOKEN) for v in validators} <= unlocked
    assert len(unlocked) == 6
    assert [stakes.stakeOf(v, Role.VALIDATOR)["locked"] for v in validators] == [0, 0, 0]


def test_unlocks_amount_locked_at_claim_time(registry, stakes, admin, requester, trainer, create_task):
    task_id = create_task()
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    stakes.setMinStake(Role.TRAINER, 800 * TOKEN, {"from": admin})
    tx = registry.cancelTask(task_id, {"from": requester})
    assert tx.events["StakeUnlocked"]["amount"] == 500 * TOKEN
    assert stakes.stakeOf(trainer, Role.TRAINER)["locked"] == 0
