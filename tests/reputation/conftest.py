"""Reputation fixtures: an actor holding REPORTER_ROLE and a node it reports on."""

import pytest
from brownie import accounts

HOUR = 3600
DAY = 24 * HOUR
COOLDOWN = 7 * DAY


@pytest.fixture(scope="module")
def reporter(reputation, admin):
    """Stands in for the TaskRegistry: may record outcomes."""
    actor = accounts[10]
    reputation.grantRole(reputation.REPORTER_ROLE(), actor, {"from": admin})
    return actor


@pytest.fixture(scope="module")
def node():
    return accounts[11]


@pytest.fixture
def report(reputation, reporter):
    """Records `outcome` for `who` `times` times; returns the last tx."""

    def _report(who, outcome, times=1):
        tx = None
        for _ in range(times):
            tx = reputation.record(who, outcome, {"from": reporter})
        return tx

    return _report


def record_of(reputation, who) -> list:
    """[score, seen, recoveries, lastPenaltyAt]"""
    return [int(x) for x in reputation.recordOf(who)]


def unauthorized(account, role) -> str:
    """OpenZeppelin's AccessControlUnauthorizedAccount as brownie renders it."""
    return f"AccessControlUnauthorizedAccount: {str(account).lower()}, {bytes(role)}"
