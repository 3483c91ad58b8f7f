"""createTaskWithSig: anyone relays a requester's EIP-712 CreateTask signature; the signer is the
requester, pays the bounty and uses up one nonce. Python's digest equals the contract's."""

from brownie import chain
from eth_account.messages import encode_typed_data
from eth_utils import keccak

from tests.registry.creation.conftest import SIGNER_KEY
from workers.protocol import NO_PERMIT, create_task_typed_data, sign_create_task


def _sign(front, signer, params, nonce, deadline):
    return sign_create_task(SIGNER_KEY, params, signer.address, nonce, deadline, chain.id, front.address)


def test_python_digest_matches_contract(registry, signer, task_params, front):
    deadline = chain[-1].timestamp + 3600
    typed = create_task_typed_data(task_params, signer.address, 7, deadline, chain.id, front.address)
    message = encode_typed_data(full_message=typed)
    expected = keccak(b"\x19" + message.version + message.header + message.body)
    assert bytes(front.createTaskDigest(task_params.as_tuple(), signer, 7, deadline)) == expected


def test_relayed_task_belongs_to_signer(registry, token, vault, signer, relayer, task_params, front, state):
    token.approve(registry, task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    signature = _sign(front, signer, task_params, 0, deadline)
    relayer_balance = token.balanceOf(relayer)
    tx = front.createTaskWithSig(task_params.as_tuple(), signer, deadline, signature, NO_PERMIT,
                                    {"from": relayer})
    task_id = tx.return_value
    assert state.taskOf(task_id)["requester"] == signer
    assert tx.events["TaskCreated"]["requester"] == signer
    assert vault.escrowOf(task_id) == task_params.bounty
    assert token.balanceOf(relayer) == relayer_balance


def test_nonce_increments_per_signed_task(registry, token, signer, relayer, task_params, front, state):
    token.approve(registry, 3 * task_params.bounty, {"from": signer})
    deadline = chain[-1].timestamp + 3600
    for nonce in range(3):
        assert front.nonces(signer) == nonce
        signature = _sign(front, signer, task_params, nonce, deadline)
        front.createTaskWithSig(task_params.as_tuple(), signer, deadline, signature, NO_PERMIT,
                                   {"from": relayer})
    assert front.nonces(signer) == 3
    assert state.taskCount() == 3


def test_signature_with_permit_needs_no_transaction_from_signer(
    registry, token, vault, signer, relayer, task_params, sign_permit, front
):
    deadline = chain[-1].timestamp + 3600
    permit = sign_permit(SIGNER_KEY, signer, task_params.bounty, deadline)
    signature = _sign(front, signer, task_params, 0, deadline)
    nonce_before = signer.nonce
    tx = front.createTaskWithSig(task_params.as_tuple(), signer, deadline, signature, permit,
                                    {"from": relayer})
    assert vault.escrowOf(tx.return_value) == task_params.bounty
    assert signer.nonce == nonce_before
    assert token.nonces(signer) == 1
