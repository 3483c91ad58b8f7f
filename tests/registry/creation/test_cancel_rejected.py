"""cancelTask is the requester's alone, and only before the rounds start."""

import brownie
from brownie import chain

from workers.protocol import Role, Status

TOKEN = 10**18


def test_only_requester_can_cancel(registry, vault, outsider, samplers, create_task, state):
    task_id = create_task()
    for caller in [outsider, samplers[0]]:
        with brownie.reverts(f"NotRequester: {task_id}, {caller.address.lower()}"):
            registry.cancelTask(task_id, {"from": caller})
    assert state.taskOf(task_id)["status"] == Status.OPEN
    assert vault.escrowOf(task_id) == 10_000 * TOKEN


def test_active_task_cannot_be_cancelled(registry, vault, requester, active_task):
    with brownie.reverts(f"WrongStatus: {active_task}, {Status.ACTIVE}"):
        registry.cancelTask(active_task, {"from": requester})
    assert vault.escrowOf(active_task) == 10_000 * TOKEN


def test_cancelled_task_cannot_be_cancelled_again(registry, vault, requester, create_task):
    task_id = create_task()
    registry.cancelTask(task_id, {"from": requester})
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.CANCELLED}"):
        registry.cancelTask(task_id, {"from": requester})
    assert vault.claimableOf(requester) == 10_000 * TOKEN


def test_active_task_keeps_locked_stakes(registry, stakes, requester, samplers, active_task):
    with brownie.reverts(f"WrongStatus: {active_task}, {Status.ACTIVE}"):
        registry.cancelTask(active_task, {"from": requester})
    assert [stakes.stakeOf(s, Role.SAMPLER)["locked"] for s in samplers] == [100 * TOKEN] * 2


def test_failed_task_cannot_be_cancelled(registry, vault, requester, outsider, create_task):
    task_id = create_task()
    chain.sleep(3601)  # past the one-hour claim window
    registry.advance(task_id, {"from": outsider})
    with brownie.reverts(f"WrongStatus: {task_id}, {Status.FAILED}"):
        registry.cancelTask(task_id, {"from": requester})
    assert vault.claimableOf(requester) == 10_000 * TOKEN
