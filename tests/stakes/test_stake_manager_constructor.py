"""The constructor refuses zero addresses and out-of-bounds parameters, and emits its settings."""

import brownie
from brownie import StakeManager

from tests.stakes.conftest import DAY, TOKEN, unauthorized
from workers.protocol import Role

ZERO = "0x0000000000000000000000000000000000000000"
MINS = [100 * TOKEN, 500 * TOKEN, 200 * TOKEN]


def test_zero_token_reverts(admin):
    with brownie.reverts("ZeroAddress: "):
        StakeManager.deploy(ZERO, admin, MINS, 7 * DAY, {"from": admin})


def test_zero_admin_reverts(token, admin):
    with brownie.reverts("ZeroAddress: "):
        StakeManager.deploy(token, ZERO, MINS, 7 * DAY, {"from": admin})


def test_zero_min_stake_reverts(token, admin):
    with brownie.reverts("ZeroAmount: "):
        StakeManager.deploy(token, admin, [100, 0, 200], 7 * DAY, {"from": admin})


def test_unbonding_period_below_minimum_reverts(token, admin):
    with brownie.reverts(f"UnbondingPeriodOutOfBounds: {DAY - 1}, {DAY}, {90 * DAY}"):
        StakeManager.deploy(token, admin, MINS, DAY - 1, {"from": admin})


def test_unbonding_period_above_maximum_reverts(token, admin):
    with brownie.reverts(f"UnbondingPeriodOutOfBounds: {90 * DAY + 1}, {DAY}, {90 * DAY}"):
        StakeManager.deploy(token, admin, MINS, 90 * DAY + 1, {"from": admin})


def test_bounds_are_inclusive(token, admin):
    assert StakeManager.deploy(token, admin, MINS, DAY, {"from": admin}).unbondingPeriod() == DAY
    assert StakeManager.deploy(token, admin, MINS, 90 * DAY, {"from": admin}).unbondingPeriod() == 90 * DAY


def test_settings_and_roles_after_deploy(token, admin, outsider):
    sm = StakeManager.deploy(token, outsider, MINS, 3 * DAY, {"from": admin})
    assert sm.token() == token
    assert [sm.minStake(r) for r in Role] == MINS
    assert sm.unbondingPeriod() == 3 * DAY
    assert sm.hasRole(sm.DEFAULT_ADMIN_ROLE(), outsider)
    assert sm.hasRole(sm.GOVERNOR_ROLE(), outsider)
    assert not sm.hasRole(sm.GOVERNOR_ROLE(), admin)
    assert not sm.hasRole(sm.PROTOCOL_ROLE(), outsider)
    events = sm.tx.events
    assert [dict(e) for e in events["MinStakeSet"]] == [
        {"role": r, "amount": m} for r, m in zip(Role, MINS, strict=True)]
    assert dict(events["UnbondingPeriodSet"]) == {"period": 3 * DAY}
    with brownie.reverts(unauthorized(admin, sm.GOVERNOR_ROLE())):
        sm.setMinStake(Role.SAMPLER, 1, {"from": admin})
