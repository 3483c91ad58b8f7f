"""StakeManager fixtures: an actor holding PROTOCOL_ROLE, funded nodes and a stake helper."""

import pytest
from brownie import accounts

TOKEN = 10**18
DAY = 24 * 3600


@pytest.fixture(scope="module")
def protocol(stakes, admin):
    """Stands in for the TaskRegistry: may lock, unlock and slash."""
    actor = accounts[10]
    stakes.grantRole(stakes.PROTOCOL_ROLE(), actor, {"from": admin})
    return actor


@pytest.fixture(scope="module")
def node(funded, samplers):
    return samplers[0]


@pytest.fixture(scope="module")
def validator(funded, validators):
    return validators[0]


@pytest.fixture
def stake(funded, token, stakes):
    """Approves and stakes `amount` for `who` in `role`; returns the tx."""

    def _stake(who, role, amount):
        token.approve(stakes, amount, {"from": who})
        return stakes.stake(role, amount, {"from": who})

    return _stake


def unauthorized(account, role) -> str:
    """OpenZeppelin's AccessControlUnauthorizedAccount as brownie renders it."""
    return f"AccessControlUnauthorizedAccount: {str(account).lower()}, {bytes(role)}"


def stake_info(stakes, who, role) -> list:
    """[staked, locked, unbonding, unbondingReadyAt]"""
    return [int(x) for x in stakes.stakeOf(who, role)]
