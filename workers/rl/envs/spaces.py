"""What a policy needs to know about an environment's spaces, and the spaces we support.

Observations: a flat `Box` (recorded as float32), or an image `Box` of uint8 (H, W, C), channels
last. Actions: `Discrete` (categorical policy) or a flat `Box` with finite bounds (diagonal
Gaussian policy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
from gymnasium import spaces

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
    image = isinstance(obs, spaces.Box) and len(obs.shape) == 3 and obs.dtype == np.uint8
    if not image and (not isinstance(obs, spaces.Box) or len(obs.shape) != 1):
        hint = (" An image must be uint8 (height, width, channels): keep a channel axis (1 for gray)."
                if isinstance(obs, spaces.Box) and len(obs.shape) in (2, 3) else "")
        raise EnvError(
            f"{name}: observation space {obs} is not supported; policies here take a flat Box "
            f"(1-D vector) or a uint8 image (H, W, C) observation.{hint} A spec's wrappers reshape images "
            f"only (atari_preprocessing, grayscale, resize, frame_stack), so pick an environment with a "
            f"supported space: `decentrl task spec --list` shows those with a preset")
    obs_fields = (dict(obs_dim=math.prod(obs.shape), obs_shape=tuple(int(n) for n in obs.shape), obs_dtype=UINT8)
                  if image else dict(obs_dim=int(obs.shape[0])))
    act = env.action_space
    if isinstance(act, spaces.Discrete):
        if int(act.start) != 0:
            raise EnvError(f"{name}: Discrete action space must start at 0, got start={act.start}")
        return SpaceSpec(action_kind=DISCRETE, action_dim=int(act.n), **obs_fields)
    if isinstance(act, spaces.Box) and len(act.shape) == 1:
        if not (np.all(np.isfinite(act.low)) and np.all(np.isfinite(act.high))):
            raise EnvError(f"{name}: Box action space {act} has infinite bounds; a Gaussian policy "
                           f"here needs finite bounds to clip its samples to")
        return SpaceSpec(
            action_kind=BOX, action_dim=int(act.shape[0]),
            action_low=tuple(float(x) for x in act.low),
            action_high=tuple(float(x) for x in act.high), **obs_fields,
        )
    raise EnvError(
        f"{name}: action space {act} is not supported; use a Discrete action space "
        f"(categorical policy) or a flat Box (Gaussian policy)")
