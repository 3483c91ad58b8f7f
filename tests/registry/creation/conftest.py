"""Creation fixtures: a requester whose key we hold (EIP-2612 permits, EIP-712 task signatures)."""

import pytest
from brownie import accounts, chain
from eth_account import Account
from eth_account.messages import encode_typed_data

TOKEN = 10**18
SIGNER_KEY = "0x" + "c3" * 32
STRANGER_KEY = "0x" + "d4" * 32

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
    """Signs an EIP-2612 permit of `value` for the registry; returns ITaskRegistry.Permit."""

    def _sign(key, owner, value, deadline, nonce=None):
        nonce = token.nonces(owner) if nonce is None else nonce
        message = encode_typed_data(
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
                    "spender": registry.address,
                    "value": value,
                    "nonce": nonce,
                    "deadline": deadline,
                },
            }
        )
        signed = Account.sign_message(message, key)
        return (deadline, signed.v, signed.r.to_bytes(32, "big"), signed.s.to_bytes(32, "big"))

    return _sign
