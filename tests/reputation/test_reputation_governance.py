"""setThreshold/setDelta/setRecoveryCooldown: GOVERNOR_ROLE only, bounded, each change emitted."""

import brownie
import pytest

from tests.reputation.conftest import DAY, HOUR, unauthorized
from workers.protocol import Outcome


def test_set_threshold_changes_eligibility(reputation, report, node, admin):
    report(node, Outcome.MISSED)  # 60
    tx = reputation.setThreshold(61, {"from": admin})
    assert reputation.threshold() == 61
    assert dict(tx.events["ThresholdSet"]) == {"threshold": 61}
    assert not reputation.isEligible(node)
    reputation.setThreshold(100, {"from": admin})
    reputation.setThreshold(1, {"from": admin})
    assert reputation.isEligible(node)


@pytest.mark.parametrize("value", [0, 101])
def test_threshold_out_of_bounds_reverts(reputation, admin, value):
    with brownie.reverts(f"ThresholdOutOfBounds: {value}"):
        reputation.setThreshold(value, {"from": admin})


def test_set_delta_changes_next_record(reputation, report, node, admin):
    tx = reputation.setDelta(Outcome.MISSED, 50, {"from": admin})
    assert dict(tx.events["DeltaSet"]) == {"outcome": Outcome.MISSED, "delta": 50}
    report(node, Outcome.MISSED)
    assert reputation.scoreOf(node) == 20
    reputation.setDelta(Outcome.ACCEPTED, 0, {"from": admin})  # a zero reward is allowed
    report(node, Outcome.ACCEPTED)
    assert reputation.scoreOf(node) == 20


@pytest.mark.parametrize(
    "outcome,value",
    [(Outcome.ACCEPTED, 51), (Outcome.REJECTED, 51), (Outcome.REJECTED, 0), (Outcome.MISSED, 0),
     (Outcome.AGAINST_QUORUM, 0), (Outcome.RECOVERED, 5)],
)
def test_delta_out_of_bounds_reverts(reputation, admin, outcome, value):
    with brownie.reverts(f"DeltaOutOfBounds: {int(outcome)}, {value}"):
        reputation.setDelta(outcome, value, {"from": admin})


def test_set_recovery_cooldown_bounds_inclusive(reputation, report, node, admin):
    tx = reputation.setRecoveryCooldown(HOUR, {"from": admin})
    assert dict(tx.events["RecoveryCooldownSet"]) == {"cooldown": HOUR}
    reputation.setRecoveryCooldown(90 * DAY, {"from": admin})
    penalty = report(node, Outcome.REJECTED).timestamp
    assert reputation.recoveryAvailableAt(node) == penalty + 90 * DAY


@pytest.mark.parametrize("value", [0, HOUR - 1, 90 * DAY + 1])
def test_cooldown_out_of_bounds_reverts(reputation, admin, value):
    with brownie.reverts(f"CooldownOutOfBounds: {value}"):
        reputation.setRecoveryCooldown(value, {"from": admin})


@pytest.mark.parametrize("caller_name", ["outsider", "reporter"])
def test_only_governor_sets_policy(request, reputation, caller_name):
    caller = request.getfixturevalue(caller_name)
    role = reputation.GOVERNOR_ROLE()
    with brownie.reverts(unauthorized(caller, role)):
        reputation.setThreshold(50, {"from": caller})
    with brownie.reverts(unauthorized(caller, role)):
        reputation.setDelta(Outcome.MISSED, 5, {"from": caller})
    with brownie.reverts(unauthorized(caller, role)):
        reputation.setRecoveryCooldown(HOUR, {"from": caller})
