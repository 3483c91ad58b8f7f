"""After a slash, locked never exceeds staked, and slashed unbonding stake is gone for good."""

import brownie
from brownie import chain

from tests.stakes.conftest import DAY, TOKEN, stake_info
from workers.protocol import Role


def test_slash_below_locked_caps_locked_at_staked(stakes, stake, node, protocol, treasury):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 400 * TOKEN, {"from": protocol})
    stakes.slash(node, Role.TRAINER, 300 * TOKEN, treasury, {"from": protocol})
    staked, locked, _, _ = stake_info(stakes, node, Role.TRAINER)
    assert staked == locked == 200 * TOKEN
    assert stakes.availableStake(node, Role.TRAINER) == 0


def test_slash_within_unlocked_part_keeps_lock(stakes, stake, node, protocol, treasury):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 100 * TOKEN, {"from": protocol})
    stakes.slash(node, Role.TRAINER, 300 * TOKEN, treasury, {"from": protocol})
    assert stake_info(stakes, node, Role.TRAINER)[:2] == [200 * TOKEN, 100 * TOKEN]
    assert stakes.availableStake(node, Role.TRAINER) == 100 * TOKEN


def test_unlock_after_slash_is_bounded_by_new_lock(stakes, stake, node, protocol, treasury):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 500 * TOKEN, {"from": protocol})
    stakes.slash(node, Role.TRAINER, 450 * TOKEN, treasury, {"from": protocol})
    msg = f"InsufficientLockedStake: {node.address.lower()}, {int(Role.TRAINER)}, {50 * TOKEN}, {500 * TOKEN}"
    with brownie.reverts(msg):
        stakes.unlock(node, Role.TRAINER, 500 * TOKEN, {"from": protocol})


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
