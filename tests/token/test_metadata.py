"""RLToken identity and the one-time mint to the initial holder."""

from brownie import RLToken

from scripts.deploy import DeployParams

TOKEN = 10**18


def test_name_and_symbol(token):
    assert token.name() == "decentrl RL Token"
    assert token.symbol() == "DRL"


def test_decimals_are_eighteen(token):
    assert token.decimals() == 18


def test_total_supply_is_the_deploy_supply(token):
    assert token.totalSupply() == DeployParams().supply == 1_000_000_000 * TOKEN


def test_whole_supply_minted_to_initial_holder(token, admin, outsider):
    assert token.balanceOf(admin) == token.totalSupply()
    assert token.balanceOf(outsider) == 0


def test_mint_to_other_holder_emits_transfer_from_zero(admin, outsider):
    fresh = RLToken.deploy(outsider, 1234, {"from": admin})
    tx = fresh.tx
    assert dict(tx.events["Transfer"]) == {
        "from": "0x0000000000000000000000000000000000000000",
        "to": outsider.address,
        "value": 1234,
    }
    assert fresh.balanceOf(outsider) == fresh.totalSupply() == 1234
    assert fresh.balanceOf(admin) == 0


def test_no_supply_change_after_transfers(token, admin, outsider):
    supply = token.totalSupply()
    token.transfer(outsider, 5 * TOKEN, {"from": admin})
    token.transfer(admin, 2 * TOKEN, {"from": outsider})
    assert token.totalSupply() == supply
    assert token.balanceOf(outsider) == 3 * TOKEN
    assert token.balanceOf(admin) == supply - 3 * TOKEN
