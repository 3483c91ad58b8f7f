"""createTask bounds the number of rounds to 1..1000."""

from dataclasses import replace

import brownie


def _expect_revert(staked, requester, params, message):
    staked.token.approve(staked.registry, params.bounty, {"from": requester})
    with brownie.reverts(message):
        staked.registry.createTask(params.as_tuple(), {"from": requester})
    assert staked.state.taskCount() == 0


def test_zero_rounds_reverts(staked, requester, task_params):
    _expect_revert(staked, requester, replace(task_params, num_rounds=0), "RoundsOutOfBounds: 0, 1000")


def test_1001_rounds_reverts(staked, requester, task_params):
    _expect_revert(staked, requester, replace(task_params, num_rounds=1001), "RoundsOutOfBounds: 1001, 1000")


def test_one_and_1000_rounds_accepted(staked, registry, create_task, task_params, state):
    one = create_task(replace(task_params, num_rounds=1))
    many = create_task(replace(task_params, num_rounds=1000))
    assert [state.taskOf(one)["numRounds"], state.taskOf(many)["numRounds"]] == [1, 1000]
