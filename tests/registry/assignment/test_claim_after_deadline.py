"""Sampler and trainer slots must be filled within the claim window (ITaskRegistry.TaskParams:
"Seconds from creation for all slots to be filled, else the task fails"). A claim on an Open task
after its claim deadline is refused, as a commit after its phase deadline is (DeadlinePassed), so a
task that missed its window cannot be revived by a late claim and a quick draw.

Fails against the current TaskRegistry.claimSlot, which never looks at claimDeadline: the late
claim succeeds, the task moves to Drawing, and drawValidators then activates it."""

import brownie
from brownie import chain

from workers.protocol import Role, Status


def _half_filled(registry, samplers, trainer, create_task):
    task_id = create_task()  # claim window 3600 s
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    return task_id


def test_claim_within_window_accepted(registry, samplers, trainer, create_task, state):
    task_id = _half_filled(registry, samplers, trainer, create_task)
    chain.sleep(3000)
    chain.mine()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})
    assert state.taskOf(task_id)["status"] == Status.DRAWING


def test_claim_after_claim_deadline_refused(registry, samplers, trainer, create_task, state):
    task_id = _half_filled(registry, samplers, trainer, create_task)
    deadline = state.taskOf(task_id)["claimDeadline"]
    chain.sleep(3700)
    chain.mine()
    assert registry.protocolTime() > deadline
    with brownie.reverts(f"DeadlinePassed: {task_id}, {deadline}"):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[1]})
    assert state.taskOf(task_id)["status"] == Status.OPEN

