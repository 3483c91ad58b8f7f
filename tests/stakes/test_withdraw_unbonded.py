"""withdrawUnbonded(): pays the whole unbonding stake, exactly, once the period has passed."""

import brownie
from brownie import chain

from tests.stakes.conftest import DAY, TOKEN, stake_info
from workers.protocol import Role

PERIOD = 7 * DAY


def test_nothing_unbonding_reverts(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    with brownie.reverts(f"NothingUnbonding: {node.address.lower()}, {int(Role.SAMPLER)}"):
        stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})


def test_withdraw_before_ready_reverts_with_ready_time(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    ready = stakes.requestUnstake(Role.SAMPLER, 40 * TOKEN, {"from": node}).timestamp + PERIOD
    chain.sleep(PERIOD - 60)
    chain.mine()
    with brownie.reverts(f"UnbondingNotReady: {node.address.lower()}, {int(Role.SAMPLER)}, {ready}"):
        stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})


def test_withdraw_pays_exactly_the_unbonding_amount(token, stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 40 * TOKEN, {"from": node})
    chain.sleep(PERIOD)
    chain.mine()
    before = token.balanceOf(node)
    tx = stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})
    assert token.balanceOf(node) == before + 40 * TOKEN
    assert token.balanceOf(stakes) == 60 * TOKEN
    assert stakes.totalStaked() == 60 * TOKEN
    assert stake_info(stakes, node, Role.SAMPLER) == [60 * TOKEN, 0, 0, 0]
    assert dict(tx.events["UnbondedWithdrawn"]) == {"node": node.address, "role": Role.SAMPLER, "amount": 40 * TOKEN}


def test_second_withdraw_reverts(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    chain.sleep(PERIOD)
    chain.mine()
    stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})
    with brownie.reverts(f"NothingUnbonding: {node.address.lower()}, {int(Role.SAMPLER)}"):
        stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})


def test_withdraw_uses_period_at_request_time(stakes, stake, node, admin):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    ready = stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node}).timestamp + PERIOD
    stakes.setUnbondingPeriod(30 * DAY, {"from": admin})
    assert stake_info(stakes, node, Role.SAMPLER)[3] == ready
    chain.sleep(PERIOD)
    chain.mine()
    stakes.withdrawUnbonded(Role.SAMPLER, {"from": node})
    assert stakes.totalStaked() == 0
