"""While the registry is paused every state-changing entry point reverts EnforcedPause, except
cancelTask: a requester can always get the bounty back before the rounds start."""

import brownie
import pytest
from brownie import accounts, chain

from workers.protocol import NO_PERMIT, Role, Status, sign_create_task

TOKEN = 10**18


@pytest.fixture
def paused(registry, admin):
    def _pause():
        registry.pause({"from": admin})

    return _pause


def test_creation_paused(registry, token, requester, task_params, paused, front, state):
    token.approve(registry, task_params.bounty, {"from": requester})
    # A valid signed request: the front checks it, then the paused registry refuses the task.
    signer = accounts.add("0x" + "5e" * 32)
    signature = sign_create_task(signer.private_key, task_params, signer.address, 0, 2**64, chain.id, front.address)
    paused()
    for create in [
        lambda: registry.createTask(task_params.as_tuple(), {"from": requester}),
        lambda: front.createTaskWithPermit(task_params.as_tuple(), NO_PERMIT, {"from": requester}),
        lambda: front.createTaskWithSig(task_params.as_tuple(), signer, 2**64, signature, NO_PERMIT,
                                        {"from": requester}),
    ]:
        with brownie.reverts("EnforcedPause: "):
            create()
    assert state.taskCount() == 0


def test_claim_paused(registry, samplers, create_task, paused):
    task_id = create_task()
    paused()
    with brownie.reverts("EnforcedPause: "):
        registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})


def test_draw_paused(registry, samplers, trainer, outsider, create_task, paused, state):
    task_id = create_task()
    for s in samplers:
        registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    chain.mine(2)
    paused()
    with brownie.reverts("EnforcedPause: "):
        registry.drawValidators(task_id, {"from": outsider})
    assert state.taskOf(task_id)["status"] == Status.DRAWING


def test_round_actions_paused(registry, samplers, validators, outsider, active_task, paused):
    paused()
    with brownie.reverts("EnforcedPause: "):
        registry.commit(active_task, b"\x01" * 32, {"from": samplers[0]})
    with brownie.reverts("EnforcedPause: "):
        registry.reveal(active_task, b"\x01" * 32, "bafkrei", b"\x02" * 32, {"from": samplers[0]})
    with brownie.reverts("EnforcedPause: "):
        registry.commitAttestation(active_task, 0, b"\x01" * 32, {"from": validators[0]})
    with brownie.reverts("EnforcedPause: "):
        registry.attest(active_task, 0, 1, b"\x02" * 32, {"from": validators[0]})
    with brownie.reverts("EnforcedPause: "):
        registry.openDraw(active_task, 0, b"\x03" * 32, {"from": samplers[0]})
    chain.sleep(3600)
    chain.mine()
    with brownie.reverts("EnforcedPause: "):
        registry.advance(active_task, {"from": outsider})


def test_cancel_works_while_paused(registry, vault, requester, samplers, create_task, paused):
    task_id = create_task()
    registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]})
    paused()
    tx = registry.cancelTask(task_id, {"from": requester})
    assert tx.events["TaskSettled"]["status"] == Status.CANCELLED
    assert vault.claimableOf(requester) == 10_000 * TOKEN
    vault.withdraw(requester, 10_000 * TOKEN, {"from": requester})  # the vault is not paused
    assert vault.claimableOf(requester) == 0


def test_everything_resumes_after_unpause(registry, admin, samplers, create_task, paused):
    task_id = create_task()
    paused()
    registry.unpause({"from": admin})
    assert registry.claimSlot(task_id, Role.SAMPLER, {"from": samplers[0]}).return_value == 0
