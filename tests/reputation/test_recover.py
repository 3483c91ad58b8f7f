"""recover(): below-threshold nodes return to exactly the threshold once their cooldown has passed."""

import brownie
from brownie import chain

from tests.reputation.conftest import COOLDOWN, record_of
from workers.protocol import Outcome


def test_node_at_threshold_cannot_recover(reputation, report, node):
    report(node, Outcome.MISSED)  # 60
    with brownie.reverts(f"NotBelowThreshold: {node.address.lower()}, 60, 60"):
        reputation.recover({"from": node})


def test_unseen_node_cannot_recover(reputation, outsider):
    with brownie.reverts(f"NotBelowThreshold: {outsider.address.lower()}, 70, 60"):
        reputation.recover({"from": outsider})


def test_recover_before_cooldown_reverts_with_available_at(reputation, report, node):
    penalty = report(node, Outcome.REJECTED).timestamp  # 50
    available = penalty + COOLDOWN
    assert reputation.recoveryAvailableAt(node) == available
    chain.sleep(COOLDOWN - 120)
    chain.mine()
    with brownie.reverts(f"RecoveryNotReady: {node.address.lower()}, {available}"):
        reputation.recover({"from": node})


def test_recover_restores_exactly_the_threshold(reputation, report, node):
    report(node, Outcome.REJECTED, times=3)  # 10
    chain.sleep(COOLDOWN)
    chain.mine()
    tx = reputation.recover({"from": node})
    assert reputation.scoreOf(node) == 60
    assert reputation.isEligible(node)
    assert reputation.recoveryAvailableAt(node) == 0
    assert dict(tx.events["ReputationChanged"]) == {
        "node": node.address, "oldScore": 10, "newScore": 60, "outcome": Outcome.RECOVERED,
    }


def test_recover_counts_and_keeps_penalty_stamp(reputation, report, node):
    penalty = report(node, Outcome.REJECTED).timestamp
    chain.sleep(COOLDOWN)
    chain.mine()
    reputation.recover({"from": node})
    assert record_of(reputation, node) == [60, 1, 1, penalty]


def test_recovery_restores_current_threshold(reputation, report, node, admin):
    report(node, Outcome.REJECTED, times=2)  # 30
    reputation.setThreshold(45, {"from": admin})
    chain.sleep(COOLDOWN)
    chain.mine()
    reputation.recover({"from": node})
    assert reputation.scoreOf(node) == 45


def test_new_penalty_restarts_the_wait(reputation, report, node):
    report(node, Outcome.REJECTED)
    chain.sleep(COOLDOWN - 3600)
    chain.mine()
    later = report(node, Outcome.MISSED).timestamp  # 40
    chain.sleep(3600)
    chain.mine()
    with brownie.reverts(f"RecoveryNotReady: {node.address.lower()}, {later + COOLDOWN}"):
        reputation.recover({"from": node})
