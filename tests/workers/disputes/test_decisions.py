"""The pure decisions of workers/node/handlers/dispute_handlers.py: how a juror votes from its own
judgement, when a dispute can be settled, and when a node releases its held pay; a juror's hidden
vote as the contract checks it (tests/forge/disputes/DisputeVote.t.sol checks the contract's side)."""
from types import SimpleNamespace

import pytest
from eth_abi import encode
from eth_utils import keccak

from workers.chain.errors import DecodedError, TxReverted
from workers.node.handlers import dispute_handlers
from workers.node.handlers.dispute_handlers import (
    PAUSED_RECHECK_S,
    PENDING_RECHECK_S,
    can_settle,
    release_due_in,
    vote_for,
)
from workers.protocol import Verdict, vote_commitment


@pytest.mark.parametrize("disputed, accepted, uphold", [
    (Verdict.ACCEPTED, True, False),   # the juror also finds the work good: the verdict stands
    (Verdict.ACCEPTED, False, True),   # bad work was accepted: uphold
    (Verdict.REJECTED, False, False),  # the juror also finds it bad: the verdict stands
    (Verdict.REJECTED, True, True),    # good work was rejected: uphold
    (Verdict.INCONCLUSIVE, False, True),   # the dispute says the work is bad, and it is: uphold
    (Verdict.INCONCLUSIVE, True, False),   # the juror finds it good: dismiss
])
def test_a_juror_upholds_exactly_when_its_judgement_agrees_with_the_dispute(disputed, accepted, uphold):
    assert vote_for(disputed, accepted) is uphold


def test_a_submission_without_a_verdict_is_refused():
    with pytest.raises(ValueError, match="only Accepted, Rejected and Inconclusive"):
        vote_for(Verdict.NONE, True)


def test_nothing_held_is_done():
    assert release_due_in(window_end=100, now=50, open_disputes=1, held=0) is None


def test_within_the_window_wait_until_just_past_its_end():
    assert release_due_in(window_end=100, now=40, open_disputes=0, held=7) == 61
    assert release_due_in(window_end=100, now=100, open_disputes=0, held=7) == 1  # the end is inclusive


def test_an_open_dispute_of_the_round_defers_the_release():
    assert release_due_in(window_end=100, now=101, open_disputes=2, held=7) == PENDING_RECHECK_S


def test_after_the_window_with_no_open_dispute_release_now():
    assert release_due_in(window_end=100, now=101, open_disputes=0, held=7) == 0


def dispute(ups, downs, commits, jurors=5, vote_deadline=100, reveal_deadline=200):
    return SimpleNamespace(upholdVotes=ups, dismissVotes=downs, commits=commits, jurorCount=jurors,
                           voteDeadline=vote_deadline, revealDeadline=reveal_deadline)


@pytest.mark.parametrize("d, now, settles", [
    (dispute(3, 2, 5), 50, True),      # every juror revealed
    (dispute(3, 1, 5), 50, False),     # one committed vote still shut
    (dispute(3, 0, 3), 100, False),    # the commit deadline is inclusive: others may still commit
    (dispute(3, 0, 3), 101, True),     # commits closed, every committed vote open
    (dispute(2, 0, 3), 150, False),    # one committed vote shut, reveals open
    (dispute(2, 0, 3), 201, True),     # reveals closed
    (dispute(0, 0, 0), 101, True),     # nobody committed: void at once after the commits
])
def test_settle_when_the_contract_allows(d, now, settles):
    assert can_settle(d, now) is settles


def test_vote_commitment_is_the_contracts_hash():
    juror, salt = "0x" + "ab" * 20, b"\x07" * 32
    expected = keccak(encode(["uint256", "address", "bool", "bytes32"], [9, juror, True, salt]))
    assert vote_commitment(9, juror, True, salt) == expected
    assert vote_commitment(9, juror, False, salt) != expected  # the vote is bound
    assert vote_commitment(9, "0x" + "cd" * 20, True, salt) != expected  # and so is the juror


def revealing_juror(monkeypatch, refusal: str):
    """dispute_handlers._reveal for a seated juror that committed, its send refused by `refusal`;
    returns the checks it scheduled."""
    juror = SimpleNamespace(voted=False, commitment=b"\x01" * 32)
    monkeypatch.setattr(dispute_handlers, "_voting", lambda ctx, dispute_id: SimpleNamespace(jurorCount=3))
    monkeypatch.setattr(dispute_handlers, "my_seat", lambda ctx, dispute_id, jurors: (0, juror))
    monkeypatch.setattr(dispute_handlers, "_disputes", lambda ctx: SimpleNamespace(
        revealVote=lambda *args: SimpleNamespace(fn_name="revealVote", args=args)))

    def refused(ctx, call, done=()):
        raise TxReverted(DecodedError(refusal))

    monkeypatch.setattr(dispute_handlers, "send", refused)
    scheduled = []
    monkeypatch.setattr(dispute_handlers, "schedule_check",
                        lambda ctx, name, key, args, countdown=None: scheduled.append((name, args, countdown)))
    ctx = SimpleNamespace(secrets=SimpleNamespace(juror_vote=lambda dispute_id: (True, b"\x02" * 32)))
    return ctx, scheduled


def test_a_reveal_refused_by_a_pause_is_tried_again(monkeypatch):
    ctx, scheduled = revealing_juror(monkeypatch, "DisputesPaused")
    dispute_handlers._reveal(ctx, 7)  # a shut vote is slashed: no giving up
    assert [(name, args["disputeId"], countdown) for name, args, countdown in scheduled] == [
        ("RevealDue", 7, PAUSED_RECHECK_S)]


def test_another_refusal_of_a_reveal_propagates(monkeypatch):
    ctx, scheduled = revealing_juror(monkeypatch, "VoteMismatch")
    with pytest.raises(TxReverted, match="VoteMismatch"):
        dispute_handlers._reveal(ctx, 7)
    assert scheduled == []
