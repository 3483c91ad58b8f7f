"""The draw is a function of the seed block's hash: it walks the validator pool from
keccak(seed, taskId, round) with a stride coprime to the pool size. With a larger pool, different
seeds pick different validator sets."""

from tests.registry.assignment.conftest import draw_walk, drawn_validators, seed_of
from workers.protocol import Role


def test_picks_follow_the_seed_model(registry, stakes, stake_as, outsider, extra_validators, drawing_task, state):
    for v in extra_validators:
        stake_as(v, Role.VALIDATOR)
    assert stakes.validatorCount() == 13
    picks = []
    for _ in range(5):  # samplers and trainer are staked for five concurrent tasks
        task_id = drawing_task()
        seed = seed_of(state, task_id)
        registry.drawValidators(task_id, {"from": outsider})
        picked = drawn_validators(state, task_id)
        # Every validator is eligible, so the first three examined are the ones assigned.
        assert picked == draw_walk(stakes, seed, task_id)[:3]
        assert len(set(picked)) == 3
        picks.append(frozenset(picked))
    assert len(set(picks)) > 1

