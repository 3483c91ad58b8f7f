"""slash(): takes active stake first, then unbonding stake, caps at what exists, pays the recipient."""

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
