"""createTaskWithSig refuses replayed, foreign-domain, expired, tampered and impostor signatures."""

from dataclasses import replace

import brownie
from brownie import chain
from eth_account import Account

from tests.registry.creation.conftest import SIGNER_KEY, STRANGER_KEY
from workers.protocol import NO_PERMIT, sign_create_task


def _relay(front, params, requester, deadline, signature, relayer):
    return front.createTaskWithSig(params.as_tuple(), requester, deadline, signature, NO_PERMIT,
                                      {"from": relayer})


def _refused(front, state, params, requester, deadline, signature, relayer):
    with brownie.reverts(f"InvalidSignature: {requester.address.lower()}"):
        _relay(front, params, requester, deadline, signature, relayer)
    assert front.nonces(requester) == 0
    assert state.taskCount() == 0


def test_replay_fails_because_nonce_moved(registry, token, signer, relayer, task_params, front, state):
    token.approve(registry, 2 * task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    sig = sign_create_task(SIGNER_KEY, task_params, signer.address, 0, deadline, chain.id, front.address)
    _relay(front, task_params, signer, deadline, sig, relayer)
    with brownie.reverts(f"InvalidSignature: {signer.address.lower()}"):
        _relay(front, task_params, signer, deadline, sig, relayer)
    assert front.nonces(signer) == 1
    assert state.taskCount() == 1


def test_other_chain_id_fails(registry, token, signer, relayer, task_params, front, state):
    token.approve(registry, task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    sig = sign_create_task(SIGNER_KEY, task_params, signer.address, 0, deadline, chain.id + 1, front.address)
    _refused(front, state, task_params, signer, deadline, sig, relayer)


def test_other_verifying_contract_fails(registry, token, vault, signer, relayer, task_params, front, state):
    token.approve(registry, task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    sig = sign_create_task(SIGNER_KEY, task_params, signer.address, 0, deadline, chain.id, vault.address)
    _refused(front, state, task_params, signer, deadline, sig, relayer)


def test_expired_signature_fails(registry, token, signer, relayer, task_params, front):
    token.approve(registry, task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 10
    sig = sign_create_task(SIGNER_KEY, task_params, signer.address, 0, deadline, chain.id, front.address)
    chain.sleep(60)
    chain.mine()
    with brownie.reverts(f"SignatureExpired: {deadline}"):
        _relay(front, task_params, signer, deadline, sig, relayer)
    assert front.nonces(signer) == 0


def test_tampered_field_fails(registry, token, signer, relayer, task_params, front, state):
    token.approve(registry, 10 * task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    sig = sign_create_task(SIGNER_KEY, task_params, signer.address, 0, deadline, chain.id, front.address)
    for tampered in [replace(task_params, bounty=task_params.bounty * 2), replace(task_params, num_rounds=6),
                     replace(task_params, spec_cid=task_params.spec_cid + "x"),
                     replace(task_params, attest_window=601)]:
        _refused(front, state, tampered, signer, deadline, sig, relayer)
    _refused(front, state, task_params, signer, deadline + 1, sig, relayer)


def test_signature_by_non_requester_fails(registry, token, signer, relayer, task_params, front, state):
    # The victim (signer) has an allowance; a stranger's signature must not spend it.
    token.approve(registry, task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    sig = sign_create_task(STRANGER_KEY, task_params, signer.address, 0, deadline, chain.id, front.address)
    assert Account.from_key(STRANGER_KEY).address != signer.address
    _refused(front, state, task_params, signer, deadline, sig, relayer)
    assert token.allowance(signer, registry) == task_params.bounty


def test_zero_requester_cannot_be_impersonated(registry, relayer, task_params, front, state):
    zero = "0x" + "00" * 20
    deadline = chain[-1].timestamp + 3600
    for signature in [b"", b"\x00" * 65, b"\x01" * 65]:
        with brownie.reverts(f"InvalidSignature: {zero}"):
            front.createTaskWithSig(task_params.as_tuple(), zero, deadline, signature, NO_PERMIT,
                                       {"from": relayer})
    assert state.taskCount() == 0
