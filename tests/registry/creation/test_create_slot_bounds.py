"""createTask bounds the slot counts: 1..32 samplers, 1..64 validators, with the exact error."""

from dataclasses import replace

import brownie

from workers.protocol import Role


def _expect_revert(staked, requester, params, message):
    staked.token.approve(staked.registry, params.bounty, {"from": requester})
    with brownie.reverts(message):
        staked.registry.createTask(params.as_tuple(), {"from": requester})
    assert staked.state.taskCount() == 0


def test_zero_samplers_reverts(staked, requester, task_params):
    params = replace(task_params, num_samplers=0)
    _expect_revert(staked, requester, params, f"SlotCountOutOfBounds: {Role.SAMPLER}, 0, 32")


def test_33_samplers_reverts(staked, requester, task_params):
    params = replace(task_params, num_samplers=33)
    _expect_revert(staked, requester, params, f"SlotCountOutOfBounds: {Role.SAMPLER}, 33, 32")


def test_zero_validators_reverts(staked, requester, task_params):
    params = replace(task_params, num_validators=0)
    _expect_revert(staked, requester, params, f"SlotCountOutOfBounds: {Role.VALIDATOR}, 0, 64")


def test_65_validators_reverts(staked, requester, task_params):
    params = replace(task_params, num_validators=65)
    _expect_revert(staked, requester, params, f"SlotCountOutOfBounds: {Role.VALIDATOR}, 65, 64")


def test_extreme_valid_counts_accepted(staked, registry, create_task, task_params, state):
    low = create_task(replace(task_params, num_samplers=1, num_validators=1))
    high = create_task(replace(task_params, num_samplers=32, num_validators=64))
    assert [state.taskOf(low)["numSamplers"], state.taskOf(low)["numValidators"]] == [1, 1]
    assert [state.taskOf(high)["numSamplers"], state.taskOf(high)["numValidators"]] == [32, 64]
