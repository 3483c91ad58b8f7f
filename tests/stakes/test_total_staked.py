"""totalStaked() follows every flow: stake and withdraw, slash; unstake requests and locks do not move it."""

from brownie import chain

from tests.stakes.conftest import DAY, TOKEN
from workers.protocol import Role


def test_total_staked_tracks_each_flow(token, stakes, stake, samplers, validator, protocol, treasury):
    a, b = samplers

    def check(expected):
        assert stakes.totalStaked() == expected
        assert token.balanceOf(stakes) == expected

    check(0)
    stake(a, Role.SAMPLER, 100 * TOKEN)
    check(100 * TOKEN)
    stake(b, Role.TRAINER, 500 * TOKEN)
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    check(800 * TOKEN)
    stakes.lock(b, Role.TRAINER, 300 * TOKEN, {"from": protocol})
    check(800 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 60 * TOKEN, {"from": a})
    check(800 * TOKEN)
    stakes.slash(b, Role.TRAINER, 50 * TOKEN, treasury, {"from": protocol})
    check(750 * TOKEN)
    stakes.slash(a, Role.SAMPLER, 70 * TOKEN, treasury, {"from": protocol})  # 40 active + 30 unbonding
    check(680 * TOKEN)
    stakes.unlock(b, Role.TRAINER, 250 * TOKEN, {"from": protocol})
    check(680 * TOKEN)
    chain.sleep(7 * DAY)
    chain.mine()
    stakes.withdrawUnbonded(Role.SAMPLER, {"from": a})
    check(650 * TOKEN)
    assert token.balanceOf(treasury) == 120 * TOKEN


def test_available_stake_is_staked_minus_locked(stakes, stake, node, protocol):
    assert stakes.availableStake(node, Role.SAMPLER) == 0
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 35 * TOKEN, {"from": protocol})
    stakes.requestUnstake(Role.SAMPLER, 15 * TOKEN, {"from": node})
    assert stakes.availableStake(node, Role.SAMPLER) == 50 * TOKEN
