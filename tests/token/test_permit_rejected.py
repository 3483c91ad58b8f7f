"""EIP-2612: expired, foreign and replayed permits are refused with the exact error."""

import brownie
from brownie import chain
from eth_account import Account

from tests.token.conftest import OWNER_KEY, STRANGER_KEY


def test_expired_permit_reverts(token, owner, spender, sign_permit):
    deadline = chain[-1].timestamp + 10
    v, r, s = sign_permit(OWNER_KEY, owner, spender, 5, 0, deadline)
    chain.sleep(60)
    chain.mine()
    with brownie.reverts(f"ERC2612ExpiredSignature: {deadline}"):
        token.permit(owner, spender, 5, deadline, v, r, s, {"from": spender})
    assert token.nonces(owner) == 0
    assert token.allowance(owner, spender) == 0


def test_permit_signed_by_someone_else_reverts(token, owner, spender, sign_permit):
    stranger = Account.from_key(STRANGER_KEY).address
    deadline = chain[-1].timestamp + 3600
    v, r, s = sign_permit(STRANGER_KEY, owner, spender, 5, 0, deadline)
    with brownie.reverts(f"ERC2612InvalidSigner: {stranger.lower()}, {owner.address.lower()}"):
        token.permit(owner, spender, 5, deadline, v, r, s, {"from": spender})
    assert token.allowance(owner, spender) == 0


def test_permit_with_changed_value_reverts(token, owner, spender, sign_permit, permit_message):
    deadline = chain[-1].timestamp + 3600
    v, r, s = sign_permit(OWNER_KEY, owner, spender, 5, 0, deadline)
    # The contract recovers the signer of the message it rebuilds (value 6): some other address.
    signer = Account.recover_message(permit_message(owner, spender, 6, 0, deadline), vrs=(v, r, s))
    with brownie.reverts(f"ERC2612InvalidSigner: {signer.lower()}, {owner.address.lower()}"):
        token.permit(owner, spender, 6, deadline, v, r, s, {"from": spender})


def test_replayed_permit_reverts(token, owner, spender, sign_permit, permit_message):
    deadline = chain[-1].timestamp + 3600
    v, r, s = sign_permit(OWNER_KEY, owner, spender, 5, 0, deadline)
    token.permit(owner, spender, 5, deadline, v, r, s, {"from": spender})
    token.approve(spender, 0, {"from": owner})
    # The nonce is now 1, so the old signature recovers to an unrelated address.
    signer = Account.recover_message(permit_message(owner, spender, 5, 1, deadline), vrs=(v, r, s))
    assert signer != owner.address
    with brownie.reverts(f"ERC2612InvalidSigner: {signer.lower()}, {owner.address.lower()}"):
        token.permit(owner, spender, 5, deadline, v, r, s, {"from": spender})
    assert token.nonces(owner) == 1
    assert token.allowance(owner, spender) == 0
