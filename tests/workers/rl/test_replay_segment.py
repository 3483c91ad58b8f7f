"""workers/rl/replay.py replay_segment: an honest segment of an episode with snapshots replays from
its committed snapshot and joins the next, in classic control and MuJoCo; a tampered step, a
forged snapshot and a broken join are each rejected where they are, and a segment costs its own
steps only."""

import dataclasses

import numpy as np
import pytest

from tests.workers.rl.conftest import policy_for
from workers.rl.plants import plant_episode
from workers.rl.replay import replay_episode, replay_segment
from workers.rl.rollout import rollout

EVERY = 8


def episodes_of(env_id, steps, every=EVERY, hidden=(16, 16)):
    policy = policy_for(env_id, hidden=hidden)
    return policy, rollout(policy, env_id, task_seed=5, round_=1, shard=2, num_steps=steps, steps_per_snapshot=every)


@pytest.fixture(scope="module")
def cartpole():
    return episodes_of("CartPole-v1", 48)


def longest(episodes):
    return max(episodes, key=lambda ep: ep.steps)


def edited(ep, **arrays):
    return dataclasses.replace(ep, **{k: np.array(v, copy=True) for k, v in arrays.items()})


@pytest.mark.parametrize("env_id,steps", [("CartPole-v1", 48), ("Pendulum-v1", 40), ("Hopper-v5", 40),
                                          ("HalfCheetah-v5", 40)])
def test_honest_segments_replay_and_join(env_id, steps):
    policy, episodes = episodes_of(env_id, steps)
    for ep in episodes:
        assert len(ep.snapshots) == ep.segments == -(-ep.steps // EVERY)
        for j in range(ep.segments):
            v = replay_segment(ep, policy, j, env_id=env_id, task_seed=5, round_=1, shard=2)
            assert v.ok, (ep.index, j, v)
            assert v.steps_checked == min(EVERY, ep.steps - j * EVERY)  # its own steps, not the episode's
        assert replay_episode(ep, policy).ok


def test_a_tampered_step_is_rejected_by_its_segment_only(cartpole):
    policy, episodes = cartpole
    ep = longest(episodes)
    t = EVERY + 3  # in segment 1
    rewards = ep.rewards.copy()
    rewards[t] += 1.0
    bad = edited(ep, rewards=rewards)
    v = replay_segment(bad, policy, 1)
    assert not v.ok and not v.planted and (v.mismatch.field, v.mismatch.step) == ("reward", t)
    assert replay_segment(bad, policy, 0).ok and replay_segment(bad, policy, 2).ok
    assert replay_episode(bad, policy).mismatch.step == t


def test_a_late_log_prob_is_checked_at_its_step(cartpole):
    policy, episodes = cartpole
    ep = longest(episodes)
    t = 2 * EVERY + 1
    logp = ep.logp.copy()
    logp[t] -= 0.01
    v = replay_segment(edited(ep, logp=logp), policy, 2)
    assert (v.mismatch.field, v.mismatch.step) == ("logp", t)


def test_a_forged_snapshot_breaks_the_previous_segments_join(cartpole):
    policy, episodes = cartpole
    ep = longest(episodes)
    other = next(e for e in episodes if e is not ep)
    # a real CartPole state, but not the one segment 0 leads to
    forged = dataclasses.replace(ep, snapshots=(ep.snapshots[0], other.snapshots[1], *ep.snapshots[2:]))
    v = replay_segment(forged, policy, 0)
    assert (v.mismatch.field, v.mismatch.step) == ("join", EVERY)
    assert not replay_segment(forged, policy, 1).ok  # the honest data does not follow from it either
    assert replay_segment(forged, policy, 2).ok
    assert replay_episode(forged, policy).mismatch.field == "join"


def test_a_forged_first_snapshot_is_not_the_reset(cartpole):
    policy, episodes = cartpole
    ep = longest(episodes)
    other = next(e for e in episodes if e is not ep)  # another reset seed, another first state
    forged = dataclasses.replace(ep, snapshots=(other.snapshots[0], *ep.snapshots[1:]))
    v = replay_segment(forged, policy, 0)
    assert (v.mismatch.field, v.mismatch.step) == ("snapshot", 0)


def test_swapped_snapshots_break_the_join(cartpole):
    policy, episodes = cartpole
    ep = longest(episodes)
    s = list(ep.snapshots)
    s[1], s[2] = s[2], s[1]
    v = replay_segment(dataclasses.replace(ep, snapshots=tuple(s)), policy, 1)
    assert not v.ok and v.mismatch.field in ("obs", "reward", "join")


def test_bytes_that_are_no_snapshot_of_the_env_are_rejected(cartpole):
    policy, episodes = cartpole
    ep = longest(episodes)
    _, pendulum = episodes_of("Pendulum-v1", 16)
    for junk in (b"\x00not a snapshot", pendulum[0].snapshots[1]):
        bad = dataclasses.replace(ep, snapshots=(ep.snapshots[0], junk, *ep.snapshots[2:]))
        v = replay_segment(bad, policy, 1)
        assert (v.mismatch.field, v.mismatch.step) == ("snapshot", EVERY), v


def test_the_end_of_the_last_segment_is_checked(cartpole):
    policy, episodes = cartpole
    ep = next(e for e in episodes if e.end == "terminated")
    cut = dataclasses.replace(ep, end="cut")
    v = replay_segment(cut, policy, ep.segments - 1)
    assert v.mismatch.field == "end"


def test_a_planted_episode_is_planted_in_every_segment(cartpole):
    policy, episodes = cartpole
    ep = plant_episode(longest(episodes))
    for j in range(ep.segments):
        v = replay_segment(ep, policy, j)
        assert v.planted and not v.ok and v.mismatch.field == "reward", (j, v)
    assert replay_episode(ep, policy).planted


def test_an_episode_without_snapshots_has_no_segments(cartpole_policy):
    ep = rollout(cartpole_policy, "CartPole-v1", task_seed=5, round_=1, shard=2, num_steps=8)[0]
    assert ep.segments == 0
    with pytest.raises(ValueError, match="no snapshots"):
        replay_segment(ep, cartpole_policy, 0)
