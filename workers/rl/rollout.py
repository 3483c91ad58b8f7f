"""Deterministic rollouts and their Merkle root.

A sampler's work for (task seed, round, shard) is a list of episodes. Everything random in an
episode comes from two seeds derived from its coordinates (`derive_seeds`): the env's reset seed
and the seed of the `torch.Generator` that samples the actions. So the same policy and the same
coordinates give bit-identical episodes in any run or process, and a validator can re-simulate any
single episode on its own (`workers.rl.replay`). A shard rolls up to `LANES` episodes in lockstep,
one batched policy forward pass per step; which episodes share a pass depends only on their lengths
(and, for an env whose episodes all run to its time limit, on that limit), so that is deterministic
too.

Seeds: h = keccak256("decentrl.rollout.v1" ++ uint256(task_seed) ++ uint256(round) ++
uint256(shard) ++ uint256(index)) (big-endian 32-byte words, i.e. `abi.encodePacked` of a string
and four uint256); env_seed = uint32(h[0:4]); sample_seed = uint64(h[4:12]) >> 1 (a torch seed
must fit an int64).

Episodes and their canonical bytes (the Merkle leaf's item, `episode_root`) are
`workers.rl.episode`'s (re-exported here). With `steps_per_snapshot` s > 0, each episode also
records `workers.rl.snapshot.capture` of its env after the reset and after every s steps, so a
validator can replay one segment of s steps from its snapshot (`workers.rl.replay.replay_segment`).
"""

from __future__ import annotations

import numpy as np
import torch

from workers import deadline
from workers.hashing import keccak256
from workers.merkle import MerkleTree
from workers.rl.envs import DISCRETE, EnvConfig, as_config, space_spec
from workers.rl.episode import (  # noqa: F401 (re-exported: the episode's home before version 2)
    ENCODING_VERSION,
    ENDS,
    MAGIC,
    Episode,
    decode_episode,
    encode_episode,
    misfit,
    snapshot_count,
)
from workers.rl.policy import ActorCritic, digest
from workers.rl.snapshot import capture

SEED_DOMAIN = b"decentrl.rollout.v1"
LANES = 4
"""Episodes a shard rolls in lockstep (`rollout`). Part of the rollout's definition: a batched
forward pass rounds differently from a one-row one, so the last bits of the recorded log-probs,
values and Gaussian actions (a categorical action only in a near tie) depend on how the episodes
were batched."""


def _word(x: int, name: str) -> bytes:
    if not isinstance(x, int) or not 0 <= x < 2**256:
        raise ValueError(f"{name} must be an integer in [0, 2**256), got {x!r}")
    return x.to_bytes(32, "big")


def derive_seeds(task_seed: int, round_: int, shard: int, index: int) -> tuple[int, int]:
    """(env_seed, sample_seed) of episode `index` of (task_seed, round, shard)."""
    h = keccak256(SEED_DOMAIN + _word(task_seed, "task_seed") + _word(round_, "round")
                  + _word(shard, "shard") + _word(index, "index"))
    return int.from_bytes(h[0:4], "big"), int.from_bytes(h[4:12], "big") >> 1


def episode_tree(episodes) -> MerkleTree:
    """The Merkle tree whose leaves are the episodes' encodings, in order."""
    return MerkleTree([encode_episode(ep) for ep in episodes])


def episode_root(episodes) -> bytes:
    """The 32-byte root a sampler commits for its episodes."""
    return episode_tree(episodes).root


# -- rolling out ----------------------------------------------------------------------------------

class _Recorder:
    """Episode `index` of a shard while it is being rolled: its env, its generator, its steps and,
    every `steps_per_snapshot` steps (when > 0), the env's snapshot."""

    def __init__(self, env, index: int, seeds: tuple[int, int], obs_dtype: str, steps_per_snapshot: int):
        self.env, self.index, self.obs_dtype = env, index, obs_dtype
        self.env_seed, self.sample_seed = seeds
        self.steps_per_snapshot = steps_per_snapshot
        self.generator = torch.Generator().manual_seed(self.sample_seed)
        obs, _ = env.reset(seed=self.env_seed)
        self.obs = [np.asarray(obs, dtype=obs_dtype)]
        self.actions, self.rewards, self.terminated, self.truncated, self.logp, self.values = [], [], [], [], [], []
        self.snapshots = [capture(env)] if steps_per_snapshot else []
        self.ended = False
        """The env ended the episode (terminated or truncated) at its last recorded step."""

    @property
    def steps(self) -> int:
        return len(self.rewards)

    def record(self, policy: ActorCritic, action, logp: float, value: float) -> None:
        """One step with `action` (an int, or a float32 tensor row for Box actions)."""
        obs, reward, terminated, truncated, _ = self.env.step(policy.env_action(action))
        self.obs.append(np.asarray(obs, dtype=self.obs_dtype))
        self.actions.append(action)
        self.rewards.append(float(reward))
        self.terminated.append(bool(terminated))
        self.truncated.append(bool(truncated))
        self.logp.append(logp)
        self.values.append(value)
        self.ended = bool(terminated or truncated)
        if self.steps_per_snapshot and self.steps % self.steps_per_snapshot == 0 and not self.ended:
            self.snapshots.append(capture(self.env))

    def episode(self, policy: ActorCritic, env_id: str, coords: dict, policy_digest: bytes,
                steps: int) -> Episode:
        """The episode of its first `steps` steps (end "cut" unless the env ended it right there)."""
        end = "cut"
        if steps == self.steps and self.ended:
            end = "terminated" if self.terminated[-1] else "truncated"
        discrete = policy.spec.action_kind == DISCRETE
        actions = self.actions[:steps]
        return Episode(
            env_id=env_id, **coords, index=self.index, env_seed=self.env_seed,
            sample_seed=self.sample_seed, policy=bytes(policy_digest), end=end,
            action_kind=policy.spec.action_kind,
            obs=np.stack(self.obs[:steps + 1]),
            actions=(np.asarray(actions, dtype=np.int64) if discrete
                     else np.asarray([a.numpy() for a in actions], dtype=np.float32)
                     .reshape(steps, policy.spec.action_dim)),
            rewards=np.asarray(self.rewards[:steps], dtype=np.float64),
            terminated=np.asarray(self.terminated[:steps], dtype=bool),
            truncated=np.asarray(self.truncated[:steps], dtype=bool),
            logp=np.asarray(self.logp[:steps], dtype=np.float32),
            values=np.asarray(self.values[:steps], dtype=np.float32),
            steps_per_snapshot=self.steps_per_snapshot,
            snapshots=tuple(self.snapshots[:snapshot_count(steps, self.steps_per_snapshot)]))


def rollout(policy: ActorCritic, env: str | EnvConfig, *, task_seed: int, round_: int, shard: int,
            num_episodes: int | None = None, num_steps: int | None = None,
            steps_per_snapshot: int = 0) -> list[Episode]:
    """A shard's episodes: exactly `num_episodes` whole episodes, or episodes totalling exactly
    `num_steps` steps (the last one cut by the budget unless it ends on its own). Give one of the
    two. Deterministic in (policy parameters, env, task_seed, round, shard, budget, snapshots).
    `env`: a gymnasium id or an EnvConfig. `steps_per_snapshot` > 0: each episode carries the
    env's snapshot after its reset and after every that many steps (module doc).

    The episodes are those of rolling episode 0, 1, 2, ... one after the other, but up to `LANES`
    of them run in lockstep with one batched policy forward per step (the per-call cost of torch
    dominates for small MLPs). An episode's steps do not depend on the others', so the shard's
    content is the sequential one; only rounding can differ (see `LANES`). With a step budget,
    episode k gets at most num_steps minus the steps of episodes 0..k-1: while those still run,
    later episodes are rolled speculatively and trimmed (or dropped) at the end. An env whose
    episodes all run to its time limit (EnvConfig.fixed_episode_steps) counts a running episode
    at that length, so no episode is started that the budget cannot reach: a 256-step shard of
    HalfCheetah's 1,000-step episodes is one episode in one lane, where four lanes stepped twice
    the steps it keeps."""
    if (num_episodes is None) == (num_steps is None):
        raise ValueError("give exactly one of num_episodes or num_steps")
    budget = num_episodes if num_episodes is not None else num_steps
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"the rollout budget must be a positive integer, got {budget!r}")
    if isinstance(steps_per_snapshot, bool) or not isinstance(steps_per_snapshot, int) or steps_per_snapshot < 0:
        raise ValueError(f"steps_per_snapshot must be a non-negative integer, got {steps_per_snapshot!r}")
    config = as_config(env)
    env_id = config.env_id
    fixed = config.fixed_episode_steps() if num_steps is not None else None

    def reach(r: _Recorder) -> int:
        """The steps episode r takes of the budget at least: its own, or its env's fixed length."""
        return r.steps if r.ended or fixed is None else max(r.steps, fixed)

    envs = []
    try:
        envs.append(config.make())
        if space_spec(envs[0]) != policy.spec:
            raise ValueError(f"policy was built for {policy.spec}, but {env_id} has {space_spec(envs[0])}")
        coords = {"task_seed": task_seed, "round": round_, "shard": shard}
        started: list[_Recorder] = []
        running: list[_Recorder] = []
        policy.eval()
        while True:
            # Start episodes while one may still be needed: all of num_episodes, or while the
            # episodes started so far reach fewer steps than the budget (reach: a running episode
            # of an env that runs every episode to its limit counts at that limit).
            while len(running) < LANES and (len(started) < num_episodes if num_episodes is not None
                                            else sum(reach(r) for r in started) < num_steps):
                if len(envs) <= len(running):
                    envs.append(config.make())
                free = next(e for e in envs if all(r.env is not e for r in running))
                rec = _Recorder(free, len(started), derive_seeds(task_seed, round_, shard, len(started)),
                                policy.spec.obs_dtype, steps_per_snapshot)
                started.append(rec)
                running.append(rec)
            if not running:
                break
            deadline.check()  # a job past its phase's deadline stops here (workers.deadline)
            with torch.inference_mode():
                draws = torch.cat([policy.draw(1, r.generator) for r in running])
                obs = torch.from_numpy(np.stack([r.obs[-1] for r in running]))
                actions, logp, values = policy.sample_from(obs, draws)
            rows = actions.tolist() if policy.discrete else list(actions)
            for r, a, lp, v in zip(running, rows, logp.tolist(), values.tolist(), strict=True):
                r.record(policy, a, lp, v)
            # An episode stops when the env ends it or, with a step budget, when it has as many
            # steps as the budget leaves it even if the episodes before it stopped right now (a
            # bound that only shrinks: a stopped episode never runs again).
            done_before, keep = 0, []
            for r in started:
                if not r.ended and (num_steps is None or r.steps < num_steps - done_before):
                    keep.append(r)
                done_before += r.steps
            running = keep
        policy_digest = digest(policy)
        episodes: list[Episode] = []
        remaining = num_steps
        for rec in started:
            if num_steps is not None and remaining <= 0:
                break
            steps = rec.steps if num_steps is None else min(rec.steps, remaining)
            episodes.append(rec.episode(policy, env_id, coords, policy_digest, steps))
            if remaining is not None:
                remaining -= steps
        return episodes
    finally:
        for env in envs:
            env.close()
