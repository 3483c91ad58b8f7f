"""The pure decisions of workers/node/dispute_handlers.py: how a juror votes from its own
judgement, and when a node releases its held pay."""
import pytest

from workers.node.dispute_handlers import PENDING_RECHECK_S, release_due_in, vote_for
from workers.protocol import Verdict


@pytest.mark.parametrize("disputed, accepted, uphold", [
    (Verdict.ACCEPTED, True, False),   # the juror also finds the work good: the verdict stands
    (Verdict.ACCEPTED, False, True),   # bad work was accepted: uphold
    (Verdict.REJECTED, False, False),  # the juror also finds it bad: the verdict stands
    (Verdict.REJECTED, True, True),    # good work was rejected: uphold
])
def test_a_juror_upholds_exactly_when_its_judgement_differs(disputed, accepted, uphold):
    assert vote_for(disputed, accepted) is uphold


@pytest.mark.parametrize("verdict", [Verdict.NONE, Verdict.INCONCLUSIVE])
def test_undisputable_verdicts_are_refused(verdict):
    with pytest.raises(ValueError, match="only Accepted and Rejected"):
        vote_for(verdict, True)


def test_nothing_held_is_done():
    assert release_due_in(window_end=100, now=50, open_disputes=1, held=0) is None


def test_within_the_window_wait_until_just_past_its_end():
    assert release_due_in(window_end=100, now=40, open_disputes=0, held=7) == 61
    assert release_due_in(window_end=100, now=100, open_disputes=0, held=7) == 1  # the end is inclusive


def test_an_open_dispute_of_the_round_defers_the_release():
    assert release_due_in(window_end=100, now=101, open_disputes=2, held=7) == PENDING_RECHECK_S


def test_after_the_window_with_no_open_dispute_release_now():
    assert release_due_in(window_end=100, now=101, open_disputes=0, held=7) == 0
