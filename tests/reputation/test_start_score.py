"""An unseen node starts at 70 (eligible), and the default policy is threshold 60 with +2/-20/-10/-15."""

import brownie
from brownie import Reputation

from tests.reputation.conftest import COOLDOWN, record_of
from workers.protocol import Outcome


def test_unseen_node_scores_seventy(reputation, node):
    assert reputation.scoreOf(node) == 70 == reputation.START_SCORE()


def test_unseen_record_shows_start_score_and_not_seen(reputation, node):
    assert record_of(reputation, node) == [70, 0, 0, 0]


def test_unseen_node_is_eligible_and_needs_no_recovery(reputation, node):
    assert reputation.isEligible(node)
    assert reputation.recoveryAvailableAt(node) == 0


def test_default_threshold_is_sixty(reputation):
    assert reputation.threshold() == 60


def test_default_deltas(reputation):
    assert [reputation.delta(o) for o in Outcome] == [2, 20, 10, 15, 0, 20]


def test_constructor_emits_policy(admin):
    rep = Reputation.deploy(admin, {"from": admin})
    ev = rep.tx.events
    assert dict(ev["ThresholdSet"]) == {"threshold": 60}
    assert [dict(e) for e in ev["DeltaSet"]] == [
        {"outcome": Outcome.ACCEPTED, "delta": 2},
        {"outcome": Outcome.REJECTED, "delta": 20},
        {"outcome": Outcome.MISSED, "delta": 10},
        {"outcome": Outcome.AGAINST_QUORUM, "delta": 15},
        {"outcome": Outcome.WITHHELD, "delta": 20},
    ]
    assert dict(ev["RecoveryCooldownSet"]) == {"cooldown": COOLDOWN}
    assert rep.hasRole(rep.GOVERNOR_ROLE(), admin)
    assert not rep.hasRole(rep.REPORTER_ROLE(), admin)


def test_constructor_rejects_zero_admin(admin):
    with brownie.reverts("ZeroAddress: "):
        Reputation.deploy("0x0000000000000000000000000000000000000000", {"from": admin})
