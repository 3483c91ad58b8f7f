"""EIP-2612: a valid permit sets the allowance and consumes the owner's nonce."""

from brownie import chain

from tests.token.conftest import OWNER_KEY

TOKEN = 10**18


def test_domain_separator_matches_signed_domain(token, owner, spender, permit_message):
    # The message body is empty of meaning here: only the domain hash is compared.
    msg = permit_message(owner, spender, 0, 0, 0)
    assert bytes(token.DOMAIN_SEPARATOR()) == msg.header


def test_nonce_starts_at_zero(token, owner):
    assert token.nonces(owner) == 0


def test_permit_sets_allowance(token, owner, spender, outsider, sign_permit):
    deadline = chain[-1].timestamp + 3600
    v, r, s = sign_permit(OWNER_KEY, owner, spender, 42 * TOKEN, 0, deadline)
    # Anyone may submit the permit; the signature alone authorises it.
    tx = token.permit(owner, spender, 42 * TOKEN, deadline, v, r, s, {"from": outsider})
    assert token.allowance(owner, spender) == 42 * TOKEN
    assert dict(tx.events["Approval"]) == {"owner": owner.address, "spender": spender.address, "value": 42 * TOKEN}


def test_permit_bumps_nonce(token, owner, spender, sign_permit):
    deadline = chain[-1].timestamp + 3600
    for nonce in range(3):
        v, r, s = sign_permit(OWNER_KEY, owner, spender, nonce + 1, nonce, deadline)
        token.permit(owner, spender, nonce + 1, deadline, v, r, s, {"from": spender})
        assert token.nonces(owner) == nonce + 1
    assert token.allowance(owner, spender) == 3


def test_permit_allowance_lets_spender_pull(token, admin, owner, spender, sign_permit):
    token.transfer(owner, 100 * TOKEN, {"from": admin})
    deadline = chain[-1].timestamp + 3600
    v, r, s = sign_permit(OWNER_KEY, owner, spender, 60 * TOKEN, 0, deadline)
    token.permit(owner, spender, 60 * TOKEN, deadline, v, r, s, {"from": spender})
    token.transferFrom(owner, spender, 60 * TOKEN, {"from": spender})
    assert token.balanceOf(owner) == 40 * TOKEN
    assert token.allowance(owner, spender) == 0

