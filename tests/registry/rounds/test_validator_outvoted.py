"""A validator that accepted work the quorum rejected is outvoted: it earns nothing this round, and
keeps its stake, reputation and slot (SPECIFICATION.md 5.5: its sampled challenges may honestly
have missed what the others' caught); the agreeing validators share the pool."""

from tests.registry.rounds.driver import TOKEN, events_of
from workers.protocol import Role


def _outvoted(round_driver):
    """Validators 0 and 1 reject sampler 1; validator 2 accepts it."""
    round_driver.work()
    vals = round_driver.validators()
    return vals, round_driver.attest_all([0b101, 0b101, 0b111])[-1]


def test_the_outvoted_validator_is_neither_vacated_slashed_nor_marked_down(stakes, reputation, round_driver):
    vals, tx = _outvoted(round_driver)
    outvoted = vals[2]
    assert [e for e in events_of(tx, "SlotVacated") if e["role"] == Role.VALIDATOR] == []
    assert [e for e in events_of(tx, "Slashed") if e["node"] == outvoted.address] == []
    assert [int(x) for x in stakes.stakeOf(outvoted, Role.VALIDATOR)][:2] == [1000 * TOKEN, 200 * TOKEN]
    assert [e for e in events_of(tx, "ReputationChanged") if e["node"] == outvoted.address] == []
    assert reputation.scoreOf(outvoted) == 70


def test_agreeing_validators_earn_one_slot_share_each(vault, round_driver, state):
    vals, tx = _outvoted(round_driver)
    earned = {e["node"]: e["amount"] for e in events_of(tx, "RewardEarned") if e["role"] == Role.VALIDATOR}
    # The round's validator pool is 200 DRL over 3 slots; the outvoted share is not redistributed.
    share = 200 * TOKEN // 3
    assert earned == {vals[0].address: share, vals[1].address: share}
    assert vault.claimableOf(vals[2]) == 0
    assert state.paidOf(round_driver.task_id)[2] == 2 * share


def test_the_outvoted_validator_keeps_its_slot(round_driver, state):
    vals, tx = _outvoted(round_driver)
    assert "DrawArmed" not in tx.events
    t = state.taskOf(round_driver.task_id)
    assert (t["seedBlock"], t["filledValidators"], t["round"]) == (0, 3, 1)
    assert state.slotOf(round_driver.task_id, Role.VALIDATOR, 2)["node"] == vals[2].address
