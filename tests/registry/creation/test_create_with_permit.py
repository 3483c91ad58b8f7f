"""createTaskWithPermit funds the bounty with an EIP-2612 permit; a front-run permit (already
used) does not block creation, because the allowance it set is still there."""

import brownie
from brownie import chain

from tests.registry.creation.conftest import SIGNER_KEY, STRANGER_KEY
from workers.protocol import NO_PERMIT

TOKEN = 10**18


def test_permit_funds_task_without_prior_approval(registry, token, vault, signer, task_params, sign_permit, front,
                                                  state):
    permit = sign_permit(SIGNER_KEY, signer, task_params.bounty, chain[-1].timestamp + 3600)
    tx = front.createTaskWithPermit(task_params.as_tuple(), permit, {"from": signer})
    task_id = tx.return_value
    assert state.taskOf(task_id)["requester"] == signer
    assert vault.escrowOf(task_id) == task_params.bounty
    assert token.balanceOf(signer) == 100_000 * TOKEN - task_params.bounty
    assert token.nonces(signer) == 1
    assert token.allowance(signer, registry) == 0


def test_front_run_permit_still_creates(registry, token, vault, signer, outsider, task_params, sign_permit, front):
    deadline = chain[-1].timestamp + 3600
    permit = sign_permit(SIGNER_KEY, signer, task_params.bounty, deadline)
    # Someone submits the same permit first: the registry's own permit call now fails.
    token.permit(signer, registry, task_params.bounty, *permit, {"from": outsider})
    tx = front.createTaskWithPermit(task_params.as_tuple(), permit, {"from": signer})
    assert vault.escrowOf(tx.return_value) == task_params.bounty
    assert token.nonces(signer) == 1
    assert tx.events["TaskCreated"]["requester"] == signer


def test_no_permit_falls_back_to_allowance(registry, token, vault, signer, task_params, front):
    token.approve(registry, task_params.bounty, {"from": signer})
    tx = front.createTaskWithPermit(task_params.as_tuple(), NO_PERMIT, {"from": signer})
    assert vault.escrowOf(tx.return_value) == task_params.bounty
    assert token.nonces(signer) == 0


def test_foreign_permit_without_allowance_reverts(registry, token, signer, task_params, sign_permit, front, state):
    # A permit signed by another key is ignored; with no allowance the transfer itself fails.
    permit = sign_permit(STRANGER_KEY, signer, task_params.bounty, chain[-1].timestamp + 3600)
    with brownie.reverts(f"ERC20InsufficientAllowance: {registry.address.lower()}, 0, {task_params.bounty}"):
        front.createTaskWithPermit(task_params.as_tuple(), permit, {"from": signer})
    assert state.taskCount() == 0
    assert token.nonces(signer) == 0


def test_permit_is_for_the_caller_only(registry, token, signer, outsider, task_params, sign_permit, front):
    # The signer's permit, sent by someone else, is applied to the caller (outsider): no funds move.
    permit = sign_permit(SIGNER_KEY, signer, task_params.bounty, chain[-1].timestamp + 3600)
    with brownie.reverts(f"ERC20InsufficientAllowance: {registry.address.lower()}, 0, {task_params.bounty}"):
        front.createTaskWithPermit(task_params.as_tuple(), permit, {"from": outsider})
    assert token.nonces(signer) == 0
    assert token.balanceOf(signer) == 100_000 * TOKEN
