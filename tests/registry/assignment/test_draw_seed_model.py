"""The draw is a function of the seed block's hash: it walks the validator pool from
keccak(seed, taskId, round) with a stride coprime to the pool size. With a larger pool, different
seeds pick different validator sets."""

from math import gcd

from brownie import chain
from eth_abi import encode
from eth_utils import keccak

from workers.protocol import Role
from tests.registry.assignment.conftest import drawn_validators


def _expected_picks(stakes, seed, task_id, vacancies):
    """Python model of TaskRegistry._drawFrom for a pool in which every validator is eligible."""
    n = stakes.validatorCount()
    pool = [stakes.validatorAt(i) for i in range(n)]
    rand = int.from_bytes(keccak(encode(["bytes32", "uint256", "uint256"], [seed, task_id, 0])), "big")
    start, stride = rand % n, 1 + (rand >> 128) % n
    while gcd(stride, n) != 1:
        stride = stride % n + 1
    walk = [pool[(start + i * stride) % n] for i in range(min(4 * vacancies, n))]
    return walk[:vacancies]


def test_picks_follow_the_seed_model(registry, stakes, stake_as, outsider, extra_validators, drawing_task):
    for v in extra_validators:
        stake_as(v, Role.VALIDATOR)
    assert stakes.validatorCount() == 13
    picks = []
    for _ in range(5):  # samplers and trainer are staked for five concurrent tasks
        task_id = drawing_task()
        seed = bytes(chain[registry.taskOf(task_id)["seedBlock"]]["hash"])
        registry.drawValidators(task_id, {"from": outsider})
        picked = drawn_validators(registry, task_id)
        assert picked == _expected_picks(stakes, seed, task_id, 3)
        assert len(set(picked)) == 3
        picks.append(frozenset(picked))
    assert len(set(picks)) > 1

