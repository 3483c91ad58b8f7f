"""workers/rl/replay.py: honest episodes pass; altered observations, rewards, actions, log-probs,
seeds and policies are caught at the first wrong step."""

import dataclasses

import numpy as np
import pytest

from workers.rl.envs import make_env
from workers.rl.policy import digest
from workers.rl.replay import LOGP_ATOL, replay_episode
from workers.rl.rollout import decode_episode, encode_episode, rollout


def episodes_of(policy, env_id="CartPole-v1", steps=200):
    return rollout(policy, env_id, task_seed=5, round_=1, shard=2, num_steps=steps)


def copy(ep):
    return decode_episode(encode_episode(ep))


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1", "Pendulum-v1", "MountainCarContinuous-v0"])
def test_honest_episodes_are_accepted(env_id, policy_for):
    policy = policy_for(env_id, seed=2)
    for ep in episodes_of(policy, env_id):
        verdict = replay_episode(ep, policy, env_id=env_id, task_seed=5, round_=1, shard=2)
        assert verdict.ok, verdict.mismatch
        assert verdict.steps_checked == ep.steps and verdict.max_logp_error <= LOGP_ATOL


def test_altered_observation_is_pinpointed(cartpole_policy):
    ep = copy(episodes_of(cartpole_policy)[0])
    ep.obs[7, 2] += 1e-6
    v = replay_episode(ep, cartpole_policy)
    assert not v.ok and (v.mismatch.field, v.mismatch.step) == ("obs", 7)


def test_altered_reward_is_pinpointed(pendulum_policy):
    ep = copy(episodes_of(pendulum_policy, "Pendulum-v1")[0])
    ep.rewards[15] = np.nextafter(ep.rewards[15], 0.0)
    v = replay_episode(ep, pendulum_policy)
    assert (v.ok, v.mismatch.field, v.mismatch.step) == (False, "reward", 15)


def test_altered_action_breaks_the_simulation(cartpole_policy):
    ep = copy(episodes_of(cartpole_policy)[0])
    ep.actions[4] = 1 - ep.actions[4]
    v = replay_episode(ep, cartpole_policy)
    assert (v.mismatch.field, v.mismatch.step, v.steps_checked) == ("obs", 5, 4)


def resimulate(ep, policy):
    """The episode with its observations, rewards and flags recomputed from its actions: what a
    sampler choosing its own actions but simulating honestly would commit."""
    env = make_env(ep.env_id)
    obs = [env.reset(seed=ep.env_seed)[0]]
    rewards, term, trunc = [], [], []
    for a in ep.actions:
        o, r, te, tr, _ = env.step(int(a))
        obs.append(o), rewards.append(r), term.append(te), trunc.append(tr)
        if te or tr:
            break
    n = len(rewards)
    return dataclasses.replace(ep, obs=np.array(obs, dtype=np.float32), rewards=np.array(rewards),
                               terminated=np.array(term), truncated=np.array(trunc),
                               actions=ep.actions[:n], logp=ep.logp[:n], values=ep.values[:n],
                               end="terminated" if term[-1] else "truncated" if trunc[-1] else "cut")


def test_chosen_action_is_caught_by_the_seeded_draw(cartpole_policy):
    ep = copy(episodes_of(cartpole_policy)[0])
    ep.actions[3] = 1 - ep.actions[3]
    v = replay_episode(resimulate(ep, cartpole_policy), cartpole_policy)
    assert (v.ok, v.mismatch.field, v.mismatch.step) == (False, "sample", 3)


def test_a_chosen_action_late_in_a_long_episode_is_caught_at_its_step(cartpole_policy):
    # the draws of a whole episode are made at once: the one checked at step t must be the t-th
    ep = copy(max(episodes_of(cartpole_policy, steps=600), key=lambda e: e.steps))
    t = ep.steps - 2
    ep.actions[t] = 1 - ep.actions[t]
    v = replay_episode(resimulate(ep, cartpole_policy), cartpole_policy)
    assert (v.ok, v.mismatch.field, v.mismatch.step) == (False, "sample", t)


def test_an_action_outside_the_action_space_is_rejected_as_such(cartpole_policy):
    ep = copy(episodes_of(cartpole_policy)[0])
    ep.actions[6] = 2
    v = replay_episode(ep, cartpole_policy)
    assert (v.ok, v.mismatch.field, v.mismatch.step, v.mismatch.got) == (False, "action", 6, 2)


def test_gaussian_action_nudge_is_caught(pendulum_policy):
    ep = copy(episodes_of(pendulum_policy, "Pendulum-v1")[0])
    ep.actions[0, 0] += 0.01
    v = replay_episode(ep, pendulum_policy)
    assert not v.ok and v.mismatch.step in (0, 1)  # obs after step 0 (or the draw if clipped)


def test_log_prob_tolerance(cartpole_policy):
    ep = copy(episodes_of(cartpole_policy)[0])
    ep.logp[2] += LOGP_ATOL / 10
    assert replay_episode(ep, cartpole_policy).ok
    ep.logp[9] += 0.01
    v = replay_episode(ep, cartpole_policy)
    assert (v.mismatch.field, v.mismatch.step) == ("logp", 9)


def test_wrong_seeds_policy_and_coordinates_are_rejected(cartpole_policy, policy_for):
    ep = episodes_of(cartpole_policy)[0]
    assert replay_episode(dataclasses.replace(ep, env_seed=ep.env_seed ^ 1), cartpole_policy).mismatch.field == "seeds"
    other = policy_for("CartPole-v1", seed=99)
    assert replay_episode(ep, other).mismatch.field == "policy"
    assert replay_episode(ep, cartpole_policy, policy_digest=digest(other)).mismatch.field == "policy"
    v = replay_episode(ep, cartpole_policy, round_=2)
    assert v.mismatch.field == "coordinates" and v.mismatch.expected == {"round": 2}


def test_episode_continuing_after_the_end_is_rejected(cartpole_policy):
    ep = episodes_of(cartpole_policy)[0]
    assert ep.end == "terminated"
    longer = dataclasses.replace(ep, end="cut", terminated=np.zeros_like(ep.terminated))
    v = replay_episode(longer, cartpole_policy)
    assert (v.mismatch.field, v.mismatch.step) == ("terminated", ep.steps - 1)
