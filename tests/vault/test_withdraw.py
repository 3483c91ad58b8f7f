"""withdraw(): an account pulls its own claimable balance, to any non-zero address."""

import brownie

from tests.vault.conftest import TOKEN, ZERO, assert_books


def credited(vault, escrow, deposit, account, amount):
    deposit(1, amount)
    vault.credit(1, account, amount, {"from": escrow})


def test_withdraw_pays_to_and_emits(token, vault, escrow, earner, outsider, deposit):
    credited(vault, escrow, deposit, earner, 50 * TOKEN)
    tx = vault.withdraw(outsider, 20 * TOKEN, {"from": earner})
    assert token.balanceOf(outsider) == 20 * TOKEN
    assert token.balanceOf(earner) == 0
    assert vault.claimableOf(earner) == 30 * TOKEN
    assert vault.totalClaimable() == 30 * TOKEN
    assert dict(tx.events["Withdrawn"]) == {"account": earner.address, "to": outsider.address, "amount": 20 * TOKEN}
    assert dict(tx.events["Transfer"]) == {"from": vault.address, "to": outsider.address, "value": 20 * TOKEN}
    assert_books(token, vault)


def test_withdraw_everything_to_self(token, vault, escrow, earner, deposit):
    credited(vault, escrow, deposit, earner, 50 * TOKEN)
    vault.withdraw(earner, 50 * TOKEN, {"from": earner})
    assert token.balanceOf(earner) == 50 * TOKEN
    assert vault.claimableOf(earner) == 0
    assert token.balanceOf(vault) == 0


def test_withdraw_beyond_claimable_reverts_with_numbers(vault, escrow, earner, deposit):
    credited(vault, escrow, deposit, earner, 50 * TOKEN)
    with brownie.reverts(f"InsufficientClaimable: {earner.address.lower()}, {50 * TOKEN}, {50 * TOKEN + 1}"):
        vault.withdraw(earner, 50 * TOKEN + 1, {"from": earner})


def test_others_claimable_cannot_be_withdrawn(vault, escrow, earner, outsider, deposit):
    credited(vault, escrow, deposit, earner, 50 * TOKEN)
    with brownie.reverts(f"InsufficientClaimable: {outsider.address.lower()}, 0, {TOKEN}"):
        vault.withdraw(outsider, TOKEN, {"from": outsider})


def test_escrow_is_not_withdrawable(vault, escrow, deposit):
    deposit(1, 50 * TOKEN)
    with brownie.reverts(f"InsufficientClaimable: {escrow.address.lower()}, 0, {TOKEN}"):
        vault.withdraw(escrow, TOKEN, {"from": escrow})


def test_zero_withdraw_reverts(vault, escrow, earner, deposit):
    credited(vault, escrow, deposit, earner, 50 * TOKEN)
    with brownie.reverts("ZeroAmount: "):
        vault.withdraw(earner, 0, {"from": earner})


def test_withdraw_to_zero_address_reverts(vault, escrow, earner, deposit):
    credited(vault, escrow, deposit, earner, 50 * TOKEN)
    with brownie.reverts("ZeroAddress: "):
        vault.withdraw(ZERO, TOKEN, {"from": earner})
