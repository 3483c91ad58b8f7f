"""recordDeposit(): escrow is only recorded for tokens that have actually arrived."""

import brownie

from tests.vault.conftest import TOKEN, assert_books


def test_deposit_records_escrow_and_emits(token, vault, deposit):
    tx = deposit(7, 100 * TOKEN)
    assert vault.escrowOf(7) == 100 * TOKEN
    assert vault.totalEscrow() == 100 * TOKEN
    assert dict(tx.events["Deposited"]) == {"taskId": 7, "amount": 100 * TOKEN}
    assert_books(token, vault)


def test_deposits_accumulate_per_task(token, vault, deposit):
    deposit(1, 10 * TOKEN)
    deposit(2, 20 * TOKEN)
    deposit(1, 5 * TOKEN)
    assert [vault.escrowOf(i) for i in (1, 2, 3)] == [15 * TOKEN, 20 * TOKEN, 0]
    assert vault.totalEscrow() == 35 * TOKEN
    assert_books(token, vault)


def test_unfunded_deposit_reverts_with_numbers(token, vault, escrow, admin):
    token.transfer(vault, 30 * TOKEN, {"from": admin})
    with brownie.reverts(f"DepositNotReceived: {50 * TOKEN}, {30 * TOKEN}"):
        vault.recordDeposit(1, 50 * TOKEN, {"from": escrow})
    assert vault.totalEscrow() == 0


def test_tokens_owed_as_claimable_do_not_fund_a_deposit(token, vault, escrow, earner, deposit):
    deposit(1, 40 * TOKEN)
    vault.refund(1, earner, {"from": escrow})
    # The vault holds 40, all owed to the earner: a new deposit must bring its own tokens.
    with brownie.reverts(f"DepositNotReceived: {50 * TOKEN}, {40 * TOKEN}"):
        vault.recordDeposit(2, 10 * TOKEN, {"from": escrow})
    assert_books(token, vault)


def test_same_tokens_cannot_be_recorded_twice(token, vault, escrow, deposit):
    deposit(1, 40 * TOKEN)
    with brownie.reverts(f"DepositNotReceived: {80 * TOKEN}, {40 * TOKEN}"):
        vault.recordDeposit(2, 40 * TOKEN, {"from": escrow})


def test_zero_deposit_reverts(vault, escrow):
    with brownie.reverts("ZeroAmount: "):
        vault.recordDeposit(1, 0, {"from": escrow})
