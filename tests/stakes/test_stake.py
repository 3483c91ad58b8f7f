"""stake(): pulls the tokens, adds to the role's stake, emits Staked with the new total."""

import brownie

from tests.stakes.conftest import TOKEN, stake_info
from workers.protocol import Role


def test_stake_emits_staked_with_running_total(stake, node):
    tx = stake(node, Role.SAMPLER, 100 * TOKEN)
    assert dict(tx.events["Staked"]) == {
        "node": node.address, "role": Role.SAMPLER, "amount": 100 * TOKEN, "totalStaked": 100 * TOKEN,
    }
    tx = stake(node, Role.SAMPLER, 30 * TOKEN)
    assert dict(tx.events["Staked"]) == {
        "node": node.address, "role": Role.SAMPLER, "amount": 30 * TOKEN, "totalStaked": 130 * TOKEN,
    }


def test_stake_pulls_tokens(token, stakes, stake, node):
    before = token.balanceOf(node)
    stake(node, Role.TRAINER, 500 * TOKEN)
    assert token.balanceOf(node) == before - 500 * TOKEN
    assert token.balanceOf(stakes) == 500 * TOKEN


def test_stake_is_kept_per_role(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stake(node, Role.TRAINER, 700 * TOKEN)
    assert stake_info(stakes, node, Role.SAMPLER) == [100 * TOKEN, 0, 0, 0]
    assert stake_info(stakes, node, Role.TRAINER) == [700 * TOKEN, 0, 0, 0]
    assert stake_info(stakes, node, Role.VALIDATOR) == [0, 0, 0, 0]


def test_zero_stake_reverts(stakes, node):
    with brownie.reverts("ZeroAmount: "):
        stakes.stake(Role.SAMPLER, 0, {"from": node})


def test_stake_without_allowance_reverts(stakes, node):
    with brownie.reverts(f"ERC20InsufficientAllowance: {stakes.address.lower()}, 0, {TOKEN}"):
        stakes.stake(Role.SAMPLER, TOKEN, {"from": node})


def test_validator_stake_joins_validator_set_once(stakes, stake, validator):
    assert stakes.validatorCount() == 0
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    stake(validator, Role.VALIDATOR, 200 * TOKEN)
    assert stakes.validatorCount() == 1
    assert stakes.validatorAt(0) == validator


def test_other_roles_do_not_join_validator_set(stakes, stake, node):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stake(node, Role.TRAINER, 500 * TOKEN)
    assert stakes.validatorCount() == 0
