"""refund(): moves all that remains of a task's escrow to one account's claimable balance."""

import brownie

from tests.vault.conftest import TOKEN, ZERO, assert_books


def test_refund_moves_whole_remaining_escrow(token, vault, escrow, earner, requester, deposit):
    deposit(4, 100 * TOKEN)
    vault.credit(4, earner, 30 * TOKEN, {"from": escrow})
    tx = vault.refund(4, requester, {"from": escrow})
    assert tx.return_value == 70 * TOKEN
    assert vault.escrowOf(4) == 0
    assert vault.claimableOf(requester) == 70 * TOKEN
    assert vault.claimableOf(earner) == 30 * TOKEN
    assert dict(tx.events["Refunded"]) == {"taskId": 4, "account": requester.address, "amount": 70 * TOKEN}
    assert_books(token, vault)


def test_refund_leaves_other_tasks(vault, escrow, requester, deposit):
    deposit(1, 10 * TOKEN)
    deposit(2, 20 * TOKEN)
    vault.refund(1, requester, {"from": escrow})
    assert vault.escrowOf(2) == 20 * TOKEN
    assert vault.totalEscrow() == 20 * TOKEN


def test_refund_of_empty_escrow_moves_nothing(token, vault, escrow, requester, deposit):
    deposit(1, 10 * TOKEN)
    vault.refund(1, requester, {"from": escrow})
    tx = vault.refund(1, requester, {"from": escrow})
    assert tx.return_value == 0
    assert dict(tx.events["Refunded"]) == {"taskId": 1, "account": requester.address, "amount": 0}
    assert vault.claimableOf(requester) == 10 * TOKEN
    assert_books(token, vault)


def test_refund_to_zero_address_reverts(vault, escrow, deposit):
    deposit(1, 10 * TOKEN)
    with brownie.reverts("ZeroAddress: "):
        vault.refund(1, ZERO, {"from": escrow})
    assert vault.escrowOf(1) == 10 * TOKEN
