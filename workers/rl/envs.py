"""gymnasium environments by id, checked for what our policies can drive.

A task spec names an environment by its gymnasium id. `make_env` builds it and checks its spaces
up front, so a bad spec fails with a message that says what to change instead of deep inside a
rollout. Supported: a flat `Box` observation space, and a `Discrete` (categorical policy) or flat
`Box` (diagonal Gaussian policy) action space with finite bounds. Every classic-control env
qualifies; those are the ids listed in `CLASSIC_CONTROL`.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
from gymnasium import spaces

CLASSIC_CONTROL = (
    "CartPole-v1",
    "Acrobot-v1",
    "MountainCar-v0",
    "Pendulum-v1",
    "MountainCarContinuous-v0",
)
"""Environment ids known to work end to end (rollout, replay, training)."""

DISCRETE = "discrete"
BOX = "box"
FLOAT32 = "float32"
UINT8 = "uint8"
OBS_DTYPES = (FLOAT32, UINT8)
"""How observations are recorded: float vectors, or image pixels (0..255)."""


class EnvError(ValueError):
    """An environment id or space this package cannot use; the message says what to do."""


@dataclass(frozen=True)
class SpaceSpec:
    """What a policy needs to know about an environment's spaces (JSON-friendly, hashable)."""

    obs_dim: int
    """Length of the flat observation vector."""
    action_kind: str
    """`"discrete"` (categorical over `action_dim` choices) or `"box"` (real vector)."""
    action_dim: int
    """Number of discrete actions, or the length of the action vector for `"box"`."""
    action_low: tuple[float, ...] | None = None
    """Lower bounds of a `"box"` action (sampled actions are clipped to them); None if discrete."""
    action_high: tuple[float, ...] | None = None
    """Upper bounds of a `"box"` action; None if discrete."""
    obs_shape: tuple[int, ...] | None = None
    """Shape of one observation: None for a flat vector of `obs_dim`, or an image's (H, W, C)
    (channels last, as gymnasium gives them); `obs_dim` is then the product of the shape."""
    obs_dtype: str = FLOAT32
    """Element type of observations as recorded: "float32", or "uint8" for image pixels."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The observation's shape, flat vectors included."""
        return (self.obs_dim,) if self.obs_shape is None else self.obs_shape

    @property
    def image(self) -> bool:
        return self.obs_shape is not None

    def to_dict(self) -> dict:
        d = {
            "obs_dim": self.obs_dim,
            "action_kind": self.action_kind,
            "action_dim": self.action_dim,
            "action_low": None if self.action_low is None else list(self.action_low),
            "action_high": None if self.action_high is None else list(self.action_high),
        }
        # Written only when set: a flat float32 space keeps the dict (and every policy digest
        # that holds it) of the spaces before images.
        if self.obs_shape is not None:
            d["obs_shape"] = list(self.obs_shape)
        if self.obs_dtype != FLOAT32:
            d["obs_dtype"] = self.obs_dtype
        return d

    @classmethod
    def from_dict(cls, d: dict) -> SpaceSpec:
        low, high, shape = d.get("action_low"), d.get("action_high"), d.get("obs_shape")
        spec = cls(
            obs_dim=int(d["obs_dim"]),
            action_kind=str(d["action_kind"]),
            action_dim=int(d["action_dim"]),
            action_low=None if low is None else tuple(float(x) for x in low),
            action_high=None if high is None else tuple(float(x) for x in high),
            obs_shape=None if shape is None else tuple(int(x) for x in shape),
            obs_dtype=str(d.get("obs_dtype", FLOAT32)),
        )
        spec.validate()
        return spec

    def validate(self) -> None:
        if self.obs_dim < 1 or self.action_dim < 1:
            raise EnvError(f"space sizes must be positive, got obs_dim={self.obs_dim}, "
                           f"action_dim={self.action_dim}")
        if self.obs_dtype not in OBS_DTYPES:
            raise EnvError(f"obs_dtype must be one of {', '.join(OBS_DTYPES)}, got {self.obs_dtype!r}")
        if self.obs_shape is not None:
            if len(self.obs_shape) != 3 or any(n < 1 for n in self.obs_shape):
                raise EnvError(f"obs_shape must be an image's (height, width, channels), got {self.obs_shape}")
            if math.prod(self.obs_shape) != self.obs_dim:
                raise EnvError(f"obs_dim {self.obs_dim} is not the size of obs_shape {self.obs_shape}")
        if self.action_kind == DISCRETE:
            if self.action_low is not None or self.action_high is not None:
                raise EnvError("a discrete action space has no bounds; pass action_low/high=None")
        elif self.action_kind == BOX:
            if self.action_low is None or self.action_high is None:
                raise EnvError("a box action space needs action_low and action_high")
            if not (len(self.action_low) == len(self.action_high) == self.action_dim):
                raise EnvError(f"box bounds must have action_dim={self.action_dim} entries")
        else:
            raise EnvError(f"action_kind must be {DISCRETE!r} or {BOX!r}, got {self.action_kind!r}")


def space_spec(env: gym.Env) -> SpaceSpec:
    """The `SpaceSpec` of `env`, or EnvError naming the unsupported space."""
    name = env.spec.id if env.spec is not None else type(env).__name__
    obs = env.observation_space
    if not isinstance(obs, spaces.Box) or len(obs.shape) != 1:
        raise EnvError(
            f"{name}: observation space {obs} is not supported; policies here take a flat Box "
            f"(1-D vector) observation. Wrap the env (e.g. gymnasium.wrappers.FlattenObservation) "
            f"or pick one of {', '.join(CLASSIC_CONTROL)}")
    act = env.action_space
    if isinstance(act, spaces.Discrete):
        if int(act.start) != 0:
            raise EnvError(f"{name}: Discrete action space must start at 0, got start={act.start}")
        return SpaceSpec(obs_dim=int(obs.shape[0]), action_kind=DISCRETE, action_dim=int(act.n))
    if isinstance(act, spaces.Box) and len(act.shape) == 1:
        if not (np.all(np.isfinite(act.low)) and np.all(np.isfinite(act.high))):
            raise EnvError(f"{name}: Box action space {act} has infinite bounds; a Gaussian policy "
                           f"here needs finite bounds to clip its samples to")
        return SpaceSpec(
            obs_dim=int(obs.shape[0]), action_kind=BOX, action_dim=int(act.shape[0]),
            action_low=tuple(float(x) for x in act.low),
            action_high=tuple(float(x) for x in act.high),
        )
    raise EnvError(
        f"{name}: action space {act} is not supported; use a Discrete action space "
        f"(categorical policy) or a flat Box (Gaussian policy)")


def env_space_spec(env_id: str) -> SpaceSpec:
    """The `SpaceSpec` of the environment `env_id` (made, read and closed), or EnvError."""
    env = make_env(env_id)
    try:
        return space_spec(env)
    finally:
        env.close()


def time_limit(env_id: str) -> int | None:
    """The step at which gymnasium's TimeLimit truncates `env_id`'s episodes (None: no limit)."""
    return gym.spec(env_id).max_episode_steps


def make_env(env_id: str, **kwargs) -> gym.Env:
    """`gymnasium.make(env_id, **kwargs)` after checking the id, then checking the spaces.

    Raises EnvError for an unknown id (with close matches), a missing optional dependency, or
    spaces `space_spec` does not support (the env is closed first)."""
    if not isinstance(env_id, str) or not env_id:
        raise EnvError(f"env_id must be a non-empty gymnasium id such as 'CartPole-v1', got {env_id!r}")
    if env_id not in gym.registry:
        close = difflib.get_close_matches(env_id, list(gym.registry), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise EnvError(f"unknown environment id {env_id!r}.{hint} "
                       f"Classic-control ids that work: {', '.join(CLASSIC_CONTROL)}")
    try:
        env = gym.make(env_id, **kwargs)
    except gym.error.DependencyNotInstalled as exc:
        raise EnvError(f"{env_id} needs an extra package: {exc}") from exc
    try:
        space_spec(env)
    except EnvError:
        env.close()
        raise
    return env
