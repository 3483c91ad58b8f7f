"""requestUnstake(): only unlocked stake moves into unbonding, and the clock restarts each time."""

import brownie
from brownie import chain

from tests.stakes.conftest import DAY, TOKEN, stake_info
from workers.protocol import Role

PERIOD = 7 * DAY


def test_unstake_moves_stake_into_unbonding(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    tx = stakes.requestUnstake(Role.SAMPLER, 40 * TOKEN, {"from": node})
    ready = tx.timestamp + PERIOD
    assert stake_info(stakes, node, Role.SAMPLER) == [60 * TOKEN, 0, 40 * TOKEN, ready]
    assert dict(tx.events["UnstakeRequested"]) == {
        "node": node.address, "role": Role.SAMPLER, "amount": 40 * TOKEN, "readyAt": ready,
    }


def test_unstake_more_than_staked_reverts_with_numbers(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    msg = f"InsufficientUnlockedStake: {node.address.lower()}, {int(Role.SAMPLER)}, {100 * TOKEN}, {100 * TOKEN + 1}"
    with brownie.reverts(msg):
        stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN + 1, {"from": node})


def test_locked_stake_cannot_be_unstaked(stakes, stake, node, protocol):
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.lock(node, Role.TRAINER, 300 * TOKEN, {"from": protocol})
    msg = f"InsufficientUnlockedStake: {node.address.lower()}, {int(Role.TRAINER)}, {200 * TOKEN}, {200 * TOKEN + 1}"
    with brownie.reverts(msg):
        stakes.requestUnstake(Role.TRAINER, 200 * TOKEN + 1, {"from": node})
    stakes.requestUnstake(Role.TRAINER, 200 * TOKEN, {"from": node})
    assert stake_info(stakes, node, Role.TRAINER)[:3] == [300 * TOKEN, 300 * TOKEN, 200 * TOKEN]
    assert stakes.availableStake(node, Role.TRAINER) == 0


def test_zero_unstake_reverts(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    with brownie.reverts("ZeroAmount: "):
        stakes.requestUnstake(Role.SAMPLER, 0, {"from": node})


def test_second_request_restarts_clock_for_whole_amount(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 10 * TOKEN, {"from": node})
    chain.sleep(5 * DAY)
    chain.mine()
    tx = stakes.requestUnstake(Role.SAMPLER, 20 * TOKEN, {"from": node})
    assert stake_info(stakes, node, Role.SAMPLER) == [70 * TOKEN, 0, 30 * TOKEN, tx.timestamp + PERIOD]
    assert tx.events["UnstakeRequested"]["readyAt"] == tx.timestamp + PERIOD


def test_unstake_does_not_change_total_staked(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    # Unbonding stake is still held (and slashable) until withdrawn.
    assert stakes.totalStaked() == 100 * TOKEN
