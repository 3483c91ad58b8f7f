"""A round in which no sample is revealed (no sampler committed, or none revealed before the
SampleReveal deadline) has nothing to train on and nothing to attest (SPECIFICATION.md 5.4, 5.6):
the trainer is not expected in TrainCommit and the validators not in Attest, so neither is
penalised; the round ends in the same advance() without a new checkpoint and counts as idle."""

import brownie
import pytest

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Outcome, Phase, Role, Status


def _no_sample(round_driver, committed):
    """Round 0 without a revealed sample; returns the advance() that ended it."""
    if committed:
        round_driver.commit_samples()
    return round_driver.expire()


@pytest.mark.parametrize("committed", [False, True], ids=["none-committed", "none-revealed"])
def test_trainer_not_expected_and_not_penalised(registry, stakes, reputation, round_driver, samplers, trainer,
                                                committed, state):
    tx = _no_sample(round_driver, committed)
    reason = Outcome.WITHHELD if committed else Outcome.MISSED  # committed and never revealed: slashed
    assert [(e["node"], e["role"], e["reason"]) for e in events_of(tx, "SlotVacated")] == [
        (s.address, Role.SAMPLER, reason) for s in samplers]
    assert [e["node"] for e in events_of(tx, "ReputationChanged")] == [s.address for s in samplers]
    assert reputation.scoreOf(trainer) == 70
    assert state.slotOf(round_driver.task_id, Role.TRAINER, 0)["node"] == trainer.address
    assert stakes.stakeOf(trainer, Role.TRAINER)["locked"] == stakes.minStake(Role.TRAINER)
    with brownie.reverts(f"WrongPhase: {round_driver.task_id}, {Phase.SAMPLE_COMMIT}"):
        round_driver.commit_checkpoint()  # the round is over: nothing to train on


def test_round_ends_without_checkpoint_or_attestation(registry, reputation, round_driver, samplers, state):
    tx = _no_sample(round_driver, committed=True)
    assert [(e["round"], e["phase"]) for e in events_of(tx, "PhaseStarted")] == [
        (0, Phase.TRAIN_COMMIT), (0, Phase.TRAIN_REVEAL), (0, Phase.ATTEST), (0, Phase.ATTEST_REVEAL),
        (1, Phase.SAMPLE_COMMIT)]
    assert dict(tx.events["RoundFinalized"]) == {"taskId": round_driver.task_id, "round": 0,
                                                 "checkpointRoot": "0x" + "00" * 32, "checkpointCid": ""}
    for name in ("VerdictReached", "RewardEarned", "Attested"):
        assert name not in tx.events
    assert [e["node"] for e in events_of(tx, "Slashed")] == [s.address for s in samplers]  # withheld reveals
    t = state.taskOf(round_driver.task_id)
    assert (t["round"], t["phase"], t["revealedMask"], t["filledValidators"]) == (1, Phase.SAMPLE_COMMIT, 0, 3)
    for v in round_driver.validators():
        assert reputation.scoreOf(v) == 70


def test_round_without_sample_is_idle_and_keeps_the_checkpoint(registry, round_driver, trainer, state):
    round_driver.play_round()
    checkpoint = state.taskOf(round_driver.task_id)["checkpointRoot"]
    tx = _no_sample(round_driver, committed=False)  # round 1
    assert (tx.events["RoundFinalized"]["round"], tx.events["RoundFinalized"]["checkpointRoot"]) == (1, checkpoint)
    t = state.taskOf(round_driver.task_id)
    assert (t["round"], t["idleRounds"], t["checkpointRoot"]) == (2, 1, checkpoint)
    assert state.paidOf(round_driver.task_id)[Role.TRAINER] == 1_400 * TOKEN  # round 0 only


def test_two_rounds_without_sample_fail_the_task_with_full_refund(registry, vault, stakes, reputation,
                                                                  round_driver, requester, trainer, state):
    _no_sample(round_driver, committed=True)
    tx = round_driver.expire()  # round 1: nobody claimed the vacated sampler slots
    settled = tx.events["TaskSettled"]
    assert (settled["status"], [int(x) for x in settled["paidByRole"]], settled["refund"]) == (
        Status.FAILED, [0, 0, 0], 10_000 * TOKEN)
    assert state.taskOf(round_driver.task_id)["idleRounds"] == 2
    assert vault.claimableOf(requester) == 10_000 * TOKEN
    assert stakes.stakeOf(trainer, Role.TRAINER)["locked"] == 0
    assert reputation.scoreOf(trainer) == 70
