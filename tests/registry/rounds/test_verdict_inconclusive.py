"""Without a quorum either way (1 of 3 voted before the deadline) every submission is
Inconclusive: no pay and no penalty for the workers; the round counts as idle."""

from tests.registry.rounds.driver import events_of
from workers.protocol import Outcome, Role, Verdict


def _one_vote(round_driver):
    """Only `lone` seals a vote; the others miss the Attest deadline; `lone` opens its vote, which
    finalizes the round. Returns lone, the expiry and the opening transaction."""
    round_driver.work()
    lone = round_driver.validators()[0]
    round_driver.seal_votes(validators=[lone])
    expired = round_driver.expire()
    return lone, expired, round_driver.open_votes(validators=[lone])[0]


def test_verdicts_are_inconclusive(registry, round_driver, samplers, trainer, state):
    _, _, tx = _one_vote(round_driver)
    verdicts = [(e["node"], e["role"], e["slot"], e["verdict"], e["accepts"], e["rejects"])
                for e in events_of(tx, "VerdictReached")]
    assert verdicts == [
        (samplers[0].address, Role.SAMPLER, 0, Verdict.INCONCLUSIVE, 1, 0),
        (samplers[1].address, Role.SAMPLER, 1, Verdict.INCONCLUSIVE, 1, 0),
        (trainer.address, Role.TRAINER, 0, Verdict.INCONCLUSIVE, 1, 0),
    ]
    assert state.submissionOf(round_driver.task_id, 0, Role.TRAINER, 0)["verdict"] == Verdict.INCONCLUSIVE


def test_workers_get_no_pay_and_no_penalty(registry, stakes, reputation, vault, round_driver, samplers, trainer, state):
    _, _, tx = _one_vote(round_driver)
    workers = [n.address for n in (*samplers, trainer)]
    assert [e for e in events_of(tx, "RewardEarned") if e["node"] in workers] == []
    assert [e for e in events_of(tx, "ReputationChanged") if e["node"] in workers] == []
    assert [e for e in events_of(tx, "SlotVacated") if e["node"] in workers] == []
    assert "Slashed" not in tx.events
    assert [vault.claimableOf(n) for n in workers] == [0, 0, 0]
    assert [reputation.scoreOf(n) for n in workers] == [70, 70, 70]
    assert [state.membershipOf(round_driver.task_id, n)["assigned"] for n in workers] == [True] * 3
    assert [int(x) for x in state.paidOf(round_driver.task_id)[:2]] == [0, 0]


def test_silent_validators_are_vacated_as_missed(registry, round_driver):
    lone, tx, _ = _one_vote(round_driver)
    missed = [(e["node"], e["reason"]) for e in events_of(tx, "SlotVacated")]
    silent = [v.address for v in round_driver.validators()]  # after the vacancies: only the lone voter
    assert silent == [lone.address]
    assert len(missed) == 2 and all(reason == Outcome.MISSED for _, reason in missed)
    assert lone.address not in [n for n, _ in missed]


def test_inconclusive_round_is_idle_and_keeps_checkpoint(registry, round_driver, state):
    _, _, tx = _one_vote(round_driver)
    t = state.taskOf(round_driver.task_id)
    assert (t["idleRounds"], t["round"], t["checkpointRoot"], t["checkpointCid"]) == (1, 1, "0x" + "00" * 32, "")
    assert dict(tx.events["RoundFinalized"]) == {
        "taskId": round_driver.task_id, "round": 0, "checkpointRoot": "0x" + "00" * 32, "checkpointCid": "",
    }
