"""balanceOf(vault) == totalEscrow + totalClaimable after every step, scripted and random."""

from brownie.test import given
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.vault.conftest import TOKEN, assert_books


def test_books_balance_after_each_step(token, vault, escrow, earner, requester, deposit):
    steps = [
        lambda: deposit(1, 100 * TOKEN),
        lambda: deposit(2, 40 * TOKEN),
        lambda: vault.credit(1, earner, 70 * TOKEN, {"from": escrow}),
        lambda: vault.credit(2, earner, 10 * TOKEN, {"from": escrow}),
        lambda: vault.withdraw(earner, 50 * TOKEN, {"from": earner}),
        lambda: vault.refund(1, requester, {"from": escrow}),
        lambda: vault.refund(2, requester, {"from": escrow}),
        lambda: vault.withdraw(requester, 60 * TOKEN, {"from": requester}),
        lambda: vault.withdraw(earner, 30 * TOKEN, {"from": earner}),
    ]
    for step in steps:
        step()
        assert_books(token, vault)
    assert [vault.totalEscrow(), vault.totalClaimable(), token.balanceOf(vault)] == [0, 0, 0]


ops = st.lists(
    st.tuples(st.sampled_from(["deposit", "credit", "refund", "withdraw"]), st.integers(0, 2),
              st.integers(0, 1), st.integers(1, 1000)),
    min_size=1,
    max_size=15,
)


# `deposit` is a stateless helper; brownie's `given` reverts the chain between examples.
@settings(max_examples=25, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=ops)
def test_books_balance_under_random_steps(token, vault, escrow, earner, requester, deposit, steps):
    accounts_ = [earner, requester]
    for op, task, who, amount in steps:
        account = accounts_[who]
        if op == "deposit":
            deposit(task, amount * TOKEN)
        elif op == "credit" and vault.escrowOf(task):
            vault.credit(task, account, min(amount * TOKEN, vault.escrowOf(task)), {"from": escrow})
        elif op == "refund":
            vault.refund(task, account, {"from": escrow})
        elif op == "withdraw" and vault.claimableOf(account):
            vault.withdraw(account, min(amount * TOKEN, vault.claimableOf(account)), {"from": account})
        assert_books(token, vault)
        assert vault.totalEscrow() == sum(vault.escrowOf(t) for t in range(3))
        assert vault.totalClaimable() == sum(vault.claimableOf(a) for a in accounts_)
