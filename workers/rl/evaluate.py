"""Evaluation: the mean return of N episodes with deterministic actions (argmax / Gaussian mean).

Episodes run in lockstep, one batched forward pass per step over the envs still running, with env
seeds seed, seed + 1, ...; the result depends only on the policy, env (id, kwargs, wrappers), N and
seed. Observations reach the policy in their recorded dtype (uint8 images: the policy scales them),
as in rollouts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from workers.rl.envs import EnvConfig, make_env
from workers.rl.policy import ActorCritic


@dataclass(frozen=True)
class EvalResult:
    mean_return: float
    std_return: float
    returns: tuple[float, ...]
    env_steps: int


def evaluate(policy: ActorCritic, env: str | EnvConfig, episodes: int = 100, seed: int = 0) -> EvalResult:
    """Mean return of `episodes` episodes of `env` (an id or a spec's EnvConfig) under the policy's
    deterministic actions."""
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    dtype = policy.spec.obs_dtype
    envs = [make_env(env) for _ in range(episodes)]
    try:
        obs = [np.asarray(e.reset(seed=seed + i)[0], dtype=dtype) for i, e in enumerate(envs)]
        returns = [0.0] * episodes
        running = list(range(episodes))
        steps = 0
        policy.eval()
        while running:
            with torch.no_grad():
                actions = policy.deterministic_action(torch.from_numpy(np.stack([obs[i] for i in running])))
            still = []
            for i, a in zip(running, actions, strict=True):
                o, r, terminated, truncated, _ = envs[i].step(policy.env_action(a))
                obs[i] = np.asarray(o, dtype=dtype)
                returns[i] += float(r)
                steps += 1
                if not (terminated or truncated):
                    still.append(i)
            running = still
        return EvalResult(float(np.mean(returns)), float(np.std(returns)), tuple(returns), steps)
    finally:
        for e in envs:
            e.close()
