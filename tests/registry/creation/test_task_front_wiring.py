"""The registry creates tasks for others only when its task front asks (createTaskFor), and the
task front is set once, by the admin, to a real address."""

import brownie
from brownie import TaskRegistry

ZERO = "0x" + "00" * 20


def test_deployment_wires_the_front(registry, front, state):
    assert state.taskFront() == front.address
    assert front.registry() == registry.address


def test_create_task_for_refuses_everyone_but_the_front(registry, token, requester, outsider, task_params, state):
    token.approve(registry, task_params.bounty, {"from": requester})
    for caller in (requester, outsider):
        with brownie.reverts(f"NotTaskFront: {caller.address.lower()}"):
            registry.createTaskFor(task_params.as_tuple(), requester, {"from": caller})
    assert state.taskCount() == 0


def test_front_is_set_once(registry, admin, outsider, front):
    with brownie.reverts(f"TaskFrontAlreadySet: {front.address.lower()}"):
        registry.setTaskFront(outsider, {"from": admin})


def test_only_the_admin_sets_the_front_and_never_to_zero(dep, admin, outsider):
    fresh = TaskRegistry.deploy(dep.token, dep.stakes, dep.reputation, dep.vault, dep.config, admin, {"from": admin})
    role = bytes(fresh.DEFAULT_ADMIN_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        fresh.setTaskFront(outsider, {"from": outsider})
    with brownie.reverts("ZeroAddress: "):
        fresh.setTaskFront(ZERO, {"from": admin})
    tx = fresh.setTaskFront(outsider, {"from": admin})
    assert tx.events["TaskFrontSet"]["taskFront"] == outsider
