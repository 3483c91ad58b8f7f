"""With too few eligible validators the draw fills what it can and re-arms; a later draw with a
larger pool fills the rest and activates the task. Validators who join after a draw was armed are
in the pool of the draws armed after they joined, not of that one (SPECIFICATION.md 5.3)."""

from dataclasses import replace

from brownie import chain

from tests.registry.assignment.conftest import drawn_validators
from workers.protocol import Role, Status


def test_fills_what_it_can_and_rearms(registry, validators, outsider, drawing_task, task_params, state):
    task_id = drawing_task(replace(task_params, num_validators=5))
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert len(tx.events["SlotAssigned"]) == 3
    assert [int(x) for x in tx.events["DrawArmed"].values()] == [task_id, tx.block_number + 1]
    assert "TaskStatusChanged" not in tx.events
    task = state.taskOf(task_id)
    assert [task["status"], task["filledValidators"], task["seedBlock"]] == [Status.DRAWING, 3,
                                                                           tx.block_number + 1]
    assert sorted(drawn_validators(state, task_id)[:3]) == sorted(v.address for v in validators)


def test_later_draw_completes_and_activates(registry, stake_as, outsider, extra_validators, drawing_task,
                                            task_params, state):
    task_id = drawing_task(replace(task_params, num_validators=5))
    registry.drawValidators(task_id, {"from": outsider})
    for v in extra_validators[:2]:
        stake_as(v, Role.VALIDATOR)
    chain.mine(2)
    # armed before they joined: this draw's pool is the one it was armed with
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert "SlotAssigned" not in tx.events and "DrawArmed" in tx.events
    chain.mine(2)
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert sorted(e["slot"] for e in tx.events["SlotAssigned"]) == [3, 4]
    assert {e["node"] for e in tx.events["SlotAssigned"]} == {v.address for v in extra_validators[:2]}
    assert "DrawArmed" not in tx.events
    task = state.taskOf(task_id)
    assert [task["status"], task["filledValidators"], task["seedBlock"]] == [Status.ACTIVE, 5, 0]


def test_empty_pool_rearms_without_assigning(registry, stakes, validators, outsider, drawing_task, state):
    task_id = drawing_task()
    for v in validators:
        stakes.requestUnstake(Role.VALIDATOR, stakes.stakeOf(v, Role.VALIDATOR)["staked"], {"from": v})
    assert stakes.validatorCount() == 0
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert "SlotAssigned" not in tx.events
    assert state.taskOf(task_id)["seedBlock"] == tx.block_number + 1
