"""EnvConfig: an environment id with its keyword arguments and wrappers, as a task spec names it.

`EnvConfig.make()` builds it and checks what it builds, so a bad spec fails with a message that
says what to change instead of deep inside a rollout. Every function here that takes an
environment takes an EnvConfig or an id (an id means `EnvConfig(env_id)`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from workers.rl.envs import families
from workers.rl.envs.spaces import EnvError, SpaceSpec, space_spec
from workers.rl.envs.wrappers import (
    ALE_KWARGS,
    ATARI_PREPROCESSING,
    ATARI_TIME_LIMIT,
    FRAME_STACK,
    TIME_LIMIT,
    WrapperConfig,
    apply,
    check_order,
    wrapper_config,
)

Scalar = None | bool | int | float | str


@dataclass(frozen=True)
class EnvConfig:
    """A gymnasium id, keyword arguments for its constructor, and wrappers applied in order.

    Construct with `kwargs` as a dict or pairs and `wrappers` as JSON dicts ({"name": ..., args})
    or WrapperConfigs: they are checked and normalised (kwargs sorted, every wrapper argument
    filled in), so equal configurations compare and hash equal. Raises EnvError."""

    env_id: str
    kwargs: tuple[tuple[str, Scalar], ...] = ()
    wrappers: tuple[WrapperConfig, ...] = ()

    def __post_init__(self):
        families.check_id(self.env_id)
        try:
            pairs = tuple(self.kwargs.items() if isinstance(self.kwargs, dict) else self.kwargs)
            kwargs = dict(pairs)
        except (TypeError, ValueError):
            raise EnvError(f"{self.env_id}: kwargs are a dict or (name, value) pairs, got {self.kwargs!r}") from None
        if len(kwargs) != len(pairs):
            raise EnvError(f"{self.env_id}: a keyword argument is given twice in {self.kwargs!r}")
        families.check_kwargs(self.env_id, kwargs)
        object.__setattr__(self, "kwargs", tuple(sorted(kwargs.items())))
        object.__setattr__(self, "wrappers", tuple(wrapper_config(w) for w in self.wrappers))
        check_order(self.wrappers, atari=self.family == families.ATARI)

    @property
    def family(self) -> str:
        return families.family(self.env_id)

    def wrapper_names(self) -> tuple[str, ...]:
        return tuple(w.name for w in self.wrappers)

    def make(self) -> gym.Env:
        """The environment: `gymnasium.make` with the kwargs, the family's own adapter (MinAtar's
        bool planes -> uint8 0/255), then the wrappers. EnvError if it cannot be built or its spaces
        are not ones our policies take (the env is closed first)."""
        made = {"max_episode_steps": -1} if TIME_LIMIT in self.wrapper_names() else {}
        if ATARI_PREPROCESSING in self.wrapper_names():
            made |= ALE_KWARGS
        families.prepare(self.env_id)
        try:
            env = gym.make(self.env_id, **dict(self.kwargs), **made)
        except gym.error.DependencyNotInstalled as exc:
            raise EnvError(f"{self.env_id} needs an extra package: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - a constructor given a spec's kwargs may raise anything
            raise EnvError(f"{self.env_id} cannot be made with env_kwargs {dict(self.kwargs)}: "
                           f"{type(exc).__name__}: {exc}") from exc
        try:
            if self.family == families.MINATAR:
                env = MinAtarPlanes(env)
            for wrapper in self.wrappers:
                env = apply(env, wrapper)
            if ATARI_PREPROCESSING in self.wrapper_names() and TIME_LIMIT not in self.wrapper_names():
                env = gym.wrappers.TimeLimit(env, ATARI_TIME_LIMIT)
            self._check_made(env)
        except BaseException:
            env.close()
            raise
        return env

    def _check_made(self, env: gym.Env) -> None:
        space_spec(env)
        if self.family == families.ATARI and ATARI_PREPROCESSING not in self.wrapper_names():
            raise EnvError(
                f'{self.env_id} gives raw 210x160 RGB frames, more than the CNN policies take: add "wrappers": '
                f'[{{"name": "{ATARI_PREPROCESSING}"}}, {{"name": "{FRAME_STACK}", "size": 4}}] (84x84 gray '
                f'frames, 4 stacked; frame skip and sticky actions are {ATARI_PREPROCESSING}\'s arguments)')

    def space(self) -> SpaceSpec:
        """The `SpaceSpec` of the environment, or EnvError: made, reset, stepped once (kwargs a
        constructor takes may still break its reset or step), read and closed; remembered per
        EnvConfig, as every spec validation asks again."""
        return _checked_space(self)

    def time_limit(self) -> int | None:
        """The step at which episodes are truncated, the only truncation there is (None: no
        limit): the time_limit wrapper's, else ATARI_TIME_LIMIT under atari_preprocessing, else the
        registered TimeLimit's."""
        for w in self.wrappers:
            if w.name == TIME_LIMIT:
                return int(w.arg("max_episode_steps"))
        if ATARI_PREPROCESSING in self.wrapper_names():
            return ATARI_TIME_LIMIT
        return gym.spec(self.env_id).max_episode_steps

    def fixed_episode_steps(self) -> int | None:
        """The steps every episode of this env runs when it never ends one before its time limit
        (families.never_terminates); None when episodes may end earlier or have no limit."""
        if not families.never_terminates(self.env_id, dict(self.kwargs)):
            return None
        return self.time_limit()

    def kwargs_dict(self) -> dict:
        """The spec's "env_kwargs" JSON form."""
        return dict(self.kwargs)

    def wrappers_list(self) -> list[dict]:
        """The spec's "wrappers" JSON form (every argument written)."""
        return [w.to_dict() for w in self.wrappers]


@functools.lru_cache(maxsize=256)
def _checked_space(config: EnvConfig) -> SpaceSpec:
    env = config.make()
    try:
        env.action_space.seed(0)
        env.reset(seed=0)
        env.step(env.action_space.sample())
    except Exception as exc:  # noqa: BLE001 - the env's own code, run with a spec's kwargs
        raise EnvError(f"{config.env_id} with env_kwargs {dict(config.kwargs)} fails on its first reset or step: "
                       f"{type(exc).__name__}: {exc}") from exc
    finally:
        env.close()
    return space_spec(env)


class MinAtarPlanes(gym.ObservationWrapper):
    """MinAtar's bool channel planes recorded as uint8 0/255 (every MinAtar id gets it): pixels, as
    every image observation here, which a policy scales by 1/255 into [0, 1]."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.observation_space = spaces.Box(0, 255, shape=env.observation_space.shape, dtype=np.uint8)

    def reset(self, *, seed=None, options=None):
        # MinAtar's reset keeps the last action, which a sticky step repeats: an env reused for a
        # new episode would not start as a fresh one does (the validator's), so start it from
        # the action a new minatar.Environment holds
        self.env.unwrapped.game.last_action = 0
        return super().reset(seed=seed, options=options)

    def observation(self, observation):
        return np.asarray(observation, dtype=np.uint8) * np.uint8(255)


def as_config(env: str | EnvConfig) -> EnvConfig:
    """`env` itself, or `EnvConfig(env)` for an id."""
    return env if isinstance(env, EnvConfig) else EnvConfig(env)


def make_env(env: str | EnvConfig, **kwargs) -> gym.Env:
    """The environment `env` names (an EnvConfig, or an id with optional constructor kwargs),
    made and checked: EnvError for an unknown id (with close matches), a missing optional
    dependency, unknown kwargs or wrappers, or spaces `space_spec` does not support."""
    if kwargs:
        if isinstance(env, EnvConfig):
            raise EnvError("pass kwargs inside the EnvConfig, not beside it")
        return EnvConfig(env, tuple(kwargs.items())).make()
    return as_config(env).make()


def env_space_spec(env: str | EnvConfig) -> SpaceSpec:
    """The `SpaceSpec` of the environment (made, read and closed), or EnvError."""
    return as_config(env).space()


def time_limit(env: str | EnvConfig) -> int | None:
    """The step at which episodes of `env` are truncated (None: no limit)."""
    return as_config(env).time_limit()
