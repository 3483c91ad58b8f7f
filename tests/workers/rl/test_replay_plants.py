"""workers/rl/replay.py and the forced-error plant (workers.rl.plants): an episode whose only
discrepancy is the plant of its last observation's element 0 replays as `planted`; every other
check still runs, so a plant beside any other fault, or a plant anywhere else, is an ordinary
rejection."""

import dataclasses

import numpy as np

from workers.rl.plants import plant_episode, plant_float32
from workers.rl.replay import replay_episode
from workers.rl.rollout import decode_episode, encode_episode, rollout


def episodes_of(policy, steps=200):
    return rollout(policy, "CartPole-v1", task_seed=5, round_=1, shard=2, num_steps=steps)


def copy(ep):
    return decode_episode(encode_episode(ep))


def test_an_unplanted_episode_replays_as_ok(cartpole_policy):
    for ep in episodes_of(cartpole_policy):
        v = replay_episode(ep, cartpole_policy)
        assert v.ok and not v.planted and v.mismatch is None


def test_a_planted_episode_replays_as_planted_and_only_as_planted(cartpole_policy):
    for ep in episodes_of(cartpole_policy):
        honest = replay_episode(ep, cartpole_policy)
        planted = plant_episode(ep)
        v = replay_episode(planted, cartpole_policy)
        assert (v.ok, v.planted, v.mismatch.field, v.mismatch.step) == (False, True, "obs", ep.steps), v
        assert v.mismatch.expected == ep.obs[-1].tolist() and v.mismatch.got == planted.obs[-1].tolist()
        # every step was still replayed and every policy check still ran
        assert (v.steps_checked, v.max_logp_error, v.max_value_error) == \
            (honest.steps_checked, honest.max_logp_error, honest.max_value_error)
        assert not v  # not an accepted episode


def test_a_plant_beside_another_fault_is_an_ordinary_rejection(cartpole_policy):
    ep = episodes_of(cartpole_policy)[0]
    reward = plant_episode(ep)
    reward.rewards[3] = 2.0
    v = replay_episode(reward, cartpole_policy)
    assert (v.ok, v.planted, v.mismatch.field, v.mismatch.step) == (False, False, "reward", 3), v
    logp = plant_episode(ep)
    logp.logp[0] += 0.01
    v = replay_episode(logp, cartpole_policy)
    assert (v.ok, v.planted, v.mismatch.field, v.mismatch.step) == (False, False, "logp", 0), v
    flag = plant_episode(ep)  # a flag after the planted observation: still checked at that step
    flag.terminated[-1] = not flag.terminated[-1]
    v = replay_episode(flag, cartpole_policy)
    assert (v.ok, v.planted, v.mismatch.field, v.mismatch.step) == (False, False, "terminated", ep.steps - 1), v
    drawn = plant_episode(ep)  # an action not drawn from the policy (which keeps the simulation going)
    drawn.actions[ep.steps - 1] = 1 - drawn.actions[ep.steps - 1]
    v = replay_episode(drawn, cartpole_policy)
    assert not v.ok and not v.planted, v


def test_a_plant_anywhere_else_is_an_obs_mismatch(cartpole_policy):
    ep = episodes_of(cartpole_policy)[0]
    earlier = copy(ep)
    earlier.obs[-2, 0] = plant_float32(earlier.obs[-2, 0])  # the observation before the last
    v = replay_episode(earlier, cartpole_policy)
    assert (v.planted, v.mismatch.field, v.mismatch.step) == (False, "obs", ep.steps - 1), v
    other = copy(ep)
    other.obs[-1, 1] = plant_float32(other.obs[-1, 1])  # element 1 of the last observation
    v = replay_episode(other, cartpole_policy)
    assert (v.planted, v.mismatch.field, v.mismatch.step) == (False, "obs", ep.steps), v
    both = plant_episode(other)  # element 0 planted too, element 1 still wrong
    assert not replay_episode(both, cartpole_policy).planted
    far = copy(ep)  # two ulps: not the plant
    far.obs[-1, 0] = np.nextafter(np.nextafter(far.obs[-1, 0], np.float32(np.inf)), np.float32(np.inf))
    v = replay_episode(far, cartpole_policy)
    assert (v.planted, v.mismatch.field, v.mismatch.step) == (False, "obs", ep.steps), v


def test_planting_twice_is_no_plant(cartpole_policy):
    ep = episodes_of(cartpole_policy)[0]
    twice = plant_episode(plant_episode(ep))
    assert encode_episode(twice) == encode_episode(ep)
    assert replay_episode(twice, cartpole_policy).ok


def test_in_an_episode_without_steps_the_last_observation_is_the_reset_one(cartpole_policy):
    ep = episodes_of(cartpole_policy)[0]
    empty = dataclasses.replace(ep, obs=ep.obs[:1].copy(), actions=ep.actions[:0], rewards=ep.rewards[:0],
                                terminated=ep.terminated[:0], truncated=ep.truncated[:0], logp=ep.logp[:0],
                                values=ep.values[:0], end="cut")
    assert replay_episode(empty, cartpole_policy).ok
    v = replay_episode(plant_episode(empty), cartpole_policy)
    assert (v.ok, v.planted, v.mismatch.field, v.mismatch.step) == (False, True, "obs", 0), v
    other = copy(empty)
    other.obs[0, 1] = plant_float32(other.obs[0, 1])
    assert not replay_episode(other, cartpole_policy).planted
