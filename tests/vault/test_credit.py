"""credit(): moves part of a task's escrow to an account's claimable balance."""

import brownie

from tests.vault.conftest import TOKEN, ZERO, assert_books


def test_credit_moves_escrow_to_claimable(token, vault, escrow, earner, deposit):
    deposit(3, 100 * TOKEN)
    tx = vault.credit(3, earner, 70 * TOKEN, {"from": escrow})
    assert vault.escrowOf(3) == 30 * TOKEN
    assert vault.claimableOf(earner) == 70 * TOKEN
    assert [vault.totalEscrow(), vault.totalClaimable()] == [30 * TOKEN, 70 * TOKEN]
    assert dict(tx.events["Credited"]) == {"taskId": 3, "account": earner.address, "amount": 70 * TOKEN}
    assert "Transfer" not in tx.events
    assert_books(token, vault)


def test_credits_accumulate_across_tasks(token, vault, escrow, earner, deposit):
    deposit(1, 10 * TOKEN)
    deposit(2, 10 * TOKEN)
    vault.credit(1, earner, 4 * TOKEN, {"from": escrow})
    vault.credit(2, earner, 10 * TOKEN, {"from": escrow})
    assert vault.claimableOf(earner) == 14 * TOKEN
    assert_books(token, vault)


def test_credit_whole_escrow(vault, escrow, earner, deposit):
    deposit(1, 10 * TOKEN)
    vault.credit(1, earner, 10 * TOKEN, {"from": escrow})
    assert vault.escrowOf(1) == 0


def test_credit_beyond_task_escrow_reverts(vault, escrow, earner, deposit):
    deposit(1, 10 * TOKEN)
    deposit(2, 50 * TOKEN)  # other tasks' escrow cannot be borrowed
    with brownie.reverts(f"InsufficientEscrow: 1, {10 * TOKEN}, {10 * TOKEN + 1}"):
        vault.credit(1, earner, 10 * TOKEN + 1, {"from": escrow})


def test_credit_of_unknown_task_reverts(vault, escrow, earner):
    with brownie.reverts("InsufficientEscrow: 9, 0, 1"):
        vault.credit(9, earner, 1, {"from": escrow})


def test_credit_to_zero_address_reverts(vault, escrow, deposit):
    deposit(1, 10 * TOKEN)
    with brownie.reverts("ZeroAddress: "):
        vault.credit(1, ZERO, TOKEN, {"from": escrow})
