"""Deterministic rollouts, their canonical byte encoding and their Merkle root.

A sampler's work for (task seed, round, shard) is a list of episodes. Everything random in an
episode comes from two seeds derived from its coordinates (`derive_seeds`): the env's reset seed
and the seed of the `torch.Generator` that samples the actions. So the same policy and the same
coordinates give bit-identical episodes in any run or process (with the thread count pinned), and
a validator can re-simulate any single episode on its own (`workers.rl.replay`).

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
import struct
from dataclasses import dataclass, field

import numpy as np
import torch
from eth_utils import keccak

from workers.merkle import MerkleTree
from workers.rl.envs import DISCRETE, make_env, space_spec
from workers.rl.policy import ActorCritic, digest

SEED_DOMAIN = b"decentrl.rollout.v1"
MAGIC = b"DRLE"
ENCODING_VERSION = 1
ENDS = ("terminated", "truncated", "cut")
_HEADER_KEYS = {"action_dim", "action_kind", "end", "env_id", "env_seed", "index", "obs_dim",
                "policy", "round", "sample_seed", "shard", "steps", "task_seed"}


def _word(x: int, name: str) -> bytes:
    if not isinstance(x, int) or not 0 <= x < 2**256:
        raise ValueError(f"{name} must be an integer in [0, 2**256), got {x!r}")
    return x.to_bytes(32, "big")


def derive_seeds(task_seed: int, round_: int, shard: int, index: int) -> tuple[int, int]:
    """(env_seed, sample_seed) of episode `index` of (task_seed, round, shard)."""
    h = keccak(SEED_DOMAIN + _word(task_seed, "task_seed") + _word(round_, "round")
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
    """The episode in `data`; ValueError unless `data` is exactly a canonical encoding."""
    data = bytes(data)
    if data[:4] != MAGIC:
        raise ValueError("not an encoded episode: bad magic")
    version, hlen = struct.unpack_from("<BI", data, 4)
    if version != ENCODING_VERSION:
        raise ValueError(f"episode encoding version {version} is not supported (expected {ENCODING_VERSION})")
    start = 9
    raw = data[start:start + hlen]
    h = json.loads(raw)
    if set(h) != _HEADER_KEYS:
        raise ValueError(f"episode header keys {sorted(h)} differ from {sorted(_HEADER_KEYS)}")
    if json.dumps(h, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode() != raw:
        raise ValueError("episode header is not canonical JSON")
    t, d, k, kind = h["steps"], h["obs_dim"], h["action_dim"], h["action_kind"]
    if kind == DISCRETE and k != 1:
        raise ValueError("a discrete episode has action_dim 1")
    sizes = [("obs", "<f4", (t + 1, d)),
             ("actions", "<i8", (t,)) if kind == DISCRETE else ("actions", "<f4", (t, k)),
             ("rewards", "<f8", (t,)), ("terminated", "u1", (t,)), ("truncated", "u1", (t,)),
             ("logp", "<f4", (t,)), ("values", "<f4", (t,))]
    off = start + hlen
    arrays = {}
    for name, dtype, shape in sizes:
        n = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if off + n > len(data):
            raise ValueError(f"episode data too short for {name}")
        arrays[name] = np.frombuffer(data, dtype=dtype, count=int(np.prod(shape)), offset=off).reshape(shape).copy()
        off += n
    if off != len(data):
        raise ValueError(f"episode data has {len(data) - off} trailing bytes")
    for flag in ("terminated", "truncated"):
        if arrays[flag].size and arrays[flag].max() > 1:
            raise ValueError(f"{flag} flags must be 0 or 1")
    ep = Episode(env_id=h["env_id"], task_seed=h["task_seed"], round=h["round"], shard=h["shard"],
                 index=h["index"], env_seed=h["env_seed"], sample_seed=h["sample_seed"],
                 policy=bytes.fromhex(h["policy"]), end=h["end"], action_kind=kind,
                 obs=arrays["obs"].astype(np.float32), rewards=arrays["rewards"].astype(np.float64),
                 actions=arrays["actions"].astype(np.int64 if kind == DISCRETE else np.float32),
                 terminated=arrays["terminated"].astype(bool), truncated=arrays["truncated"].astype(bool),
                 logp=arrays["logp"].astype(np.float32), values=arrays["values"].astype(np.float32))
    if encode_episode(ep) != data:
        raise ValueError("episode bytes are not in canonical form")
    return ep


def episode_tree(episodes) -> MerkleTree:
    """The Merkle tree whose leaves are the episodes' encodings, in order."""
    return MerkleTree([encode_episode(ep) for ep in episodes])


def episode_root(episodes) -> bytes:
    """The 32-byte root a sampler commits for its episodes."""
    return episode_tree(episodes).root


# -- rolling out ----------------------------------------------------------------------------------

def run_episode(policy: ActorCritic, env, env_id: str, *, task_seed: int, round_: int, shard: int,
                index: int, policy_digest: bytes, max_steps: int | None = None) -> Episode:
    """Roll episode `index` of (task_seed, round, shard) in `env` (made by `make_env(env_id)`),
    stopping after `max_steps` steps if given (end "cut")."""
    env_seed, sample_seed = derive_seeds(task_seed, round_, shard, index)
    generator = torch.Generator().manual_seed(sample_seed)
    obs, _ = env.reset(seed=env_seed)
    obs_l, act_l, rew_l, term_l, trunc_l, logp_l, val_l = [np.asarray(obs, dtype=np.float32)], [], [], [], [], [], []
    end = "cut"
    policy.eval()
    with torch.no_grad():
        while max_steps is None or len(rew_l) < max_steps:
            action, logp, value, _ = policy.sample(torch.from_numpy(obs_l[-1]).unsqueeze(0), generator)
            obs, reward, terminated, truncated, _ = env.step(policy.env_action(action[0]))
            obs_l.append(np.asarray(obs, dtype=np.float32))
            act_l.append(action[0].numpy())
            rew_l.append(float(reward))
            term_l.append(bool(terminated))
            trunc_l.append(bool(truncated))
            logp_l.append(float(logp[0]))
            val_l.append(float(value[0]))
            if terminated or truncated:
                end = "terminated" if terminated else "truncated"
                break
    discrete = policy.spec.action_kind == DISCRETE
    return Episode(
        env_id=env_id, task_seed=task_seed, round=round_, shard=shard, index=index,
        env_seed=env_seed, sample_seed=sample_seed, policy=bytes(policy_digest), end=end,
        action_kind=policy.spec.action_kind,
        obs=np.stack(obs_l),
        actions=(np.asarray(act_l, dtype=np.int64) if discrete
                 else np.asarray(act_l, dtype=np.float32).reshape(len(act_l), policy.spec.action_dim)),
        rewards=np.asarray(rew_l, dtype=np.float64),
        terminated=np.asarray(term_l, dtype=bool), truncated=np.asarray(trunc_l, dtype=bool),
        logp=np.asarray(logp_l, dtype=np.float32), values=np.asarray(val_l, dtype=np.float32))


def rollout(policy: ActorCritic, env_id: str, *, task_seed: int, round_: int, shard: int,
            num_episodes: int | None = None, num_steps: int | None = None) -> list[Episode]:
    """A shard's episodes: exactly `num_episodes` whole episodes, or episodes totalling exactly
    `num_steps` steps (the last one cut by the budget unless it ends on its own). Give one of the
    two. Deterministic in (policy parameters, env_id, task_seed, round, shard, budget)."""
    if (num_episodes is None) == (num_steps is None):
        raise ValueError("give exactly one of num_episodes or num_steps")
    budget = num_episodes if num_episodes is not None else num_steps
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"the rollout budget must be a positive integer, got {budget!r}")
    env = make_env(env_id)
    try:
        if space_spec(env) != policy.spec:
            raise ValueError(f"policy was built for {policy.spec}, but {env_id} has {space_spec(env)}")
        policy_digest = digest(policy)
        episodes: list[Episode] = []
        remaining = num_steps
        while (len(episodes) < num_episodes) if num_episodes is not None else remaining > 0:
            ep = run_episode(policy, env, env_id, task_seed=task_seed, round_=round_, shard=shard,
                             index=len(episodes), policy_digest=policy_digest, max_steps=remaining)
            episodes.append(ep)
            if remaining is not None:
                remaining -= ep.steps
        return episodes
    finally:
        env.close()
