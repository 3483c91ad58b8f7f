"""Deadlines of sealed votes (SPECIFICATION.md 5.6): a validator that does not commit by the Attest
deadline is Missed (unlocked, -10, no slash); one that committed and does not open its vote by the
AttestReveal deadline is Withheld (slashed slashBps of its locked stake, -20, vacated), so nobody
can commit and then decide after seeing the others' votes. The round is decided by the opened votes."""

from tests.registry.rounds.driver import events_of
from workers.protocol import Outcome, Phase, Role, Verdict


def test_validator_not_committing_is_missed(registry, stakes, reputation, round_driver, state):
    round_driver.work()
    silent, *voters = round_driver.validators()
    round_driver.seal_votes(validators=voters)
    tx = round_driver.expire()
    assert [(e["node"], e["reason"]) for e in events_of(tx, "SlotVacated")] == [(silent.address, Outcome.MISSED)]
    assert "Slashed" not in tx.events
    assert reputation.scoreOf(silent) == 60
    assert stakes.stakeOf(silent, Role.VALIDATOR)["locked"] == 0
    assert [(e["phase"], e["round"]) for e in events_of(tx, "PhaseStarted")] == [(Phase.ATTEST_REVEAL, 0)]
    assert state.taskOf(round_driver.task_id)["pending"] == 2  # the two that committed


def test_committed_vote_not_opened_is_withheld_and_slashed(registry, stakes, reputation, round_driver, config,
                                                           state):
    round_driver.work()
    withholder, *voters = round_driver.validators()
    round_driver.seal_votes()
    round_driver.open_votes(validators=voters)
    locked = stakes.stakeOf(withholder, Role.VALIDATOR)["locked"]
    tx = round_driver.expire()
    assert [(e["node"], e["reason"]) for e in events_of(tx, "SlotVacated")] == [
        (withholder.address, Outcome.WITHHELD)]
    assert [(e["node"], e["amount"]) for e in events_of(tx, "Slashed")] == [
        (withholder.address, locked * config.slashBps() // 10_000)]
    assert reputation.scoreOf(withholder) == 50
    assert state.membershipOf(round_driver.task_id, withholder)["assigned"] is False
    # The two opened votes are a quorum of three: everything is accepted and the round moves on.
    assert {e["verdict"] for e in events_of(tx, "VerdictReached")} == {Verdict.ACCEPTED}
    assert state.taskOf(round_driver.task_id)["round"] == 1


def test_round_ends_when_every_committed_vote_is_opened(registry, round_driver, state):
    round_driver.work()
    round_driver.seal_votes()
    txs = round_driver.open_votes()
    assert "RoundFinalized" not in txs[1].events
    assert txs[2].events["RoundFinalized"]["round"] == 0
    assert "SlotVacated" not in txs[2].events
