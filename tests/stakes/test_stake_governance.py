"""setMinStake/setUnbondingPeriod: GOVERNOR_ROLE only, bounded, each change emitted."""

import brownie
import pytest

from tests.stakes.conftest import DAY, TOKEN, unauthorized
from workers.protocol import Role


@pytest.mark.parametrize("role", list(Role))
def test_governor_sets_min_stake(stakes, admin, role):
    tx = stakes.setMinStake(role, 42 * TOKEN, {"from": admin})
    assert stakes.minStake(role) == 42 * TOKEN
    assert dict(tx.events["MinStakeSet"]) == {"role": role, "amount": 42 * TOKEN}


def test_min_stake_change_leaves_other_roles(stakes, admin):
    stakes.setMinStake(Role.TRAINER, 1, {"from": admin})
    assert [stakes.minStake(r) for r in Role] == [100 * TOKEN, 1, 200 * TOKEN]


def test_zero_min_stake_reverts(stakes, admin):
    with brownie.reverts("ZeroAmount: "):
        stakes.setMinStake(Role.SAMPLER, 0, {"from": admin})


def test_governor_sets_unbonding_period(stakes, admin):
    tx = stakes.setUnbondingPeriod(DAY, {"from": admin})
    assert stakes.unbondingPeriod() == DAY
    assert dict(tx.events["UnbondingPeriodSet"]) == {"period": DAY}
    stakes.setUnbondingPeriod(90 * DAY, {"from": admin})
    assert stakes.unbondingPeriod() == 90 * DAY


@pytest.mark.parametrize("period", [0, DAY - 1, 90 * DAY + 1])
def test_unbonding_period_out_of_bounds_reverts(stakes, admin, period):
    with brownie.reverts(f"UnbondingPeriodOutOfBounds: {period}, {DAY}, {90 * DAY}"):
        stakes.setUnbondingPeriod(period, {"from": admin})
    assert stakes.unbondingPeriod() == 7 * DAY


def test_new_period_applies_to_later_requests(stakes, stake, node, admin):
    stakes.setUnbondingPeriod(2 * DAY, {"from": admin})
    stake(node, Role.SAMPLER, 100 * TOKEN)
    tx = stakes.requestUnstake(Role.SAMPLER, TOKEN, {"from": node})
    assert tx.events["UnstakeRequested"]["readyAt"] == tx.timestamp + 2 * DAY


@pytest.mark.parametrize("caller_name", ["outsider", "protocol"])
def test_only_governor_sets_parameters(request, stakes, caller_name):
    caller = request.getfixturevalue(caller_name)
    with brownie.reverts(unauthorized(caller, stakes.GOVERNOR_ROLE())):
        stakes.setMinStake(Role.SAMPLER, TOKEN, {"from": caller})
    with brownie.reverts(unauthorized(caller, stakes.GOVERNOR_ROLE())):
        stakes.setUnbondingPeriod(2 * DAY, {"from": caller})
