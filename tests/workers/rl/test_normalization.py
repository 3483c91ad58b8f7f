"""Observation and reward normalisation (workers/rl/normalization.py, PolicyConfig.obs_norm,
PPOConfig.norm_reward): the statistics are VecNormalize's, computed deterministically; a policy
normalises and clips with the statistics it carries, in its checkpoint; a round updates them."""

import numpy as np
import pytest
import torch

from tests.workers.rl.image_episodes import synthetic_episodes
from tests.workers.rl.test_policy_cnn import MINATAR
from workers.rl import ppo
from workers.rl.config import MINATAR_CNN, PolicyConfig, PPOConfig
from workers.rl.envs import DISCRETE, SpaceSpec
from workers.rl.normalization import (
    RunningStats,
    discounted_returns,
    obs_stats_after,
    return_stats_after,
    scaled_rewards,
)
from workers.rl.policy import digest, from_bytes, make_policy, to_bytes

FLAT = SpaceSpec(obs_dim=5, action_kind=DISCRETE, action_dim=3)
CONFIG = PPOConfig(batch_size=16, update_epochs=1, device="cpu")


def sb3_update(mean, var, count, x):
    """SB3's RunningMeanStd.update (stable_baselines3/common/running_mean_std.py), written out."""
    batch_mean, batch_var, batch_count = np.mean(x, axis=0), np.var(x, axis=0), x.shape[0]
    delta = batch_mean - mean
    tot = count + batch_count
    new_mean = mean + delta * batch_count / tot
    m2 = var * count + batch_var * batch_count + np.square(delta) * count * batch_count / tot
    return new_mean, m2 / tot, tot


def test_observation_statistics_are_vecnormalizes_and_deterministic():
    episodes = synthetic_episodes(FLAT, [30, 12, 7])
    stats = RunningStats.initial((5,))
    once = obs_stats_after(obs_stats_after(stats, episodes[:1]), episodes[1:])
    rows = [np.concatenate([ep.obs[:-1] for ep in eps]).astype(np.float64) for eps in (episodes[:1], episodes[1:])]
    mean, var, count = sb3_update(stats.mean, stats.var, stats.count, rows[0])
    mean, var, count = sb3_update(mean, var, count, rows[1])
    assert np.allclose(once.mean, mean, rtol=1e-12) and np.allclose(once.var, var, rtol=1e-12)
    assert once.count == count == 49 + 1e-4
    assert once.same(obs_stats_after(obs_stats_after(stats, episodes[:1]), episodes[1:]))  # bit for bit


def test_image_statistics_are_per_pixel():
    episodes = synthetic_episodes(MINATAR, [6, 4])
    stats = obs_stats_after(RunningStats.initial(MINATAR.shape), episodes)
    pixels = np.concatenate([ep.obs[:-1] for ep in episodes]).astype(np.float64)
    assert stats.mean.shape == (10, 10, 4) and np.allclose(stats.mean, pixels.mean(0) * 10 / (10 + 1e-4))


def test_returns_restart_at_each_episode_and_after_an_end_flag():
    episodes = synthetic_episodes(FLAT, [3, 2], ends=["cut", "terminated"])
    for ep in episodes:
        ep.rewards[:] = 1.0
    episodes[0].truncated[0] = True  # an end flag inside the episode restarts the return too
    assert discounted_returns(episodes, 0.5).tolist() == [1.0, 1.0, 1.5, 1.0, 1.5]


def test_rewards_are_scaled_by_the_returns_std_and_clipped():
    stats = RunningStats(np.float64(0.0), np.float64(4.0), 10.0)
    assert scaled_rewards(np.array([2.0, -100.0]), stats).tolist() == [2.0 / np.sqrt(4.0 + 1e-8), -10.0]


def test_a_policy_normalises_with_the_statistics_its_checkpoint_carries():
    policy = make_policy(FLAT, PolicyConfig(hidden_sizes=(8,), obs_norm=True))
    initial = digest(policy)
    stats = RunningStats(np.arange(5, dtype=np.float64), np.full(5, 0.25), 7.0)
    policy.set_obs_stats_(stats)
    obs = torch.tensor([[0.0, 1.0, 2.0, 3.0, 100.0]])
    with torch.no_grad():
        assert policy.features(obs).tolist() == [[0.0, 0.0, 0.0, 0.0, 10.0]]  # (x - mean) / 0.5, clipped
    loaded = from_bytes(to_bytes(policy))
    assert loaded.obs_stats().same(stats) and digest(loaded) == digest(policy) != initial
    assert loaded.obs_rms.mean.dtype == torch.float64


def test_negative_variance_in_a_checkpoint_is_refused():
    policy = make_policy(FLAT, PolicyConfig(hidden_sizes=(8,), obs_norm=True))
    policy.set_obs_stats_(RunningStats(np.zeros(5), np.full(5, -1.0), 3.0))
    with pytest.raises(ValueError, match="observation statistics are not statistics: .*negative variance"):
        from_bytes(to_bytes(policy))


def test_a_round_updates_the_observation_statistics_after_training_with_the_rounds(monkeypatch):
    monkeypatch.setattr(ppo, "misfit", lambda ep, space: None)  # synthetic episodes fit by construction
    for space, config in ((FLAT, PolicyConfig(hidden_sizes=(8,), obs_norm=True)),
                          (MINATAR, PolicyConfig(kind=MINATAR_CNN, hidden_sizes=(16,), obs_norm=True))):
        episodes = synthetic_episodes(space, [20, 12])
        policy = make_policy(space, config)
        policy = ppo.train_round(policy, episodes, CONFIG, ppo.TrainState())[0]
        assert policy.obs_stats().same(obs_stats_after(RunningStats.initial(space.shape), episodes))
        kept = ppo.train_round(make_policy(space, config), episodes, CONFIG, ppo.TrainState(),
                               update_obs_stats=False)[0]
        assert kept.obs_stats().same(RunningStats.initial(space.shape))
        assert [t.tolist() for t in kept.parameters()] == [t.tolist() for t in policy.parameters()]


def test_norm_reward_scales_the_rounds_rewards_and_keeps_the_statistics(monkeypatch):
    monkeypatch.setattr(ppo, "misfit", lambda ep, space: None)
    episodes = synthetic_episodes(FLAT, [20, 12], reward_scale=50.0)
    config = PPOConfig(batch_size=16, update_epochs=1, device="cpu", norm_reward=True)
    plain, state = ppo.TrainState(), ppo.TrainState()
    a = ppo.train_round(make_policy(FLAT, PolicyConfig(hidden_sizes=(8,))), episodes, CONFIG, plain)[0]
    b = ppo.train_round(make_policy(FLAT, PolicyConfig(hidden_sizes=(8,))), episodes, config, state)[0]
    assert plain.ret_rms is None and digest(a) != digest(b)
    assert state.ret_rms.same(return_stats_after(None, episodes, config.gamma))
    assert ppo.TrainState.from_bytes(state.to_bytes()).ret_rms.same(state.ret_rms)
    b_again = ppo.train_round(b, episodes, config, state)[0]  # round 2 starts from the kept statistics
    assert state.ret_rms.count == 2 * 32 + 1e-4 and b_again is b


def test_a_train_state_without_return_statistics_keeps_its_bytes():
    assert b"ret_rms" not in ppo.TrainState().to_bytes()
    with_stats = ppo.TrainState(ret_rms=RunningStats(np.float64(1.5), np.float64(2.0), 3.0))
    assert ppo.TrainState.from_bytes(with_stats.to_bytes()).ret_rms.same(with_stats.ret_rms)
