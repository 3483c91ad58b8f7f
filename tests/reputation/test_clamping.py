"""Scores stay within 0..100: rewards stop at 100, penalties stop at 0."""

from workers.protocol import Outcome


def test_score_caps_at_one_hundred(reputation, report, node):
    report(node, Outcome.ACCEPTED, times=15)  # 70 + 30
    assert reputation.scoreOf(node) == 100
    tx = report(node, Outcome.ACCEPTED)
    assert reputation.scoreOf(node) == 100
    assert dict(tx.events["ReputationChanged"]) == {
        "node": node.address, "oldScore": 100, "newScore": 100, "outcome": Outcome.ACCEPTED,
    }


def test_partial_reward_below_cap_is_clamped(reputation, report, node):
    report(node, Outcome.ACCEPTED, times=14)  # 98
    tx = report(node, Outcome.ACCEPTED)
    assert tx.events["ReputationChanged"]["newScore"] == 100


def test_score_floors_at_zero(reputation, report, node):
    report(node, Outcome.REJECTED, times=3)  # 70 -> 10
    tx = report(node, Outcome.AGAINST_QUORUM)
    assert reputation.scoreOf(node) == 0
    assert dict(tx.events["ReputationChanged"]) == {
        "node": node.address, "oldScore": 10, "newScore": 0, "outcome": Outcome.AGAINST_QUORUM,
    }


def test_penalty_at_zero_stays_zero(reputation, report, node):
    report(node, Outcome.REJECTED, times=4)
    tx = report(node, Outcome.MISSED)
    assert reputation.scoreOf(node) == 0
    assert tx.events["ReputationChanged"]["oldScore"] == 0


def test_penalty_equal_to_score_reaches_zero(reputation, report, node):
    report(node, Outcome.REJECTED, times=2)  # 30
    report(node, Outcome.MISSED, times=3)
    assert reputation.scoreOf(node) == 0


def test_score_climbs_back_from_zero(reputation, report, node):
    report(node, Outcome.REJECTED, times=4)
    report(node, Outcome.ACCEPTED)
    assert reputation.scoreOf(node) == 2
    assert not reputation.isEligible(node)
