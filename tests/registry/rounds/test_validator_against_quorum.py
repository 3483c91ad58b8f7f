"""A validator that votes against a decided verdict is vacated (AgainstQuorum), slashed, -15
reputation and unpaid; the agreeing validators share the pool; its slot is re-armed and redrawn."""

from brownie import chain

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Outcome, Phase, Role


def _dissent(round_driver):
    """Validators 0 and 1 reject sampler 1; validator 2 accepts it (against the quorum)."""
    round_driver.work()
    vals = round_driver.validators()
    return vals, round_driver.attest_all([0b101, 0b101, 0b111])[-1]


def test_dissenter_is_vacated_slashed_and_penalised(registry, stakes, reputation, round_driver, treasury):
    vals, tx = _dissent(round_driver)
    dissenter = vals[2]
    slot = 2
    vacated = [e for e in events_of(tx, "SlotVacated") if e["role"] == Role.VALIDATOR]
    assert vacated == [{"taskId": round_driver.task_id, "node": dissenter.address, "role": Role.VALIDATOR,
                        "slot": slot, "reason": Outcome.AGAINST_QUORUM}]
    slashed = [e for e in events_of(tx, "Slashed") if e["node"] == dissenter.address]
    assert slashed == [{"node": dissenter.address, "role": Role.VALIDATOR, "amount": 20 * TOKEN,
                        "recipient": treasury.address}]
    assert [int(x) for x in stakes.stakeOf(dissenter, Role.VALIDATOR)][:2] == [1000 * TOKEN - 20 * TOKEN, 0]
    rep = [e for e in events_of(tx, "ReputationChanged") if e["node"] == dissenter.address]
    assert rep == [{"node": dissenter.address, "oldScore": 70, "newScore": 55, "outcome": Outcome.AGAINST_QUORUM}]
    assert reputation.scoreOf(dissenter) == 55


def test_agreeing_validators_earn_one_slot_share_each(registry, vault, round_driver, state):
    vals, tx = _dissent(round_driver)
    earned = {e["node"]: e["amount"] for e in events_of(tx, "RewardEarned") if e["role"] == Role.VALIDATOR}
    # The round's validator pool is 200 DRL over 3 slots; the dissenter's share is not redistributed.
    share = 200 * TOKEN // 3
    assert earned == {vals[0].address: share, vals[1].address: share}
    assert vault.claimableOf(vals[2]) == 0
    assert state.paidOf(round_driver.task_id)[2] == 2 * share


def test_dissenter_slot_is_rearmed_and_redrawn(registry, round_driver, outsider, stake_node, state):
    vals, tx = _dissent(round_driver)
    assert dict(tx.events["DrawArmed"]) == {"taskId": round_driver.task_id, "seedBlock": tx.block_number + 1}
    t = state.taskOf(round_driver.task_id)
    assert (t["seedBlock"], t["filledValidators"], t["round"]) == (tx.block_number + 1, 2, 1)
    stake_node(outsider, Role.VALIDATOR)  # the dissenter (55) is below the threshold: outsider is the only candidate
    chain.mine(2)
    # outsider joined after the draw was armed: not in its pool (SPECIFICATION.md 5.3); the re-armed one has it
    assert "SlotAssigned" not in registry.drawValidators(round_driver.task_id, {"from": outsider}).events
    chain.mine(2)
    draw = registry.drawValidators(round_driver.task_id, {"from": outsider})
    assert dict(draw.events["SlotAssigned"]) == {
        "taskId": round_driver.task_id, "node": outsider.address, "role": Role.VALIDATOR, "slot": 2, "sinceRound": 1,
    }
    t = state.taskOf(round_driver.task_id)
    assert (t["filledValidators"], t["seedBlock"], t["phase"], t["pending"]) == (3, 0, Phase.SAMPLE_COMMIT, 1)
