"""Property: under random stake/unstake/withdraw/lock/unlock/slash sequences the books balance.

After every step: totalStaked == token balance == sum(staked + unbonding); locked <= staked for
every node and role; the validator set is exactly the validators whose active stake is at least
the minimum (2 DRL here, so that 1 DRL of validator stake is stake outside the pool). Each example
runs on a fresh StakeManager: brownie 1.22.2's compiled state_machine helper fails with a
TypeError, so the steps are a hypothesis list instead of rules.
"""

from brownie import StakeManager, chain
from brownie.test import given
from hypothesis import settings
from hypothesis import strategies as st

from tests.stakes.conftest import DAY, TOKEN, stake_info
from workers.protocol import Role

OPS = ["stake", "unstake", "withdraw", "lock", "unlock", "slash"]
steps = st.lists(
    st.tuples(st.sampled_from(OPS), st.integers(0, 2), st.sampled_from(list(Role)), st.integers(1, 300)),
    min_size=1,
    max_size=12,
)


def apply(sm, op, node, role, amount, protocol, treasury):
    amount *= TOKEN
    staked, locked, unbonding, _ = stake_info(sm, node, role)
    if op == "stake":
        sm.stake(role, amount, {"from": node})
    elif op == "unstake" and min(amount, staked - locked):
        sm.requestUnstake(role, min(amount, staked - locked), {"from": node})
    elif op == "withdraw" and unbonding:
        chain.sleep(7 * DAY)
        chain.mine()
        sm.withdrawUnbonded(role, {"from": node})
    elif op == "lock":
        sm.lock(node, role, min(amount, staked - locked), {"from": protocol})
    elif op == "unlock":
        sm.unlock(node, role, min(amount, locked), {"from": protocol})
    elif op == "slash":
        sm.slash(node, role, amount, treasury, {"from": protocol})


def check_books(sm, token, nodes):
    infos = {(n.address, r): stake_info(sm, n, r) for n in nodes for r in Role}
    held = sum(i[0] + i[2] for i in infos.values())
    assert sm.totalStaked() == token.balanceOf(sm) == held
    assert all(i[1] <= i[0] for i in infos.values())
    listed = {sm.validatorAt(i) for i in range(sm.validatorCount())}
    floor = sm.minStake(Role.VALIDATOR)
    assert listed == {n for (n, r), i in infos.items() if r == Role.VALIDATOR and i[0] >= floor}


def test_stake_books_balance(funded, token, admin, samplers, trainer, treasury, protocol):
    nodes = [*samplers, trainer]

    @settings(max_examples=20, derandomize=True, deadline=None)
    @given(steps)
    def run(ops):
        sm = StakeManager.deploy(token, admin, [TOKEN, TOKEN, 2 * TOKEN], 7 * DAY, {"from": admin})
        sm.grantRole(sm.PROTOCOL_ROLE(), protocol, {"from": admin})
        for n in nodes:
            token.approve(sm, 2**255, {"from": n})
        for op, idx, role, amount in ops:
            apply(sm, op, nodes[idx], role, amount, protocol, treasury)
            check_books(sm, token, nodes)

    run()
