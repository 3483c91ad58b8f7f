"""Running statistics for observation and reward normalisation, as SB3's VecNormalize computes
them, but updated once a round from the round's recorded data, in a fixed order, in float64.

A trainer and every validator compute the same update from the same episodes, so the statistics
a checkpoint carries are checked like everything else in it (workers.roles.trace_check):

* observations (`obs_stats_after`): the round's training samples (each episode's observations but
  its final one, episodes in training order), raw as recorded. Their mean and variance are summed
  row after row (an explicit order: no reduction whose order a library may change), then merged
  into the running statistics by Chan et al.'s parallel update (SB3's RunningMeanStd).
* rewards (`return_stats_after`): the discounted return r_t + gamma * R_(t-1), restarted at each
  episode's first step and after a step whose terminated or truncated flag is set; its variance
  scales the rewards (`scaled_rewards`: r / sqrt(var + 1e-8), clipped to +-10).

Nothing here uses torch: the statistics are numpy float64 arrays.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

INITIAL_COUNT = 1e-4
"""The count running statistics start from (SB3's RunningMeanStd epsilon): the first update all
but replaces the initial mean 0 and variance 1."""
VAR_EPSILON = 1e-8
"""Added to the variance under the square root (VecNormalize's epsilon)."""
CLIP = 10.0
"""Normalised observations and scaled rewards are clipped to +-CLIP (VecNormalize's clip_obs, clip_reward)."""


@dataclass(frozen=True, eq=False)
class RunningStats:
    """Mean, variance (float64 arrays of one shape) and the count of the samples behind them."""

    mean: np.ndarray
    var: np.ndarray
    count: float

    @classmethod
    def initial(cls, shape: tuple[int, ...] = ()) -> RunningStats:
        return cls(np.zeros(shape, np.float64), np.ones(shape, np.float64), INITIAL_COUNT)

    def merged(self, batch_mean: np.ndarray, batch_var: np.ndarray, batch_count: int) -> RunningStats:
        """These statistics updated by a batch's moments (SB3's RunningMeanStd.update_from_moments)."""
        delta = batch_mean - self.mean
        total = self.count + batch_count
        mean = self.mean + delta * batch_count / total
        m2 = self.var * self.count + batch_var * batch_count + np.square(delta) * self.count * batch_count / total
        return RunningStats(mean, m2 / total, total)

    def same(self, other: RunningStats) -> bool:
        """Bit for bit the same statistics."""
        return (self.count == other.count and self.mean.shape == other.mean.shape
                and self.mean.tobytes() == other.mean.tobytes() and self.var.tobytes() == other.var.tobytes())

    def problem(self) -> str | None:
        """Why these cannot be running statistics (read from another node's bytes), or None."""
        if not (np.isfinite(self.count) and self.count > 0):
            return f"count {self.count!r} is not a positive number"
        if self.mean.shape != self.var.shape:
            return f"mean {self.mean.shape} and var {self.var.shape} differ in shape"
        if not (np.all(np.isfinite(self.mean)) and np.all(np.isfinite(self.var)) and np.all(self.var >= 0)):
            return "mean or var holds a value that is not finite, or a negative variance"
        return None


def row_moments(blocks: Iterable[np.ndarray], shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """(mean, variance, count) of the rows of `blocks` (arrays of shape (rows, *shape)), summed in
    float64 one row after another in the order given (two passes: the mean, then the squares)."""
    blocks = list(blocks)
    total, n = np.zeros(shape, np.float64), 0
    for block in blocks:
        for row in block:
            total += row.astype(np.float64)
            n += 1
    if n == 0:
        raise ValueError("moments of no rows")
    mean = total / n
    squares = np.zeros(shape, np.float64)
    for block in blocks:
        for row in block:
            squares += np.square(row.astype(np.float64) - mean)
    return mean, squares / n, n


def obs_stats_after(stats: RunningStats, episodes) -> RunningStats:
    """`stats` updated by the observations of the round's training samples (module doc)."""
    return stats.merged(*row_moments((ep.obs[:-1] for ep in episodes), stats.mean.shape))


def discounted_returns(episodes, gamma: float) -> np.ndarray:
    """R_t = r_t + gamma * R_(t-1) over the episodes' steps in order, float64 (module doc)."""
    out, at = np.zeros(sum(len(ep.rewards) for ep in episodes), np.float64), 0
    for ep in episodes:
        running = 0.0
        ends = np.logical_or(ep.terminated, ep.truncated).tolist()
        for reward, end in zip(ep.rewards.tolist(), ends, strict=True):
            running = running * gamma + reward
            out[at] = running
            at += 1
            if end:
                running = 0.0
    return out


def return_stats_after(stats: RunningStats | None, episodes, gamma: float) -> RunningStats:
    """The return statistics (`stats`, or the initial ones for None) updated by the round's
    discounted returns (module doc)."""
    stats = RunningStats.initial() if stats is None else stats
    returns = discounted_returns(episodes, gamma)
    return stats.merged(*row_moments([returns], ()))


def scaled_rewards(rewards: np.ndarray, stats: RunningStats) -> np.ndarray:
    """Rewards divided by the returns' standard deviation, clipped to +-CLIP (float64)."""
    return np.clip(np.asarray(rewards, np.float64) / np.sqrt(stats.var + VAR_EPSILON), -CLIP, CLIP)
