"""Synthetic episodes for training tests: random observations of any shape and dtype (uint8
images included), random discrete actions, rewards and ends as asked. Training cost does not
depend on the values, and a synthetic batch needs no environment."""

import numpy as np

from workers.rl.rollout import Episode


def synthetic_episodes(space, lengths, seed=0, ends=None, reward_scale=1.0):
    """One episode per entry of `lengths` for `space` (ends: "terminated" unless given)."""
    rng = np.random.default_rng(seed)
    episodes = []
    for i, t in enumerate(lengths):
        end = ends[i] if ends else "terminated"
        if space.obs_dtype == "uint8":
            obs = rng.integers(0, 256, (t + 1, *space.shape), dtype=np.uint8)
        else:
            obs = (rng.standard_normal((t + 1, *space.shape)) * 3 + 1).astype(np.float32)
        terminated, truncated = np.zeros(t, bool), np.zeros(t, bool)
        terminated[-1], truncated[-1] = end == "terminated", end == "truncated"
        episodes.append(Episode(
            env_id="synthetic", task_seed=0, round=0, shard=0, index=i, env_seed=i, sample_seed=i,
            policy=bytes(32), end=end, action_kind=space.action_kind, obs=obs,
            actions=rng.integers(0, space.action_dim, t).astype(np.int64),
            rewards=rng.standard_normal(t) * reward_scale, terminated=terminated, truncated=truncated,
            logp=np.zeros(t, np.float32), values=np.zeros(t, np.float32)))
    return episodes
