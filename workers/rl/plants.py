"""The forced-error plant on a float32 and on an episode (SPECIFICATION.md 5.5.3; the worker's
side of it is workers.roles.plants): the lowest mantissa bit flipped, one ulp, its own inverse.
A forced sampler plants element 0 of every episode's last observation, which only a replay of the
episode to its end reveals (`is_planted_obs` is how workers.rl.replay tells it from a fault)."""

from __future__ import annotations

import dataclasses

import numpy as np

from workers.rl.rollout import Episode


def plant_float32(x) -> np.float32:
    """`x` as a float32 with its lowest mantissa bit flipped: one ulp away, and its own inverse
    (plant_float32(plant_float32(x)) is x, bit for bit, NaN payloads included)."""
    bits = np.array(x, dtype=np.float32).reshape(()).view(np.uint32)
    return (bits ^ np.uint32(1)).view(np.float32)[()]


def is_planted_obs(replayed: np.ndarray, recorded: np.ndarray) -> bool:
    """Whether the float32 observation `recorded` is exactly `replayed` with element 0 planted
    (and every other element equal, bit for bit)."""
    a = np.ascontiguousarray(replayed, dtype=np.float32).reshape(-1)
    b = np.ascontiguousarray(recorded, dtype=np.float32).reshape(-1)
    if np.shape(replayed) != np.shape(recorded) or a.size == 0:
        return False
    return a[1:].tobytes() == b[1:].tobytes() and plant_float32(a[0]).tobytes() == b[0].tobytes()


def plant_episode(ep: Episode) -> Episode:
    """A copy of `ep` (its arrays copied too) with obs[-1][0] planted, every other value as it is."""
    arrays = {f.name: np.array(getattr(ep, f.name), copy=True) for f in dataclasses.fields(ep)
              if isinstance(getattr(ep, f.name), np.ndarray)}
    arrays["obs"][-1, 0] = plant_float32(arrays["obs"][-1, 0])
    return dataclasses.replace(ep, **arrays, meta=dict(ep.meta))
