"""createTask without enough allowance or balance reverts with the token's own error."""

from dataclasses import replace

import brownie

TOKEN = 10**18


def test_missing_allowance_reverts(staked, registry, requester, task_params, state):
    with brownie.reverts(
        f"ERC20InsufficientAllowance: {registry.address.lower()}, 0, {task_params.bounty}"
    ):
        registry.createTask(task_params.as_tuple(), {"from": requester})
    assert state.taskCount() == 0
    assert staked.vault.totalEscrow() == 0


def test_allowance_one_short_reverts(staked, token, registry, requester, task_params):
    token.approve(registry, task_params.bounty - 1, {"from": requester})
    with brownie.reverts(
        f"ERC20InsufficientAllowance: {registry.address.lower()}, {task_params.bounty - 1}, {task_params.bounty}"
    ):
        registry.createTask(task_params.as_tuple(), {"from": requester})
    assert token.allowance(requester, registry) == task_params.bounty - 1


def test_bounty_above_balance_reverts(staked, token, registry, requester, task_params):
    balance = token.balanceOf(requester)
    params = replace(task_params, bounty=balance + 1)
    token.approve(registry, params.bounty, {"from": requester})
    with brownie.reverts(f"ERC20InsufficientBalance: {requester.address.lower()}, {balance}, {balance + 1}"):
        registry.createTask(params.as_tuple(), {"from": requester})
    assert token.balanceOf(requester) == balance


def test_allowance_of_someone_else_is_not_used(staked, token, registry, requester, outsider, task_params):
    token.approve(registry, task_params.bounty, {"from": requester})
    with brownie.reverts(
        f"ERC20InsufficientAllowance: {registry.address.lower()}, 0, {task_params.bounty}"
    ):
        registry.createTask(task_params.as_tuple(), {"from": outsider})
