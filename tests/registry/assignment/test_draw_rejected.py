"""drawValidators waits for its seed block, needs a vacancy and a task that is drawing."""

import brownie
from brownie import chain

from workers.protocol import Role, Status


def test_draw_before_seed_block_passed_reverts(registry, samplers, trainer, outsider, create_task, state):
    task_id = create_task()
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    seed_block = registry.claimSlot(task_id, Role.TRAINER, {"from": trainer}).block_number + 1
    # The next transaction lands in the seed block itself, whose hash is not known yet.
    with brownie.reverts(f"DrawNotReady: {task_id}, {seed_block}"):
        registry.drawValidators(task_id, {"from": outsider})
    assert state.taskOf(task_id)["filledValidators"] == 0


def test_draw_works_once_seed_block_is_mined(registry, samplers, trainer, outsider, create_task, state):
    task_id = create_task()
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    seed_block = registry.claimSlot(task_id, Role.TRAINER, {"from": trainer}).block_number + 1
    chain.mine()
    tx = registry.drawValidators(task_id, {"from": outsider})
    assert tx.block_number == seed_block + 1
    assert state.taskOf(task_id)["status"] == Status.ACTIVE


def test_open_task_has_nothing_to_draw(registry, outsider, samplers, create_task):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    chain.mine(2)
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.OPEN}"):
        registry.drawValidators(task_id, {"from": outsider})


def test_cancelled_task_cannot_draw(registry, requester, outsider, drawing_task):
    task_id = drawing_task()
    registry.cancelTask(task_id, {"from": requester})
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.CANCELLED}"):
        registry.drawValidators(task_id, {"from": outsider})


def test_full_active_task_has_no_vacancy(registry, outsider, active_task):
    chain.mine(2)
    with brownie.reverts(f"NoVacancy: {active_task}"):
        registry.drawValidators(active_task, {"from": outsider})
