"""The validator set (the pool draws walk) holds exactly the validators whose active stake is at
least the validator minimum (200 DRL here): a few wei from many addresses cannot fill it."""

from tests.stakes.conftest import TOKEN
from workers.protocol import Role


def members(stakes):
    return {stakes.validatorAt(i) for i in range(stakes.validatorCount())}


def test_every_staked_validator_is_listed(stakes, stake, validators):
    for v in validators:
        stake(v, Role.VALIDATOR, 200 * TOKEN)
    assert stakes.validatorCount() == 3
    assert members(stakes) == {v.address for v in validators}


def test_partial_unstake_keeps_validator_in_set_down_to_the_minimum(stakes, stake, validator):
    stake(validator, Role.VALIDATOR, 300 * TOKEN)
    stakes.requestUnstake(Role.VALIDATOR, 100 * TOKEN, {"from": validator})
    assert members(stakes) == {validator.address}
    stakes.requestUnstake(Role.VALIDATOR, 1, {"from": validator})
    assert members(stakes) == set()


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
    assert members(stakes) == set()  # below the minimum
    stake(validator, Role.VALIDATOR, 150 * TOKEN)
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


def test_slashing_below_the_minimum_leaves_validator_set(stakes, stake, validator, protocol, treasury):
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stakes.slash(validator, Role.VALIDATOR, 1, treasury, {"from": protocol})
    assert members(stakes) == set()
