"""Token fixtures: an owner whose private key we hold, and an EIP-2612 permit signer."""

import pytest
from brownie import accounts, chain
from eth_account import Account
from eth_account.messages import encode_typed_data

OWNER_KEY = "0x" + "a1" * 32
STRANGER_KEY = "0x" + "b2" * 32

PERMIT_TYPES = {
    "EIP712Domain": [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "Permit": [
        {"name": "owner", "type": "address"},
        {"name": "spender", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ],
}


@pytest.fixture(scope="module")
def owner():
    """A local account created from a known key, so tests can sign for it."""
    return accounts.add(OWNER_KEY)


@pytest.fixture(scope="module")
def spender():
    return accounts[10]


@pytest.fixture
def permit_message(token):
    """The encoded EIP-712 Permit message that RLToken verifies."""

    def _message(owner, spender, value, nonce, deadline):
        return encode_typed_data(
            full_message={
                "types": PERMIT_TYPES,
                "primaryType": "Permit",
                "domain": {
                    "name": "decentrl RL Token",
                    "version": "1",
                    "chainId": chain.id,
                    "verifyingContract": token.address,
                },
                "message": {
                    "owner": str(owner),
                    "spender": str(spender),
                    "value": value,
                    "nonce": nonce,
                    "deadline": deadline,
                },
            }
        )

    return _message


@pytest.fixture
def sign_permit(permit_message):
    """Signs a permit with `key`; returns (v, r, s) as RLToken.permit takes them."""

    def _sign(key, owner, spender, value, nonce, deadline):
        signed = Account.sign_message(permit_message(owner, spender, value, nonce, deadline), key)
        return signed.v, signed.r.to_bytes(32, "big"), signed.s.to_bytes(32, "big")

    return _sign
