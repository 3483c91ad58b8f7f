"""A trainer that misses its commit is vacated (Missed) and the round is decided without a
checkpoint; validators that do not commit a vote in Attest are vacated and a draw during Active refills their slots.
(A round without a revealed sample expects neither: test_no_sample_revealed.py.)"""

from brownie import chain

from tests.registry.rounds.driver import events_of
from workers.protocol import Outcome, Phase, Role


def test_trainer_missing_commit_is_vacated(registry, reputation, round_driver, trainer, state):
    round_driver.commit_samples()
    round_driver.reveal_samples()
    tx = round_driver.expire()
    assert dict(tx.events["SlotVacated"]) == {"taskId": round_driver.task_id, "node": trainer.address,
                                              "role": Role.TRAINER, "slot": 0, "reason": Outcome.MISSED}
    assert reputation.scoreOf(trainer) == 60
    assert [e["phase"] for e in events_of(tx, "PhaseStarted")] == [Phase.TRAIN_REVEAL, Phase.ATTEST]
    t = state.taskOf(round_driver.task_id)
    assert (t["phase"], t["revealedMask"], t["trainerFilled"]) == (Phase.ATTEST, 0b011, False)


def test_missed_validators_are_vacated_and_redrawn(registry, round_driver, outsider, stake_node, state):
    round_driver.work()
    vals = round_driver.validators()
    round_driver.seal_votes(validators=vals[:1])
    tx = round_driver.expire()
    assert sorted((e["node"], e["reason"]) for e in events_of(tx, "SlotVacated")) == sorted(
        (v.address, Outcome.MISSED) for v in vals[1:])
    assert state.taskOf(round_driver.task_id)["filledValidators"] == 1
    for v in vals[1:]:
        assert state.membershipOf(round_driver.task_id, v)["assigned"] is False
    stake_node(outsider, Role.VALIDATOR)
    chain.mine(2)
    draw = registry.drawValidators(round_driver.task_id, {"from": outsider})
    assigned = {e["node"]: e["sinceRound"] for e in events_of(draw, "SlotAssigned")}
    assert len(assigned) == 2 and set(assigned.values()) == {1}
    assert set(assigned) <= {outsider.address, *(v.address for v in vals[1:])}
    t = state.taskOf(round_driver.task_id)
    assert (t["filledValidators"], t["status"], t["seedBlock"]) == (3, 3, 0)

