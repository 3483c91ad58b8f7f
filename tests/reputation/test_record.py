"""record(): each outcome moves the score by its delta, emits the change, and stamps penalties."""

import brownie
import pytest

from tests.reputation.conftest import record_of
from workers.protocol import Outcome


@pytest.mark.parametrize(
    "outcome,new_score",
    [(Outcome.ACCEPTED, 72), (Outcome.REJECTED, 50), (Outcome.MISSED, 60), (Outcome.AGAINST_QUORUM, 55)],
)
def test_outcome_moves_score_by_its_delta(reputation, report, node, outcome, new_score):
    tx = report(node, outcome)
    assert reputation.scoreOf(node) == new_score
    assert dict(tx.events["ReputationChanged"]) == {
        "node": node.address, "oldScore": 70, "newScore": new_score, "outcome": outcome,
    }


@pytest.mark.parametrize("outcome", [Outcome.REJECTED, Outcome.MISSED, Outcome.AGAINST_QUORUM])
def test_penalty_stamps_last_penalty_at(reputation, report, node, outcome):
    tx = report(node, outcome)
    assert record_of(reputation, node)[1:] == [1, 0, tx.timestamp]


def test_acceptance_does_not_stamp_penalty(reputation, report, node):
    report(node, Outcome.ACCEPTED)
    assert record_of(reputation, node) == [72, 1, 0, 0]


def test_later_penalty_moves_the_stamp(reputation, report, node):
    report(node, Outcome.MISSED)
    tx = report(node, Outcome.MISSED)
    report(node, Outcome.ACCEPTED)
    assert record_of(reputation, node) == [52, 1, 0, tx.timestamp]


def test_recovered_is_not_reportable(reputation, reporter, node):
    with brownie.reverts(f"NotAReportableOutcome: {int(Outcome.RECOVERED)}"):
        reputation.record(node, Outcome.RECOVERED, {"from": reporter})
    assert record_of(reputation, node) == [70, 0, 0, 0]


def test_nodes_are_scored_separately(reputation, report, node, outsider):
    report(node, Outcome.REJECTED)
    assert reputation.scoreOf(outsider) == 70
