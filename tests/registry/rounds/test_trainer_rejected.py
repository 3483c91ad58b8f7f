"""A rejected trainer's checkpoint is not adopted: the task keeps the last accepted checkpoint,
RoundFinalized reports it, the trainer is slashed and vacated, and the round counts as idle."""

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Outcome, Role, Verdict


def test_rejected_checkpoint_keeps_last_accepted_one(registry, round_driver, trainer, state):
    round_driver.play_round()  # round 0: checkpoint accepted
    root0, cid0, _ = round_driver.result(trainer, 0)
    tx = round_driver.play_round(bitmap=0b011)  # round 1: samplers accepted, trainer rejected
    assert dict(tx.events["RoundFinalized"]) == {
        "taskId": round_driver.task_id, "round": 1, "checkpointRoot": "0x" + root0.hex(), "checkpointCid": cid0,
    }
    t = state.taskOf(round_driver.task_id)
    assert (t["checkpointRoot"], t["checkpointCid"], t["idleRounds"], t["round"]) == ("0x" + root0.hex(), cid0, 1, 2)
    assert state.submissionOf(round_driver.task_id, 1, Role.TRAINER, 0)["verdict"] == Verdict.REJECTED


def test_rejected_trainer_is_slashed_vacated_and_unpaid(registry, reputation, round_driver, trainer, treasury, state):
    tx = round_driver.play_round(bitmap=0b011)
    verdict = [e for e in events_of(tx, "VerdictReached") if e["role"] == Role.TRAINER]
    assert [(e["verdict"], e["accepts"], e["rejects"]) for e in verdict] == [(Verdict.REJECTED, 0, 3)]
    assert dict(tx.events["Slashed"]) == {"node": trainer.address, "role": Role.TRAINER, "amount": 50 * TOKEN,
                                          "recipient": treasury.address}
    assert dict(tx.events["SlotVacated"]) == {"taskId": round_driver.task_id, "node": trainer.address,
                                              "role": Role.TRAINER, "slot": 0, "reason": Outcome.REJECTED}
    assert reputation.scoreOf(trainer) == 50
    assert [e for e in events_of(tx, "RewardEarned") if e["role"] == Role.TRAINER] == []
    assert state.paidOf(round_driver.task_id)[1] == 0
    assert state.taskOf(round_driver.task_id)["trainerFilled"] is False


def test_next_round_without_trainer_skips_train_phases(registry, round_driver, state):
    round_driver.play_round(bitmap=0b011)
    round_driver.commit_samples()
    tx = round_driver.reveal_samples()[-1]
    phases = [e["phase"] for e in events_of(tx, "PhaseStarted")]
    assert phases == [2, 3, 4]  # TrainCommit and TrainReveal expect nobody; Attest on the samples
    assert state.taskOf(round_driver.task_id)["revealedMask"] == 0b011
