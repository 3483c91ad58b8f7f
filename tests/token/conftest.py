"""Token fixtures: an owner whose private key we hold, and an EIP-2612 permit signer."""

import pytest
from brownie import accounts, chain
from eth_account import Account
from eth_account.messages import encode_typed_data

from workers import protocol

OWNER_KEY = "0x" + "a1" * 32
STRANGER_KEY = "0x" + "b2" * 32


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
        data = protocol.permit_typed_data(token.address, chain.id, str(owner), str(spender), value, nonce, deadline)
        return encode_typed_data(full_message=data)

    return _message


@pytest.fixture
def sign_permit(permit_message):
    """Signs a permit with `key`; returns (v, r, s) as RLToken.permit takes them."""

    def _sign(key, owner, spender, value, nonce, deadline):
        signed = Account.sign_message(permit_message(owner, spender, value, nonce, deadline), key)
        return signed.v, signed.r.to_bytes(32, "big"), signed.s.to_bytes(32, "big")

    return _sign
