"""Deterministic rollouts, their canonical byte encoding and their Merkle root.

A sampler's work for (task seed, round, shard) is a list of episodes. Everything random in an
episode comes from two seeds derived from its coordinates (`derive_seeds`): the env's reset seed
and the seed of the `torch.Generator` that samples the actions. So the same policy and the same
coordinates give bit-identical episodes in any run or process, and a validator can re-simulate any
single episode on its own (`workers.rl.replay`). A shard rolls up to `LANES` episodes in lockstep,
one batched policy forward pass per step; which episodes share a pass depends only on their lengths,
so that is deterministic too.

Seeds: h = keccak256("decentrl.rollout.v1" ++ uint256(task_seed) ++ uint256(round) ++
uint256(shard) ++ uint256(index)) (big-endian 32-byte words, i.e. `abi.encodePacked` of a string
and four uint256); env_seed = uint32(h[0:4]); sample_seed = uint64(h[4:12]) >> 1 (a torch seed
must fit an int64).

Episode encoding (`encode_episode`, version 1): fixed binary layout, little-endian, no padding:

    magic      4 bytes  b"DRLE"
    version    uint8    1
    H          uint32   length of the JSON header
    header     H bytes  canonical JSON (sorted keys, separators "," and ":", ASCII) with keys
                        action_dim, action_kind, end, env_id, env_seed, index, obs_dim, policy
                        (hex digest of the policy that acted), round, sample_seed, shard, steps,
                        task_seed
    obs        float32  (steps + 1) x obs_dim: every observation acted on, then the final one
    actions    int64    steps (discrete) | float32 steps x action_dim (box; as sampled, unclipped)
    rewards    float64  steps
    terminated uint8    steps (0 or 1)
    truncated  uint8    steps (0 or 1)
    logp       float32  steps: log-probability of each action under the acting policy
    values     float32  steps: the critic's value of each observation

`end` is "terminated" or "truncated" (the env ended the episode at its last step) or "cut" (a
step budget ended it). Decoding accepts only the canonical form: `encode(decode(b)) == b`. The
Merkle leaf of an episode is over these bytes (`episode_root`, `workers.merkle`).
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field

import numpy as np
import torch

from workers import deadline
from workers.framing import Malformed, brief, is_count, is_hex32, json_header
from workers.hashing import keccak256
from workers.merkle import MerkleTree
from workers.rl.envs import BOX, DISCRETE, SpaceSpec, make_env, space_spec
from workers.rl.policy import ActorCritic, digest

SEED_DOMAIN = b"decentrl.rollout.v1"
MAGIC = b"DRLE"
ENCODING_VERSION = 1
ENDS = ("terminated", "truncated", "cut")
LANES = 4
"""Episodes a shard rolls in lockstep (`rollout`). Part of the rollout's definition: a batched
forward pass rounds differently from a one-row one, so the last bits of the recorded log-probs,
values and Gaussian actions (a categorical action only in a near tie) depend on how the episodes
were batched."""
_HEADER_KEYS = {"action_dim", "action_kind", "end", "env_id", "env_seed", "index", "obs_dim",
                "policy", "round", "sample_seed", "shard", "steps", "task_seed"}


def _word(x: int, name: str) -> bytes:
    if not isinstance(x, int) or not 0 <= x < 2**256:
        raise ValueError(f"{name} must be an integer in [0, 2**256), got {x!r}")
    return x.to_bytes(32, "big")


def derive_seeds(task_seed: int, round_: int, shard: int, index: int) -> tuple[int, int]:
    """(env_seed, sample_seed) of episode `index` of (task_seed, round, shard)."""
    h = keccak256(SEED_DOMAIN + _word(task_seed, "task_seed") + _word(round_, "round")
                  + _word(shard, "shard") + _word(index, "index"))
    return int.from_bytes(h[0:4], "big"), int.from_bytes(h[4:12], "big") >> 1


@dataclass(eq=False)
class Episode:
    """One recorded episode (arrays as documented in the module docstring)."""

    env_id: str
    task_seed: int
    round: int
    shard: int
    index: int
    env_seed: int
    sample_seed: int
    policy: bytes
    """keccak digest of the acting policy's checkpoint (32 bytes)."""
    end: str
    action_kind: str
    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    logp: np.ndarray
    values: np.ndarray
    meta: dict = field(default_factory=dict, repr=False)
    """Free-form, not encoded (e.g. timing); never part of the episode's identity."""

    @property
    def steps(self) -> int:
        return int(self.rewards.shape[0])

    @property
    def total_reward(self) -> float:
        return float(self.rewards.sum())

    def __eq__(self, other) -> bool:
        return isinstance(other, Episode) and encode_episode(self) == encode_episode(other)


# -- encoding -------------------------------------------------------------------------------------

def _header(ep: Episode) -> bytes:
    obs_dim = int(ep.obs.shape[1])
    action_dim = 1 if ep.action_kind == DISCRETE else int(ep.actions.shape[1])
    h = {"action_dim": action_dim, "action_kind": ep.action_kind, "end": ep.end,
         "env_id": ep.env_id, "env_seed": ep.env_seed, "index": ep.index, "obs_dim": obs_dim,
         "policy": ep.policy.hex(), "round": ep.round, "sample_seed": ep.sample_seed,
         "shard": ep.shard, "steps": ep.steps, "task_seed": ep.task_seed}
    return json.dumps(h, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def encode_episode(ep: Episode) -> bytes:
    """The canonical bytes of `ep` (layout in the module docstring)."""
    t = ep.steps
    if ep.end not in ENDS:
        raise ValueError(f"end must be one of {ENDS}, got {ep.end!r}")
    if ep.obs.shape[0] != t + 1 or len(ep.policy) != 32:
        raise ValueError(f"episode needs steps + 1 = {t + 1} observations and a 32-byte policy digest")
    header = _header(ep)
    parts = [MAGIC, struct.pack("<BI", ENCODING_VERSION, len(header)), header,
             np.ascontiguousarray(ep.obs, dtype="<f4").tobytes(),
             np.ascontiguousarray(ep.actions, dtype="<i8" if ep.action_kind == DISCRETE else "<f4").tobytes(),
             np.ascontiguousarray(ep.rewards, dtype="<f8").tobytes(),
             np.ascontiguousarray(ep.terminated, dtype="u1").tobytes(),
             np.ascontiguousarray(ep.truncated, dtype="u1").tobytes(),
             np.ascontiguousarray(ep.logp, dtype="<f4").tobytes(),
             np.ascontiguousarray(ep.values, dtype="<f4").tobytes()]
    return b"".join(parts)


def decode_episode(data: bytes) -> Episode:
    """The episode in `data`; Malformed (a ValueError) saying why unless `data` is exactly a
    canonical encoding. Every size in the header is checked against the data before use."""
    data = bytes(data)
    if data[:4] != MAGIC or len(data) < 9:
        raise Malformed("not an encoded episode: bad magic")
    version, hlen = struct.unpack_from("<BI", data, 4)
    if version != ENCODING_VERSION:
        raise Malformed(f"episode encoding version {version} is not supported (expected {ENCODING_VERSION})")
    start = 9
    if start + hlen > len(data):
        raise Malformed(f"episode announces a {hlen}-byte header but holds {len(data) - start} bytes after its prefix")
    raw = data[start:start + hlen]
    h = json_header(raw, "episode header")
    if not isinstance(h, dict) or set(h) != _HEADER_KEYS:
        raise Malformed(f"episode header keys {brief(sorted(h) if isinstance(h, dict) else h)} differ from "
                        f"{sorted(_HEADER_KEYS)}")
    if json.dumps(h, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode() != raw:
        raise Malformed("episode header is not canonical JSON")
    _check_header(h)
    t, d, k, kind = h["steps"], h["obs_dim"], h["action_dim"], h["action_kind"]
    if kind == DISCRETE and k != 1:
        raise Malformed("a discrete episode has action_dim 1")
    # (name, stored dtype, shape, in-memory dtype): each array is read from the bytes and copied
    # once into its in-memory dtype (numpy's per-call costs, not the data, dominate an episode)
    layout = [("obs", "<f4", (t + 1, d), np.float32),
              ("actions", "<i8", (t,), np.int64) if kind == DISCRETE else ("actions", "<f4", (t, k), np.float32),
              ("rewards", "<f8", (t,), np.float64), ("terminated", "u1", (t,), bool), ("truncated", "u1", (t,), bool),
              ("logp", "<f4", (t,), np.float32), ("values", "<f4", (t,), np.float32)]
    off = start + hlen
    arrays = {}
    for name, dtype, shape, target in layout:
        count = math.prod(shape)
        n = count * np.dtype(dtype).itemsize
        if off + n > len(data):
            raise Malformed(f"episode data too short for {name}")
        stored = np.frombuffer(data, dtype=dtype, count=count, offset=off).reshape(shape)
        if target is bool and count and stored.max() > 1:
            raise Malformed(f"{name} flags must be 0 or 1")
        arrays[name] = stored.astype(target)
        off += n
    if off != len(data):
        raise Malformed(f"episode data has {len(data) - off} trailing bytes")
    ep = Episode(env_id=h["env_id"], task_seed=h["task_seed"], round=h["round"], shard=h["shard"],
                 index=h["index"], env_seed=h["env_seed"], sample_seed=h["sample_seed"],
                 policy=bytes.fromhex(h["policy"]), end=h["end"], action_kind=kind, **arrays)
    if encode_episode(ep) != data:
        raise Malformed("episode bytes are not in canonical form")
    return ep


_HEADER_INTS = {"action_dim": 1, "env_seed": 0, "index": 0, "obs_dim": 1, "round": 0, "sample_seed": 0, "shard": 0,
                "steps": 0, "task_seed": 0}
"""The header's integer fields and their least values (all are below 2**256, a protocol word)."""


def _check_header(h: dict) -> None:
    """Malformed naming the first field of an episode header that has the wrong type or range."""
    for name, least in _HEADER_INTS.items():
        v = h[name]
        if not is_count(v, least) or v >= 2**256:
            raise Malformed(f"episode header {name} must be an integer in [{least}, 2**256), got {brief(v)}")
    if not isinstance(h["env_id"], str):
        raise Malformed(f"episode header env_id must be a string, got {brief(h['env_id'])}")
    if h["end"] not in ENDS or h["action_kind"] not in (DISCRETE, BOX):
        raise Malformed(f"episode header end {brief(h['end'])} or action_kind {brief(h['action_kind'])} is unknown")
    policy = h["policy"]
    if not is_hex32(policy):
        raise Malformed(f"episode header policy must be 64 lowercase hex digits, got {brief(policy)}")


def misfit(ep: Episode, space: SpaceSpec) -> str | None:
    """Why a policy for `space` cannot replay or train on `ep` (observation size, action kind or
    size, a discrete action out of range), or None: an episode decoded from another node's shard
    may hold any of these, and torch would fail on them deep inside a forward pass."""
    if ep.action_kind != space.action_kind or ep.obs.shape[1] != space.obs_dim:
        return f"{ep.action_kind} actions and {ep.obs.shape[1]} observation values"
    if space.action_kind == DISCRETE:
        if ep.steps and not 0 <= int(ep.actions.min()) <= int(ep.actions.max()) < space.action_dim:
            return f"a discrete action outside [0, {space.action_dim})"
    elif ep.actions.shape[1] != space.action_dim:
        return f"actions of {ep.actions.shape[1]} values"
    return None


def episode_tree(episodes) -> MerkleTree:
    """The Merkle tree whose leaves are the episodes' encodings, in order."""
    return MerkleTree([encode_episode(ep) for ep in episodes])


def episode_root(episodes) -> bytes:
    """The 32-byte root a sampler commits for its episodes."""
    return episode_tree(episodes).root


# -- rolling out ----------------------------------------------------------------------------------

class _Recorder:
    """Episode `index` of a shard while it is being rolled: its env, its generator, its steps."""

    def __init__(self, env, index: int, seeds: tuple[int, int]):
        self.env, self.index = env, index
        self.env_seed, self.sample_seed = seeds
        self.generator = torch.Generator().manual_seed(self.sample_seed)
        obs, _ = env.reset(seed=self.env_seed)
        self.obs = [np.asarray(obs, dtype=np.float32)]
        self.actions, self.rewards, self.terminated, self.truncated, self.logp, self.values = [], [], [], [], [], []
        self.ended = False
        """The env ended the episode (terminated or truncated) at its last recorded step."""

    @property
    def steps(self) -> int:
        return len(self.rewards)

    def record(self, policy: ActorCritic, action, logp: float, value: float) -> None:
        """One step with `action` (an int, or a float32 tensor row for Box actions)."""
        obs, reward, terminated, truncated, _ = self.env.step(policy.env_action(action))
        self.obs.append(np.asarray(obs, dtype=np.float32))
        self.actions.append(action)
        self.rewards.append(float(reward))
        self.terminated.append(bool(terminated))
        self.truncated.append(bool(truncated))
        self.logp.append(logp)
        self.values.append(value)
        self.ended = bool(terminated or truncated)

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
            values=np.asarray(self.values[:steps], dtype=np.float32))


def rollout(policy: ActorCritic, env_id: str, *, task_seed: int, round_: int, shard: int,
            num_episodes: int | None = None, num_steps: int | None = None) -> list[Episode]:
    """A shard's episodes: exactly `num_episodes` whole episodes, or episodes totalling exactly
    `num_steps` steps (the last one cut by the budget unless it ends on its own). Give one of the
    two. Deterministic in (policy parameters, env_id, task_seed, round, shard, budget).

    The episodes are those of rolling episode 0, 1, 2, ... one after the other, but up to `LANES`
    of them run in lockstep with one batched policy forward per step (the per-call cost of torch
    dominates for small MLPs). An episode's steps do not depend on the others', so the shard's
    content is the sequential one; only rounding can differ (see `LANES`). With a step budget,
    episode k gets at most num_steps minus the steps of episodes 0..k-1: while those still run,
    later episodes are rolled speculatively and trimmed (or dropped) at the end."""
    if (num_episodes is None) == (num_steps is None):
        raise ValueError("give exactly one of num_episodes or num_steps")
    budget = num_episodes if num_episodes is not None else num_steps
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"the rollout budget must be a positive integer, got {budget!r}")
    envs = []
    try:
        envs.append(make_env(env_id))
        if space_spec(envs[0]) != policy.spec:
            raise ValueError(f"policy was built for {policy.spec}, but {env_id} has {space_spec(envs[0])}")
        coords = {"task_seed": task_seed, "round": round_, "shard": shard}
        started: list[_Recorder] = []
        running: list[_Recorder] = []
        policy.eval()
        while True:
            # Start episodes while one may still be needed: all of num_episodes, or while the
            # episodes started so far have fewer steps than the budget.
            while len(running) < LANES and (len(started) < num_episodes if num_episodes is not None
                                            else sum(r.steps for r in started) < num_steps):
                if len(envs) <= len(running):
                    envs.append(make_env(env_id))
                free = next(e for e in envs if all(r.env is not e for r in running))
                rec = _Recorder(free, len(started), derive_seeds(task_seed, round_, shard, len(started)))
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
