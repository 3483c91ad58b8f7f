"""slash(): takes active stake that is not locked first, then unbonding stake, never locked stake;
caps at what exists, pays the recipient."""

import brownie

from tests.stakes.conftest import TOKEN, stake_info
from workers.protocol import Role


def test_slash_takes_active_stake_first(token, stakes, stake, node, protocol, treasury):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    ready = stake_info(stakes, node, Role.SAMPLER)[3]
    tx = stakes.slash(node, Role.SAMPLER, 150 * TOKEN, treasury, {"from": protocol})
    assert tx.return_value == 150 * TOKEN
    assert stake_info(stakes, node, Role.SAMPLER) == [50 * TOKEN, 0, 100 * TOKEN, ready]
    assert token.balanceOf(treasury) == 150 * TOKEN
    assert dict(tx.events["Slashed"]) == {
        "node": node.address, "role": Role.SAMPLER, "amount": 150 * TOKEN, "recipient": treasury.address,
    }


def test_slash_reaches_into_unbonding_stake(token, stakes, stake, node, protocol, treasury):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    tx = stakes.slash(node, Role.SAMPLER, 250 * TOKEN, treasury, {"from": protocol})
    assert tx.return_value == 250 * TOKEN
    assert stake_info(stakes, node, Role.SAMPLER)[:3] == [0, 0, 50 * TOKEN]
    assert token.balanceOf(treasury) == 250 * TOKEN


def test_slash_is_capped_at_what_exists(token, stakes, stake, node, protocol, treasury):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": node})
    tx = stakes.slash(node, Role.SAMPLER, 10_000 * TOKEN, treasury, {"from": protocol})
    assert tx.return_value == 300 * TOKEN
    assert tx.events["Slashed"]["amount"] == 300 * TOKEN
    assert stake_info(stakes, node, Role.SAMPLER)[:3] == [0, 0, 0]
    assert token.balanceOf(treasury) == 300 * TOKEN
    assert stakes.totalStaked() == token.balanceOf(stakes) == 0


def test_slash_of_nothing_pays_nothing(token, stakes, node, protocol, treasury):
    tx = stakes.slash(node, Role.TRAINER, 5 * TOKEN, treasury, {"from": protocol})
    assert tx.return_value == 0
    assert dict(tx.events["Slashed"]) == {
        "node": node.address, "role": Role.TRAINER, "amount": 0, "recipient": treasury.address,
    }
    assert "Transfer" not in tx.events
    assert token.balanceOf(treasury) == 0


def test_slash_only_touches_the_given_role(stakes, stake, node, protocol, treasury):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    stake(node, Role.TRAINER, 500 * TOKEN)
    stakes.slash(node, Role.TRAINER, 1_000 * TOKEN, treasury, {"from": protocol})
    assert stake_info(stakes, node, Role.SAMPLER) == [100 * TOKEN, 0, 0, 0]
    assert stakes.totalStaked() == 100 * TOKEN


def test_slash_to_zero_address_reverts(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 100 * TOKEN)
    with brownie.reverts("ZeroAddress: "):
        stakes.slash(node, Role.SAMPLER, TOKEN, "0x0000000000000000000000000000000000000000", {"from": protocol})


def test_slash_never_takes_stake_locked_for_an_assignment(token, stakes, stake, node, protocol, treasury):
    """A dispute slashes after the task; the node's stake locked for another task must stay whole,
    or that task's unlock would fail."""
    stake(node, Role.VALIDATOR, 300 * TOKEN)
    stakes.lock(node, Role.VALIDATOR, 200 * TOKEN, {"from": protocol})
    stakes.requestUnstake(Role.VALIDATOR, 60 * TOKEN, {"from": node})
    tx = stakes.slash(node, Role.VALIDATOR, 1_000 * TOKEN, treasury, {"from": protocol})
    assert tx.return_value == 100 * TOKEN  # 40 unlocked active + 60 unbonding
    assert stake_info(stakes, node, Role.VALIDATOR)[:3] == [200 * TOKEN, 200 * TOKEN, 0]
    stakes.unlock(node, Role.VALIDATOR, 200 * TOKEN, {"from": protocol})
    assert token.balanceOf(treasury) == 100 * TOKEN
