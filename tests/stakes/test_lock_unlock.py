"""lock()/unlock(): the protocol reserves unlocked stake for assignments and releases it."""

import brownie

from tests.stakes.conftest import TOKEN, stake_info
from workers.protocol import Role


def test_lock_reduces_available_stake(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 500 * TOKEN)
    tx = stakes.lock(node, Role.SAMPLER, 100 * TOKEN, {"from": protocol})
    assert stakes.availableStake(node, Role.SAMPLER) == 400 * TOKEN
    assert stake_info(stakes, node, Role.SAMPLER) == [500 * TOKEN, 100 * TOKEN, 0, 0]
    assert dict(tx.events["StakeLocked"]) == {"node": node.address, "role": Role.SAMPLER, "amount": 100 * TOKEN}


def test_locks_accumulate_up_to_staked(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 100 * TOKEN, {"from": protocol})
    stakes.lock(node, Role.SAMPLER, 200 * TOKEN, {"from": protocol})
    assert stakes.availableStake(node, Role.SAMPLER) == 0


def test_lock_beyond_available_reverts_with_numbers(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 250 * TOKEN, {"from": protocol})
    msg = f"InsufficientUnlockedStake: {node.address.lower()}, {int(Role.SAMPLER)}, {50 * TOKEN}, {51 * TOKEN}"
    with brownie.reverts(msg):
        stakes.lock(node, Role.SAMPLER, 51 * TOKEN, {"from": protocol})


def test_lock_on_other_role_reverts(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    msg = f"InsufficientUnlockedStake: {node.address.lower()}, {int(Role.TRAINER)}, 0, {TOKEN}"
    with brownie.reverts(msg):
        stakes.lock(node, Role.TRAINER, TOKEN, {"from": protocol})


def test_unlock_restores_available_stake(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 200 * TOKEN, {"from": protocol})
    tx = stakes.unlock(node, Role.SAMPLER, 150 * TOKEN, {"from": protocol})
    assert stakes.availableStake(node, Role.SAMPLER) == 250 * TOKEN
    assert stake_info(stakes, node, Role.SAMPLER) == [300 * TOKEN, 50 * TOKEN, 0, 0]
    assert dict(tx.events["StakeUnlocked"]) == {"node": node.address, "role": Role.SAMPLER, "amount": 150 * TOKEN}


def test_unlock_beyond_locked_reverts_with_numbers(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 20 * TOKEN, {"from": protocol})
    msg = f"InsufficientLockedStake: {node.address.lower()}, {int(Role.SAMPLER)}, {20 * TOKEN}, {20 * TOKEN + 1}"
    with brownie.reverts(msg):
        stakes.unlock(node, Role.SAMPLER, 20 * TOKEN + 1, {"from": protocol})


def test_lock_and_unlock_move_no_tokens(token, stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 300 * TOKEN, {"from": protocol})
    stakes.unlock(node, Role.SAMPLER, 300 * TOKEN, {"from": protocol})
    assert token.balanceOf(stakes) == stakes.totalStaked() == 300 * TOKEN
