"""Assignment fixtures: a penalty helper that drives a node's reputation down, and a larger
validator pool from the spare accounts."""

from math import gcd

import pytest
from brownie import accounts, chain
from eth_abi import encode
from eth_utils import keccak

from workers.protocol import Outcome, Role

TOKEN = 10**18


@pytest.fixture
def penalise(staked, admin):
    """Records `outcome` against `node` as a reporter would (admin is granted REPORTER_ROLE)."""
    reputation = staked.reputation
    reputation.grantRole(reputation.REPORTER_ROLE(), admin, {"from": admin})

    def _penalise(node, outcome=Outcome.REJECTED):
        reputation.record(node, outcome, {"from": admin})
        return reputation.scoreOf(node)

    return _penalise


@pytest.fixture
def stake_as(staked, admin):
    """Funds `node` and stakes `amount` (default 5x the minimum) in `role`."""

    def _stake(node, role, amount=None):
        amount = 5 * staked.stakes.minStake(role) if amount is None else amount
        staked.token.transfer(node, amount, {"from": admin})
        staked.token.approve(staked.stakes, amount, {"from": node})
        staked.stakes.stake(role, amount, {"from": node})

    return _stake


@pytest.fixture(scope="module")
def extra_validators():
    return accounts[10:20]


@pytest.fixture
def drawing_task(staked, create_task, samplers, trainer):
    """A task with its samplers and trainer claimed, waiting for the validator draw."""

    def _make(params=None):
        task_id = create_task(params) if params else create_task()
        for s in samplers:
            staked.registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
        staked.registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
        chain.mine(2)
        return task_id

    return _make


def drawn_validators(state, task_id):
    """The validator addresses assigned to the task's filled validator slots."""
    n = state.taskOf(task_id)["numValidators"]
    return [state.slotOf(task_id, Role.VALIDATOR, i)["node"] for i in range(n)]


def draw_walk(stakes, seed, task_id, round_=0):
    """Python model of the draw walk (Draws.walk, SlotLogic.draw): the order in which one draw
    examines the whole pool."""
    n = stakes.validatorCount()
    pool = [stakes.validatorAt(i) for i in range(n)]
    rand = int.from_bytes(keccak(encode(["bytes32", "uint256", "uint256"], [seed, task_id, round_])), "big")
    start, stride = rand % n, 1 + (rand >> 128) % n
    while gcd(stride, n) != 1:
        stride = stride % n + 1
    return [pool[(start + i * stride) % n] for i in range(n)]


def seed_of(state, task_id):
    """The hash of the task's armed seed block (mined already)."""
    return bytes(chain[state.taskOf(task_id)["seedBlock"]]["hash"])
