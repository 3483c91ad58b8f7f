"""Environments a process keeps between replays, for the families whose reset erases all they hold.

A validator replays a few short segments a round, each in an env reset with its episode's seed
(and restored from a committed snapshot); making a MuJoCo env (compiling its model) costs more
than stepping one of its segments. `lent(config)` hands out an env of that EnvConfig, kept from an
earlier replay where that is safe, and takes it back afterwards (an env whose replay raised is
closed, never kept).

Safe means: `reset(seed=...)` on a used env leaves it exactly as on a fresh one, whatever state a
replay restored into it before, since a snapshot comes from another node and may be crafted.
Samplers already rely on a reset env being as good as a fresh one (workers.rl.rollout reuses its
envs across episodes; the snapshot joins check it); here the history is another node's, so only
families whose reset is total are kept: MuJoCo (`mj_resetData` resets all of mjData, the only
physics state a snapshot can write; the model is never written) and classic control (reset sets
the whole `state` and CartPole's `steps_beyond_terminated`), with no wrapper but the time limit
(its step count restarts at reset) and reward clipping (stateless). Every other env is made
afresh for each replay, as before.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

import gymnasium as gym

from workers.rl.envs import EnvConfig, families
from workers.rl.envs.wrappers import CLIP_REWARD, TIME_LIMIT

KEPT_CONFIGS = 4
"""EnvConfigs whose envs a process keeps (the least recently lent one's are closed first)."""
KEPT_PER_CONFIG = 2
"""Idle envs kept of one EnvConfig."""

_REUSABLE_FAMILIES = (families.MUJOCO, families.CLASSIC)
_REUSABLE_WRAPPERS = {TIME_LIMIT, CLIP_REWARD}

_idle: OrderedDict[EnvConfig, list[gym.Env]] = OrderedDict()


def reusable(config: EnvConfig) -> bool:
    """Whether an env of `config` may serve another replay after a reset (module doc)."""
    return config.family in _REUSABLE_FAMILIES and set(config.wrapper_names()) <= _REUSABLE_WRAPPERS


@contextmanager
def lent(config: EnvConfig) -> Iterator[gym.Env]:
    """An env of `config` for one replay, which must reset it (with its seed) before use."""
    envs = _idle.get(config)
    env = envs.pop() if envs else config.make()
    try:
        yield env
    except BaseException:
        env.close()
        raise
    _give_back(config, env)


def _give_back(config: EnvConfig, env: gym.Env) -> None:
    if not reusable(config):
        env.close()
        return
    envs = _idle.setdefault(config, [])
    _idle.move_to_end(config)
    if len(envs) >= KEPT_PER_CONFIG:
        env.close()
    else:
        envs.append(env)
    while len(_idle) > KEPT_CONFIGS:
        _, dropped = _idle.popitem(last=False)
        for e in dropped:
            e.close()


def clear() -> None:
    """Close every kept env."""
    while _idle:
        _, envs = _idle.popitem()
        for e in envs:
            e.close()
