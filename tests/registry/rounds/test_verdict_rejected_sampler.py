"""A sampler that a quorum (2 of 3) rejects is Rejected: slashed slashBps of its locked stake to
the treasury, -20 reputation, its slot vacated, and no pay for the round."""

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Outcome, Role, Verdict

SAMPLER_STAKE = 500 * TOKEN  # 5x the 100 DRL minimum; 100 DRL locked per assignment


def _reject_sampler_1(round_driver):
    round_driver.work()
    return round_driver.attest_all([0b101, 0b101, 0b101])[-1]


def test_rejected_sampler_verdict(registry, round_driver, samplers, state):
    tx = _reject_sampler_1(round_driver)
    v = [e for e in events_of(tx, "VerdictReached") if e["node"] == samplers[1].address]
    assert v == [{"taskId": round_driver.task_id, "round": 0, "node": samplers[1].address, "role": Role.SAMPLER,
                  "slot": 1, "verdict": Verdict.REJECTED, "accepts": 0, "rejects": 3}]
    assert state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 1)["verdict"] == Verdict.REJECTED


def test_rejected_sampler_is_slashed_to_treasury(registry, stakes, token, round_driver, samplers, treasury, config):
    before = token.balanceOf(treasury)
    tx = _reject_sampler_1(round_driver)
    slash = 100 * TOKEN * config.slashBps() // 10_000
    assert slash == 10 * TOKEN
    assert dict(tx.events["Slashed"]) == {
        "node": samplers[1].address, "role": Role.SAMPLER, "amount": slash, "recipient": treasury.address,
    }
    assert token.balanceOf(treasury) == before + slash
    info = stakes.stakeOf(samplers[1], Role.SAMPLER)
    assert [int(info["staked"]), int(info["locked"])] == [SAMPLER_STAKE - slash, 0]
    assert stakes.availableStake(samplers[1], Role.SAMPLER) == SAMPLER_STAKE - slash


def test_rejected_sampler_loses_reputation_and_slot(registry, reputation, round_driver, samplers, state):
    tx = _reject_sampler_1(round_driver)
    rep = [e for e in events_of(tx, "ReputationChanged") if e["node"] == samplers[1].address]
    assert rep == [{"node": samplers[1].address, "oldScore": 70, "newScore": 50, "outcome": Outcome.REJECTED}]
    assert reputation.scoreOf(samplers[1]) == 50
    assert dict(tx.events["SlotVacated"]) == {
        "taskId": round_driver.task_id, "node": samplers[1].address, "role": Role.SAMPLER, "slot": 1,
        "reason": Outcome.REJECTED,
    }
    assert state.slotOf(round_driver.task_id, Role.SAMPLER, 1)[0] == "0x" + "00" * 20
    assert state.membershipOf(round_driver.task_id, samplers[1])["assigned"] is False
    assert state.taskOf(round_driver.task_id)["filledSamplers"] == 1


def test_rejected_sampler_is_not_paid_and_others_are(registry, vault, round_driver, samplers, trainer, state):
    tx = _reject_sampler_1(round_driver)
    earned = {e["node"]: e["amount"] for e in events_of(tx, "RewardEarned")}
    assert samplers[1].address not in earned
    assert vault.claimableOf(samplers[1]) == 0
    # The accepted sampler earns its own slot's share; the rejected one's share is not redistributed.
    assert earned[samplers[0].address] == 200 * TOKEN
    assert earned[trainer.address] == 1400 * TOKEN
    assert state.paidOf(round_driver.task_id)[0] == 200 * TOKEN
