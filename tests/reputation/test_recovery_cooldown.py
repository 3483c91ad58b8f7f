"""The recovery cooldown doubles with every recovery and stops doubling after 8."""

import brownie
from brownie import chain

from tests.reputation.conftest import HOUR, record_of
from workers.protocol import Outcome


def fall_and_recover(reputation, report, node):
    """One cycle: a penalty below the threshold, then the wait, then recover. Returns the wait."""
    penalty = report(node, Outcome.REJECTED).timestamp
    wait = reputation.recoveryAvailableAt(node) - penalty
    chain.sleep(wait)
    chain.mine()
    reputation.recover({"from": node})
    return wait


def test_cooldown_doubles_per_recovery(reputation, report, node, admin):
    reputation.setRecoveryCooldown(HOUR, {"from": admin})
    waits = [fall_and_recover(reputation, report, node) for _ in range(4)]
    assert waits == [HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR]
    assert record_of(reputation, node)[2] == 4


def test_cooldown_stops_doubling_after_eight(reputation, report, node, admin):
    reputation.setRecoveryCooldown(HOUR, {"from": admin})
    waits = [fall_and_recover(reputation, report, node) for _ in range(10)]
    assert waits == [HOUR << i for i in range(8)] + [256 * HOUR, 256 * HOUR]
    assert record_of(reputation, node)[2] == 10


def test_doubled_cooldown_is_enforced(reputation, report, node, admin):
    reputation.setRecoveryCooldown(HOUR, {"from": admin})
    fall_and_recover(reputation, report, node)
    penalty = report(node, Outcome.REJECTED).timestamp
    chain.sleep(HOUR + 60)  # enough for the base cooldown, not for the doubled one
    chain.mine()
    with brownie.reverts(f"RecoveryNotReady: {node.address.lower()}, {penalty + 2 * HOUR}"):
        reputation.recover({"from": node})


def test_cooldown_change_applies_to_pending_recovery(reputation, report, node, admin):
    penalty = report(node, Outcome.REJECTED).timestamp
    reputation.setRecoveryCooldown(2 * HOUR, {"from": admin})
    assert reputation.recoveryAvailableAt(node) == penalty + 2 * HOUR
