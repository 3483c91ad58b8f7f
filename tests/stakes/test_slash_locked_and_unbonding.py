"""A slash never takes stake locked for an assignment (so its unlock never fails), and slashed
unbonding stake is gone for good."""

import brownie
from brownie import chain

from tests.stakes.conftest import DAY, TOKEN, stake_info
from workers.protocol import Role


def test_slash_beyond_the_unlocked_part_leaves_the_lock_whole(stakes, stake, node, protocol, treasury):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 400 * TOKEN, {"from": protocol})
    tx = stakes.slash(node, Role.TRAINER, 300 * TOKEN, treasury, {"from": protocol})
    assert tx.return_value == 100 * TOKEN
    assert stake_info(stakes, node, Role.TRAINER)[:2] == [400 * TOKEN, 400 * TOKEN]
    assert stakes.availableStake(node, Role.TRAINER) == 0


def test_slash_within_unlocked_part_keeps_lock(stakes, stake, node, protocol, treasury):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 100 * TOKEN, {"from": protocol})
    stakes.slash(node, Role.TRAINER, 300 * TOKEN, treasury, {"from": protocol})
    assert stake_info(stakes, node, Role.TRAINER)[:2] == [200 * TOKEN, 100 * TOKEN]
    assert stakes.availableStake(node, Role.TRAINER) == 100 * TOKEN


def test_a_lock_survives_a_slash_and_unlocks_whole(stakes, stake, node, protocol, treasury):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 500 * TOKEN, {"from": protocol})
    assert stakes.slash(node, Role.TRAINER, 450 * TOKEN, treasury, {"from": protocol}).return_value == 0
    stakes.unlock(node, Role.TRAINER, 500 * TOKEN, {"from": protocol})
    assert stake_info(stakes, node, Role.TRAINER)[:2] == [500 * TOKEN, 0]
    msg = f"InsufficientLockedStake: {node.address.lower()}, {int(Role.TRAINER)}, 0, {TOKEN}"
    with brownie.reverts(msg):
        stakes.unlock(node, Role.TRAINER, TOKEN, {"from": protocol})


def test_fully_slashed_unbonding_cannot_be_withdrawn(stakes, stake, node, protocol, treasury):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    stakes.slash(node, Role.SAMPLER, 100 * TOKEN, treasury, {"from": protocol})
    chain.sleep(7 * DAY)
    chain.mine()
    with brownie.reverts(f"NothingUnbonding: {node.address.lower()}, {int(Role.SAMPLER)}"):
        stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})


def test_partly_slashed_unbonding_pays_only_the_rest(token, stakes, stake, node, protocol, treasury):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    stakes.slash(node, Role.SAMPLER, 30 * TOKEN, treasury, {"from": protocol})
    chain.sleep(7 * DAY)
    chain.mine()
    before = token.balanceOf(node)
    tx = stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})
    assert tx.events["UnbondedWithdrawn"]["amount"] == 70 * TOKEN
    assert token.balanceOf(node) == before + 70 * TOKEN
    assert token.balanceOf(stakes) == stakes.totalStaked() == 0
