"""RewardVault fixtures: an actor holding ESCROW_ROLE, a deposit helper and the solvency check."""

import pytest
from brownie import accounts

TOKEN = 10**18
ZERO = "0x0000000000000000000000000000000000000000"


@pytest.fixture(scope="module")
def escrow(vault, admin):
    """Stands in for the TaskRegistry: may record deposits, credit and refund."""
    actor = accounts[10]
    vault.grantRole(vault.ESCROW_ROLE(), actor, {"from": admin})
    return actor


@pytest.fixture(scope="module")
def earner():
    return accounts[11]


@pytest.fixture
def deposit(token, vault, escrow, admin):
    """Sends `amount` to the vault and records it as task `task_id`'s escrow; returns the tx."""

    def _deposit(task_id, amount):
        token.transfer(vault, amount, {"from": admin})
        return vault.recordDeposit(task_id, amount, {"from": escrow})

    return _deposit


def assert_books(token, vault):
    """The vault holds exactly what it owes: escrow plus claimable balances."""
    assert token.balanceOf(vault) == vault.totalEscrow() + vault.totalClaimable()


def unauthorized(account, role) -> str:
    """OpenZeppelin's AccessControlUnauthorizedAccount as brownie renders it."""
    return f"AccessControlUnauthorizedAccount: {str(account).lower()}, {bytes(role)}"
