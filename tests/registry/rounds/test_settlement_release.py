"""After a completed task every locked stake is unlocked, each node gained +2 reputation per
accepted round, and every node withdraws its rewards from the vault exactly once."""

import brownie

from tests.registry.rounds.driver import TOKEN
from workers.protocol import Role, Status


def _complete(round_driver):
    for _ in range(5):
        tx = round_driver.play_round()
    assert round_driver.task()["status"] == Status.COMPLETED
    return tx


def test_all_stakes_unlocked_at_completion(registry, stakes, round_driver, samplers, trainer):
    validators = round_driver.validators()
    tx = _complete(round_driver)
    unlocked = sorted((e["node"], e["role"], e["amount"]) for e in tx.events["StakeUnlocked"])
    assert unlocked == sorted([(s.address, Role.SAMPLER, 100 * TOKEN) for s in samplers]
                              + [(trainer.address, Role.TRAINER, 500 * TOKEN)]
                              + [(v.address, Role.VALIDATOR, 200 * TOKEN) for v in validators])
    for node, role in [*((s, Role.SAMPLER) for s in samplers), (trainer, Role.TRAINER),
                       *((v, Role.VALIDATOR) for v in validators)]:
        info = stakes.stakeOf(node, role)
        assert info["locked"] == 0
        assert stakes.availableStake(node, role) == info["staked"] == 5 * stakes.minStake(role)


def test_reputation_rises_two_per_accepted_round(reputation, round_driver, samplers, trainer):
    validators = round_driver.validators()
    _complete(round_driver)
    assert [reputation.scoreOf(n) for n in (*samplers, trainer, *validators)] == [80] * 6


def test_rewards_are_withdrawn_once(vault, token, round_driver, samplers, trainer):
    validators = round_driver.validators()
    _complete(round_driver)
    expected = {samplers[0]: 1000 * TOKEN, samplers[1]: 1000 * TOKEN, trainer: 7000 * TOKEN,
                **{v: 5 * (200 * TOKEN // 3) for v in validators}}
    for node, amount in expected.items():
        assert vault.claimableOf(node) == amount
        before = token.balanceOf(node)
        tx = vault.withdraw(node, amount, {"from": node})
        assert dict(tx.events["Withdrawn"]) == {"account": node.address, "to": node.address, "amount": amount}
        assert token.balanceOf(node) == before + amount
        assert vault.claimableOf(node) == 0
        with brownie.reverts(f"InsufficientClaimable: {node.address.lower()}, 0, {amount}"):
            vault.withdraw(node, amount, {"from": node})
