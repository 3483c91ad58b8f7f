"""The claim that fills the last sampler and trainer slot moves the task to Drawing and arms the
validator draw on the next block's hash."""

from dataclasses import replace

from brownie import chain

from workers.protocol import Role, Status


def test_last_claim_moves_to_drawing(registry, samplers, trainer, create_task, state):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    tx = registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})
    assert [int(x) for x in tx.events["TaskStatusChanged"].values()] == [task_id, Status.DRAWING]
    assert state.taskOf(task_id)["status"] == Status.DRAWING


def test_draw_armed_on_next_block(registry, samplers, trainer, create_task, state):
    task_id = create_task()
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    tx = registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    assert [int(x) for x in tx.events["DrawArmed"].values()] == [task_id, tx.block_number + 1]
    assert state.taskOf(task_id)["seedBlock"] == tx.block_number + 1


def test_drawing_follows_slot_assignment(registry, samplers, trainer, create_task):
    task_id = create_task()
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    tx = registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    assert list(tx.events.keys()) == ["StakeLocked", "SlotAssigned", "TaskStatusChanged", "DrawArmed"]


def test_single_sampler_task_arms_on_trainer_claim(registry, samplers, trainer, create_task, task_params, state):
    task_id = create_task(replace(task_params, num_samplers=1))
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    assert state.taskOf(task_id)["seedBlock"] == 0
    tx = registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    assert state.taskOf(task_id)["seedBlock"] == tx.block_number + 1
    assert chain[-1].number == tx.block_number
