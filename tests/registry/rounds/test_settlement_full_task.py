"""A 5-round task with all work accepted pays exactly 70% to the trainer, 20% split equally among
the samplers and 10% among the validators; rounding dust goes back to the requester, so
paid + refund == bounty; stakes are unlocked and each accepted node gains +2 per round."""

from dataclasses import replace

import pytest
from brownie import chain

from tests.registry.rounds.driver import TOKEN, RoundDriver, events_of, send
from workers.protocol import Role, Status


def _expected(bounty):
    pool = {r: bounty * bps // 10_000 // 5 for r, bps in [(Role.SAMPLER, 2000), (Role.TRAINER, 7000),
                                                          (Role.VALIDATOR, 1000)]}
    return {Role.SAMPLER: pool[Role.SAMPLER] // 2, Role.TRAINER: pool[Role.TRAINER],
            Role.VALIDATOR: pool[Role.VALIDATOR] // 3}


@pytest.mark.parametrize("bounty", [10_000 * TOKEN, 10_000 * TOKEN + 7])
def test_full_task_pays_shares_and_refunds_dust(registry, vault, create_task, staked, samplers, trainer,
                                                 requester, task_params, bounty, state):
    task_id = create_task(replace(task_params, bounty=bounty))
    for s in samplers:
        send(registry.claimSlot, task_id, Role.SAMPLER, sender=s)
    send(registry.claimSlot, task_id, Role.TRAINER, sender=trainer)
    chain.mine(2)
    send(registry.drawValidators, task_id, sender=trainer)
    driver = RoundDriver(registry, state, task_id, samplers, trainer)
    validators = driver.validators()
    share = _expected(bounty)

    earned = []
    for r in range(5):
        tx = driver.play_round()
        got = sorted((e["node"], e["role"], e["amount"]) for e in events_of(tx, "RewardEarned"))
        assert all(e["round"] == r for e in events_of(tx, "RewardEarned"))
        assert got == sorted([(s.address, Role.SAMPLER, share[Role.SAMPLER]) for s in samplers]
                             + [(trainer.address, Role.TRAINER, share[Role.TRAINER])]
                             + [(v.address, Role.VALIDATOR, share[Role.VALIDATOR]) for v in validators])
        credited = sorted((e["account"], e["amount"]) for e in events_of(tx, "Credited"))
        assert credited == sorted((n, a) for n, _, a in got)
        earned.append(tx)

    paid = [5 * 2 * share[Role.SAMPLER], 5 * share[Role.TRAINER], 5 * 3 * share[Role.VALIDATOR]]
    assert [int(x) for x in state.paidOf(task_id)] == paid
    refund = bounty - sum(paid)
    settled = earned[-1].events["TaskSettled"]
    assert (settled["taskId"], settled["status"], settled["refund"]) == (task_id, Status.COMPLETED, refund)
    assert [int(x) for x in settled["paidByRole"]] == paid
    assert sum(paid) + refund == bounty
    # dust: less than numRounds x payees wei per role
    assert 0 <= bounty * 7000 // 10_000 - paid[1] < 5
    assert 0 <= bounty * 2000 // 10_000 - paid[0] < 10
    assert 0 <= bounty * 1000 // 10_000 - paid[2] < 15
    assert vault.claimableOf(requester) == refund
    assert vault.escrowOf(task_id) == 0
    assert [vault.claimableOf(n) for n in (*samplers, trainer, *validators)] == (
        [paid[0] // 2] * 2 + [paid[1]] + [paid[2] // 3] * 3)
