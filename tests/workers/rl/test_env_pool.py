"""workers/rl/env_pool.py: an env kept from one replay serves the next only where a reset makes it a
fresh one's equal, whatever state the earlier replay restored into it (another node's snapshot);
an env whose replay raised is never kept; other families are made afresh each time."""

import numpy as np
import pytest

from workers.rl import env_pool
from workers.rl.envs import EnvConfig
from workers.rl.snapshot import capture, restore


@pytest.fixture(autouse=True)
def empty_pool():
    env_pool.clear()
    yield
    env_pool.clear()


def steps(env, actions):
    return [(np.asarray(o).tobytes(), float(r), t, u) for o, r, t, u, _ in (env.step(a) for a in actions)]


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Hopper-v5", "HalfCheetah-v5"])
def test_a_kept_env_reset_with_a_seed_is_a_fresh_ones_equal_after_any_restored_state(env_id):
    config = EnvConfig(env_id)
    fresh = config.make()
    fresh.action_space.seed(1)
    actions = [fresh.action_space.sample() for _ in range(12)]
    fresh.reset(seed=99)
    steps(fresh, actions[:5])
    elsewhere = capture(fresh)  # a state of another episode, mid-way: what a replay may restore
    with env_pool.lent(config) as env:
        env.reset(seed=3)
        restore(env, elsewhere)
        steps(env, actions[5:])
        used = env
    with env_pool.lent(config) as env:
        assert env is used  # kept
        env.reset(seed=7)
        reference = config.make()
        reference.reset(seed=7)
        assert capture(env) == capture(reference)
        assert steps(env, actions) == steps(reference, actions)
    reference.close()
    fresh.close()


def test_an_env_whose_replay_raised_is_closed_not_kept():
    config = EnvConfig("CartPole-v1")
    with pytest.raises(RuntimeError), env_pool.lent(config) as env:
        failed = env
        raise RuntimeError("a replay that failed half-way")
    with env_pool.lent(config) as env:
        assert env is not failed


def test_other_families_are_made_afresh_for_each_replay():
    config = EnvConfig("MinAtar/Breakout-v1")  # its games keep attributes a reset may not touch
    assert not env_pool.reusable(config)
    with env_pool.lent(config) as env:
        first = env
    with env_pool.lent(config) as env:
        assert env is not first


def test_only_wrappers_a_reset_restarts_may_wrap_a_kept_env():
    assert env_pool.reusable(EnvConfig("HalfCheetah-v5", wrappers=({"name": "clip_reward"},
                                                                    {"name": "time_limit", "max_episode_steps": 64})))
    assert not env_pool.reusable(EnvConfig("CartPole-v1", wrappers=({"name": "frame_stack", "size": 2},)))
