"""The work a task's spec implies for one slot of each role in one round, in environment steps:
what a node prices its work by and estimates its time from (workers.node.market).

    sampler    rolls out `steps_per_shard` steps.
    trainer    consumes every sampler's shard (N = numSamplers x steps_per_shard steps) and passes
               them through `update_epochs` epochs of gradient steps (E x N samples), plus one
               forward pass over N (counted in the rate it is timed at).
    validator  replays `challenges_per_sampler` whole episodes of each shard (each at most the
               env's time limit, and never more than the shard), or as many segments of
               `steps_per_snapshot` steps where the task commits snapshots, and re-executes
               `challenges_per_trainer` x `steps_per_leaf` of the trainer's gradient steps of
               `batch_size` samples each (workers.roles.challenges, workers.roles.validator).

A price is per 1,000 `priced_steps`: steps rolled out (sampler), consumed (trainer) or
re-executed (validator: replayed steps plus the re-executed gradient steps' samples)."""
from __future__ import annotations

from dataclasses import dataclass

from workers.protocol import Role
from workers.rl.envs import time_limit
from workers.spec import TaskSpec


@dataclass(frozen=True)
class RoundWork:
    """One slot's work in one round."""

    priced_steps: int
    """The steps its price is per (module doc)."""
    rollout_steps: int
    """Environment steps rolled out or replayed (env step + policy forward each)."""
    update_samples: int
    """Samples passed through gradient steps (a forward and backward pass each)."""


def round_work(spec: TaskSpec, role: Role, num_samplers: int) -> RoundWork:
    """The work of one slot of `role` in one round of a task with `num_samplers` samplers."""
    role = Role(role)
    if num_samplers < 1:
        raise ValueError(f"a task has at least one sampler, got num_samplers={num_samplers}")
    if role == Role.SAMPLER:
        return RoundWork(spec.steps_per_shard, spec.steps_per_shard, 0)
    if role == Role.TRAINER:
        consumed = num_samplers * spec.steps_per_shard
        return RoundWork(consumed, 0, spec.ppo.update_epochs * consumed)
    # a challenge replays a segment between two snapshots, else a whole episode (up to the time limit)
    episode_cap = spec.steps_per_snapshot or time_limit(spec.env_config()) or spec.steps_per_shard
    replayed = num_samplers * min(spec.steps_per_shard, spec.challenges_per_sampler * episode_cap)
    re_trained = spec.challenges_per_trainer * spec.steps_per_leaf * spec.ppo.batch_size
    return RoundWork(replayed + re_trained, replayed, re_trained)
