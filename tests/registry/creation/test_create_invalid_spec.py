"""createTask refuses a task without a usable spec or a bounty under the minimum, and keeps nothing."""

from dataclasses import replace

import brownie

TOKEN = 10**18


# An error without arguments surfaces in brownie as "Name: " (with the trailing space).
def _expect_revert(staked, requester, params, message):
    staked.token.approve(staked.registry, 10**30, {"from": requester})
    with brownie.reverts(message):
        staked.registry.createTask(params.as_tuple(), {"from": requester})
    assert staked.state.taskCount() == 0
    assert staked.token.balanceOf(staked.vault) == 0


def test_empty_cid_reverts(staked, requester, task_params):
    _expect_revert(staked, requester, replace(task_params, spec_cid=""), "InvalidSpec: ")


def test_zero_digest_reverts(staked, requester, task_params):
    _expect_revert(staked, requester, replace(task_params, spec_digest=b"\x00" * 32), "InvalidSpec: ")


def test_cid_over_128_bytes_reverts(staked, requester, task_params):
    _expect_revert(staked, requester, replace(task_params, spec_cid="b" * 129), "InvalidSpec: ")


def test_cid_length_counts_bytes_not_characters(staked, requester, task_params):
    # 43 three-byte characters: 129 bytes in UTF-8.
    _expect_revert(staked, requester, replace(task_params, spec_cid="\u20ac" * 43), "InvalidSpec: ")


def test_cid_of_exactly_128_bytes_accepted(staked, registry, create_task, task_params, state):
    task_id = create_task(replace(task_params, spec_cid="b" * 128))
    assert state.taskOf(task_id)["specCid"] == "b" * 128


def test_zero_bounty_reverts(staked, requester, task_params):
    _expect_revert(staked, requester, replace(task_params, bounty=0), "InvalidBounty: ")


def test_bounty_under_the_minimum_reverts_and_the_minimum_is_accepted(staked, requester, vault, create_task,
                                                                       task_params):
    # 0.01 DRL per slot-round (SPECIFICATION.md 5.2): 5 rounds of 2 samplers, 1 trainer, 3 validators
    minimum = staked.state.minBounty(2, 3, 5)
    assert minimum == 30 * TOKEN // 100
    _expect_revert(staked, requester, replace(task_params, bounty=1), f"BountyTooSmall: 1, {minimum}")
    _expect_revert(staked, requester, replace(task_params, bounty=minimum - 1),
                   f"BountyTooSmall: {minimum - 1}, {minimum}")
    task_id = create_task(replace(task_params, bounty=minimum))
    assert vault.escrowOf(task_id) == minimum
