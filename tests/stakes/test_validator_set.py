"""The validator set holds exactly the validators with active stake."""

from tests.stakes.conftest import TOKEN
from workers.protocol import Role


def members(stakes):
    return {stakes.validatorAt(i) for i in range(stakes.validatorCount())}


def test_every_staked_validator_is_listed(stakes, stake, validators):
    for v in validators:
        stake(v, Role.VALIDATOR, 200 * TOKEN)
    assert stakes.validatorCount() == 3
    assert members(stakes) == {v.address for v in validators}


def test_partial_unstake_keeps_validator_in_set(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.requestUnstake(Role.VALIDATOR, 199 * TOKEN, {"from": validator})
    assert members(stakes) == {validator.address}


def test_unstaking_everything_leaves_validator_set(stakes, stake, validators):
    for v in validators:
        stake(v, Role.VALIDATOR, 200 * TOKEN)
    stakes.requestUnstake(Role.VALIDATOR, 200 * TOKEN, {"from": validators[1]})
    assert stakes.validatorCount() == 2
    assert members(stakes) == {validators[0].address, validators[2].address}


def test_restaking_rejoins_validator_set(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.requestUnstake(Role.VALIDATOR, 200 * TOKEN, {"from": validator})
    assert stakes.validatorCount() == 0
    stake(validator, Role.VALIDATOR, 50 * TOKEN)
    assert members(stakes) == {validator.address}


def test_emptying_other_role_keeps_validator(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stake(validator, Role.SAMPLER, 100 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": validator})
    assert members(stakes) == {validator.address}


def test_slashing_to_zero_leaves_validator_set(stakes, stake, validators, protocol, treasury):
    for v in validators[:2]:
        stake(v, Role.VALIDATOR, 200 * TOKEN)
    stakes.slash(validators[0], Role.VALIDATOR, 200 * TOKEN, treasury, {"from": protocol})
    assert members(stakes) == {validators[1].address}
