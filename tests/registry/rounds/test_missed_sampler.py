"""advance after a missed deadline: a sampler that did not commit is vacated with Missed (-10, stake
unlocked, no slash); one that committed and did not reveal is vacated with Withheld (-20, slashed
slashBps of its locked stake); either way the round goes on with the others."""

import brownie

from tests.registry.rounds.driver import events_of
from workers.protocol import Outcome, Phase, Role


def test_advance_before_deadline_reverts(registry, round_driver):
    deadline = round_driver.task()["phaseDeadline"]
    with brownie.reverts(f"DeadlineNotReached: {round_driver.task_id}, {deadline}"):
        registry.advance(round_driver.task_id, {"from": round_driver.trainer})


def test_sampler_missing_commit_is_vacated(registry, stakes, reputation, round_driver, samplers, state):
    round_driver.commit(samplers[0])
    tx = round_driver.expire()
    assert dict(tx.events["SlotVacated"]) == {"taskId": round_driver.task_id, "node": samplers[1].address,
                                              "role": Role.SAMPLER, "slot": 1, "reason": Outcome.MISSED}
    assert [(e["node"], e["oldScore"], e["newScore"], e["outcome"]) for e in events_of(tx, "ReputationChanged")] == [
        (samplers[1].address, 70, 60, Outcome.MISSED)]
    assert "Slashed" not in tx.events
    assert stakes.availableStake(samplers[1], Role.SAMPLER) == stakes.stakeOf(samplers[1], Role.SAMPLER)["staked"]
    assert stakes.stakeOf(samplers[1], Role.SAMPLER)["locked"] == 0
    t = state.taskOf(round_driver.task_id)
    assert (t["phase"], t["pending"], t["filledSamplers"]) == (Phase.SAMPLE_REVEAL, 1, 1)


def test_sampler_withholding_its_reveal_is_slashed_and_round_goes_on(registry, stakes, reputation, round_driver,
                                                                      samplers, config, state):
    round_driver.commit_samples()
    round_driver.reveal(samplers[0])
    locked = stakes.stakeOf(samplers[1], Role.SAMPLER)["locked"]
    tx = round_driver.expire()
    assert [(e["node"], e["reason"]) for e in events_of(tx, "SlotVacated")] == [(samplers[1].address, Outcome.WITHHELD)]
    assert [(e["node"], e["amount"]) for e in events_of(tx, "Slashed")] == [
        (samplers[1].address, locked * config.slashBps() // 10_000)]
    assert reputation.scoreOf(samplers[1]) == 50
    assert state.taskOf(round_driver.task_id)["phase"] == Phase.TRAIN_COMMIT
    round_driver.commit_checkpoint()
    round_driver.reveal_checkpoint()
    last = round_driver.attest_all(0b101)[-1]
    paid = {e["node"]: e["amount"] for e in events_of(last, "RewardEarned") if e["role"] == Role.SAMPLER}
    # One slot's share (of two): the missing sampler's share is not handed to the other.
    assert paid == {samplers[0].address: 200 * 10**18}


def test_new_sampler_joins_current_round_during_sample_commit(registry, round_driver, samplers, outsider, stake_node,
                                                              state):
    round_driver.commit_samples()
    round_driver.reveal(samplers[0])
    round_driver.expire()  # samplers[1] vacated in SampleReveal
    round_driver.commit_checkpoint()
    round_driver.reveal_checkpoint()
    round_driver.attest_all(0b101)  # round 1 starts: one sampler expected
    assert state.taskOf(round_driver.task_id)["pending"] == 1
    stake_node(outsider, Role.SAMPLER)
    tx = registry.claimSlot(round_driver.task_id, Role.SAMPLER, {"from": outsider})
    assert (tx.events["SlotAssigned"]["slot"], tx.events["SlotAssigned"]["sinceRound"]) == (1, 1)
    assert state.taskOf(round_driver.task_id)["pending"] == 2
    round_driver.samplers = [samplers[0], outsider]
    txs = round_driver.commit_samples()
    assert txs[1].events["PhaseStarted"]["phase"] == Phase.SAMPLE_REVEAL


def test_new_sampler_joining_later_waits_for_next_round(registry, round_driver, samplers, outsider, stake_node, state):
    round_driver.commit(samplers[0])
    round_driver.expire()
    stake_node(outsider, Role.SAMPLER)
    tx = registry.claimSlot(round_driver.task_id, Role.SAMPLER, {"from": outsider})
    assert tx.events["SlotAssigned"]["sinceRound"] == 1
    assert state.slotOf(round_driver.task_id, Role.SAMPLER, 1)["sinceRound"] == 1
    assert state.taskOf(round_driver.task_id)["pending"] == 1
    with brownie.reverts(f"NotExpectedThisRound: {round_driver.task_id}, 0, 1"):
        round_driver.reveal(outsider)
