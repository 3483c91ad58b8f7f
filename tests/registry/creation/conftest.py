"""Creation fixtures: a requester whose key we hold (EIP-2612 permits, EIP-712 task signatures)."""

import pytest
from brownie import accounts, chain

from workers import protocol

TOKEN = 10**18
SIGNER_KEY = "0x" + "c3" * 32
STRANGER_KEY = "0x" + "d4" * 32


@pytest.fixture(scope="module")
def signer(funded, admin):
    """A requester created from a known key, holding 100k DRL and no allowance."""
    acct = accounts.add(SIGNER_KEY)
    funded.token.transfer(acct, 100_000 * TOKEN, {"from": admin})
    return acct


@pytest.fixture(scope="module")
def relayer():
    return accounts[10]


@pytest.fixture
def sign_permit(token, registry):
    """Signs an EIP-2612 permit of `value` for the registry (its spender; TaskFront submits it);
    returns ITaskFront.Permit."""

    def _sign(key, owner, value, deadline, nonce=None):
        nonce = token.nonces(owner) if nonce is None else nonce
        return protocol.sign_permit(key, token.address, chain.id, str(owner), registry.address, value, nonce, deadline)

    return _sign
