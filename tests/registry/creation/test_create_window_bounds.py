"""createTask bounds each of the four windows to 60 s .. 30 days."""

from dataclasses import replace

import brownie
import pytest

DAY = 24 * 3600
WINDOWS = ["claim_window", "commit_window", "reveal_window", "attest_window"]


@pytest.mark.parametrize("field", WINDOWS)
@pytest.mark.parametrize("value", [59, 30 * DAY + 1, 0])
def test_window_out_of_bounds_reverts(staked, requester, task_params, field, value):
    params = replace(task_params, **{field: value})
    staked.token.approve(staked.registry, params.bounty, {"from": requester})
    with brownie.reverts(f"WindowOutOfBounds: {value}, 60, {30 * DAY}"):
        staked.registry.createTask(params.as_tuple(), {"from": requester})
    assert staked.state.taskCount() == 0


@pytest.mark.parametrize("field", WINDOWS)
def test_window_at_both_bounds_accepted(staked, registry, create_task, task_params, field, state):
    short = state.taskOf(create_task(replace(task_params, **{field: 60})))
    long = state.taskOf(create_task(replace(task_params, **{field: 30 * DAY})))
    if field == "claim_window":
        assert long["claimDeadline"] - short["claimDeadline"] >= 30 * DAY - 60
    else:
        name = {"commit_window": "commitWindow", "reveal_window": "revealWindow",
                "attest_window": "attestWindow"}[field]
        assert [short[name], long[name]] == [60, 30 * DAY]


def test_first_bad_window_is_reported(staked, requester, task_params):
    # Windows are checked in order claim, commit, reveal, attest: the first bad one names itself.
    params = replace(task_params, commit_window=59, attest_window=30 * DAY + 1)
    staked.token.approve(staked.registry, params.bounty, {"from": requester})
    with brownie.reverts(f"WindowOutOfBounds: 59, 60, {30 * DAY}"):
        staked.registry.createTask(params.as_tuple(), {"from": requester})
