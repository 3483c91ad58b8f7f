"""When every validator accepts everything, every submission is Accepted: VerdictReached(3, 0),
each node earns its share and +2 reputation, and the trainer's checkpoint is adopted."""

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Outcome, Role, Verdict


def test_all_accepted_verdicts(registry, round_driver, samplers, trainer, state):
    tx = round_driver.play_round()
    verdicts = [(e["node"], e["role"], e["slot"], e["verdict"], e["accepts"], e["rejects"])
                for e in events_of(tx, "VerdictReached")]
    assert verdicts == [
        (samplers[0].address, Role.SAMPLER, 0, Verdict.ACCEPTED, 3, 0),
        (samplers[1].address, Role.SAMPLER, 1, Verdict.ACCEPTED, 3, 0),
        (trainer.address, Role.TRAINER, 0, Verdict.ACCEPTED, 3, 0),
    ]
    for role, slot in [(Role.SAMPLER, 0), (Role.SAMPLER, 1), (Role.TRAINER, 0)]:
        assert state.submissionOf(round_driver.task_id, 0, role, slot)["verdict"] == Verdict.ACCEPTED


def test_all_accepted_pays_every_node_of_the_round(registry, round_driver, samplers, trainer, state):
    tx = round_driver.play_round()
    validators = round_driver.validators()
    earned = {(e["node"], e["role"]): e["amount"] for e in events_of(tx, "RewardEarned")}
    assert all(e["round"] == 0 and e["taskId"] == round_driver.task_id for e in events_of(tx, "RewardEarned"))
    assert earned == {
        (samplers[0].address, Role.SAMPLER): 200 * TOKEN,
        (samplers[1].address, Role.SAMPLER): 200 * TOKEN,
        (trainer.address, Role.TRAINER): 1400 * TOKEN,
        **{(v.address, Role.VALIDATOR): 200 * TOKEN // 3 for v in validators},
    }
    assert [int(x) for x in state.paidOf(round_driver.task_id)] == [400 * TOKEN, 1400 * TOKEN, 200 * TOKEN // 3 * 3]


def test_all_accepted_raises_reputation_by_two(registry, reputation, round_driver, samplers, trainer):
    tx = round_driver.play_round()
    changes = {e["node"]: (e["oldScore"], e["newScore"], e["outcome"]) for e in events_of(tx, "ReputationChanged")}
    nodes = [*samplers, trainer, *round_driver.validators()]
    assert changes == {n.address: (70, 72, Outcome.ACCEPTED) for n in nodes}
    assert [reputation.scoreOf(n) for n in nodes] == [72] * 6
    assert "SlotVacated" not in tx.events and "Slashed" not in tx.events


def test_accepted_checkpoint_is_adopted(registry, round_driver, trainer, state):
    tx = round_driver.play_round()
    root, cid, _ = round_driver.result(trainer, 0)
    assert dict(tx.events["RoundFinalized"]) == {
        "taskId": round_driver.task_id, "round": 0, "checkpointRoot": "0x" + root.hex(), "checkpointCid": cid,
    }
    t = state.taskOf(round_driver.task_id)
    assert (t["checkpointRoot"], t["checkpointCid"], t["idleRounds"], t["round"]) == ("0x" + root.hex(), cid, 0, 1)
