"""createTask refuses a task without a usable spec or bounty, and keeps nothing."""

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


def test_one_wei_bounty_accepted(staked, vault, create_task, task_params):
    task_id = create_task(replace(task_params, bounty=1))
    assert vault.escrowOf(task_id) == 1
