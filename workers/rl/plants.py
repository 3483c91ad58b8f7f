"""The forced-error plant on a value and on an episode (SPECIFICATION.md 5.5.3; the worker's side
of it is workers.roles.plants): the lowest bit of a value flipped (one ulp of a float32 or a
float64, one level of a uint8 pixel), its own inverse. Where a forced sampler plants
(`plant_episode`):

* an episode without snapshots: element 0 of its last observation, which only a replay of the
  episode to its end reveals, and which no step acts on;
* an episode with snapshots: the reward of the last step of every segment, so a replay of any one
  segment reveals it (a segment's last observation is the next segment's first, which the policy
  acts on; a reward is acted on by no policy forward).

`is_planted_obs` and `is_planted_reward` are how workers.rl.replay tells a plant from a fault."""

from __future__ import annotations

import dataclasses

import numpy as np

from workers.rl.episode import Episode, segment_bounds

_BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64, np.dtype(np.uint8): np.uint8}


def plant_value(x, dtype=np.float32):
    """`x` as a `dtype` (float32, float64 or uint8) with its lowest bit flipped: one ulp (one pixel
    level) away, and its own inverse, bit for bit, NaN payloads included."""
    dtype = np.dtype(dtype)
    bits = np.array(x, dtype=dtype).reshape(()).view(_BITS[dtype])
    return (bits ^ _BITS[dtype](1)).view(dtype)[()]


def plant_float32(x) -> np.float32:
    """`plant_value(x, float32)`: a float32 with its lowest mantissa bit flipped."""
    return plant_value(x, np.float32)


def is_planted_obs(replayed: np.ndarray, recorded: np.ndarray) -> bool:
    """Whether the observation `recorded` is exactly `replayed` (same shape and dtype) with its
    element 0 planted and every other element equal, bit for bit."""
    replayed, recorded = np.asarray(replayed), np.asarray(recorded)
    if replayed.shape != recorded.shape or replayed.dtype != recorded.dtype or replayed.size == 0:
        return False
    if replayed.dtype not in _BITS:
        return False
    a, b = np.ascontiguousarray(replayed).reshape(-1), np.ascontiguousarray(recorded).reshape(-1)
    return a[1:].tobytes() == b[1:].tobytes() and plant_value(a[0], a.dtype).tobytes() == b[0].tobytes()


def is_planted_reward(replayed: float, recorded: float) -> bool:
    """Whether the float64 reward `recorded` is exactly `replayed` planted."""
    return plant_value(replayed, np.float64).tobytes() == np.float64(recorded).tobytes()


def plant_episode(ep: Episode) -> Episode:
    """A copy of `ep` (its arrays copied too) carrying the plant (module doc), every other value as it is."""
    arrays = {f.name: np.array(getattr(ep, f.name), copy=True) for f in dataclasses.fields(ep)
              if isinstance(getattr(ep, f.name), np.ndarray)}
    if ep.steps_per_snapshot:
        for j in range(ep.segments):
            _, stop = segment_bounds(ep, j)
            if stop > 0:
                arrays["rewards"][stop - 1] = plant_value(arrays["rewards"][stop - 1], np.float64)
    else:
        last = arrays["obs"][-1].reshape(-1)  # a view: planting it plants the episode's copy
        last[0] = plant_value(last[0], last.dtype)
    return dataclasses.replace(ep, **arrays, meta=dict(ep.meta))
