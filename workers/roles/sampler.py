"""Sampler: roll out the round's policy on one shard, bundle the episodes, commit to their root.

Shard = the sampler's slot index: slot i rolls episodes (task seed, round, i, 0..) until the
spec's `steps_per_shard` steps are done (`workers.rl.rollout.rollout`), each episode with the
env's snapshots every `spec.steps_per_snapshot` steps when that is > 0. The round's policy is the
task's current checkpoint (`policy_bytes`), or, while no checkpoint has been accepted yet
(`policy_bytes=None`, always so in round 0), the initial policy the spec's seed gives.

The root a sampler commits is `workers.rl.rollout.episode_root` = the Merkle root (workers.merkle)
over the episodes' canonical bytes, in index order. What it stores is one blob (version 1, all
integers little-endian, no pickle):

    magic    4 bytes  b"DRLS"
    version  uint8    1
    H        uint32   length of the header
    header   H bytes  canonical JSON (sorted keys, "," and ":", ASCII): env_id, episodes (count),
                      format "decentrl.shard", policy (hex digest of the acting policy), root (hex),
                      round, shard, steps (total), task_id, task_seed
    then, per episode in index order: uint32 length, the episode's canonical bytes

`verify_shard(blob, root)` recomputes the root from the episode bytes; nothing in a blob is
trusted before that.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

from workers import protocol
from workers.framing import Malformed, brief, canonical, frame, is_count, unframe
from workers.merkle import merkle_root
from workers.rl.policy import ActorCritic, check_architecture, from_bytes, make_policy
from workers.rl.rollout import Episode, decode_episode, encode_episode, rollout
from workers.roles.determinism import single_thread
from workers.spec import TaskSpec
from workers.storage import cid as cids

MAGIC = b"DRLS"
VERSION = 1
FORMAT = "decentrl.shard"
_HEADER_KEYS = {"env_id", "episodes", "format", "policy", "root", "round", "shard", "steps",
                "task_id", "task_seed"}


class ShardMismatch(Malformed):
    """A blob that is malformed or does not match the root it was revealed with."""


@dataclass(frozen=True, eq=False)
class ShardResult:
    """One shard's episodes, their root and the blob to store."""

    task_id: int
    round: int
    shard: int
    episodes: list[Episode] = field(repr=False)
    """In index order."""
    episode_bytes: list[bytes] = field(repr=False)
    """Canonical bytes of each episode (the Merkle leaves' items)."""
    root: bytes
    """Merkle root over `episode_bytes`: what the sampler commits and reveals."""
    blob: bytes = field(repr=False)
    """What the sampler stores (layout in the module doc)."""

    @property
    def cid(self) -> str:
        """The blob's CID as kubo (and the embedded store) gives it: what the sampler reveals."""
        return cids.compute(self.blob)

    @property
    def policy(self) -> bytes:
        """Digest of the policy the episodes were rolled with."""
        return self.episodes[0].policy

    @property
    def steps(self) -> int:
        return sum(ep.steps for ep in self.episodes)

    @property
    def mean_return(self) -> float | None:
        """Mean return of the episodes that ended on their own (None if all were cut)."""
        done = [ep.total_reward for ep in self.episodes if ep.end != "cut"]
        return sum(done) / len(done) if done else None


# -- the round's policy ----------------------------------------------------------------------------

def initial_policy(spec: TaskSpec) -> ActorCritic:
    """The task's policy before any accepted checkpoint: the spec's architecture, seeded by its seed.
    Made with one torch thread: the orthogonal initialisation's QR gives other bits with more."""
    with single_thread():
        return make_policy(spec.space(), spec.policy_config())


def round_policy(spec: TaskSpec, policy_bytes: bytes | None) -> ActorCritic:
    """The policy a round rolls out: `policy_bytes` (a checkpoint's safetensors), or the initial
    policy when None. ValueError if the checkpoint's architecture is not the spec's (checked
    against the env's spaces, without building the initial policy: its init costs more than
    loading the checkpoint)."""
    if policy_bytes is None:
        return initial_policy(spec)
    policy = from_bytes(policy_bytes)
    check_architecture(policy, spec.space(), spec.policy_config())
    return policy


# -- work ------------------------------------------------------------------------------------------

def sample_shard(spec: TaskSpec, task_id: int, round_: int, shard: int,
                 policy_bytes: bytes | None) -> ShardResult:
    """Roll out `shard` of `round_` under the round's policy; deterministic in all arguments."""
    policy = round_policy(spec, policy_bytes)
    with single_thread():
        episodes = rollout(policy, spec.env_config(), task_seed=spec.seed, round_=round_, shard=shard,
                           num_steps=spec.steps_per_shard, steps_per_snapshot=spec.steps_per_snapshot)
    return bundle_shard(task_id, round_, shard, episodes)


def bundle_shard(task_id: int, round_: int, shard: int, episodes: list[Episode],
                 items: list[bytes] | None = None) -> ShardResult:
    """The ShardResult (root and blob) of `episodes`, which must share env, seed and policy.
    `items`: their encode_episode bytes, when the caller has them."""
    if not episodes:
        raise ValueError("a shard needs at least one episode")
    first = episodes[0]
    for ep in episodes:
        if (ep.env_id, ep.task_seed, ep.policy) != (first.env_id, first.task_seed, first.policy):
            raise ValueError(f"episode {ep.index} differs from episode {first.index} in env, task "
                             f"seed or policy; a shard has one of each")
    items = [encode_episode(ep) for ep in episodes] if items is None else items
    root = merkle_root(items)
    header = {"env_id": first.env_id, "episodes": len(items), "format": FORMAT,
              "policy": first.policy.hex(), "root": root.hex(), "round": round_, "shard": shard,
              "steps": sum(ep.steps for ep in episodes), "task_id": task_id, "task_seed": first.task_seed}
    blob = frame(MAGIC, VERSION, canonical(header), *(struct.pack("<I", len(item)) + item for item in items))
    return ShardResult(task_id, round_, shard, list(episodes), items, root, blob)


# -- reading blobs ---------------------------------------------------------------------------------

def unbundle_shard(blob: bytes) -> ShardResult:
    """The ShardResult a blob holds. ShardMismatch if it is malformed, not canonical, or its
    header disagrees with its episodes (count, steps, root, coordinates, policy)."""
    blob = bytes(blob)
    header, off = unframe(blob, MAGIC, VERSION, "shard blob", ShardMismatch)
    if not isinstance(header, dict) or set(header) != _HEADER_KEYS or header["format"] != FORMAT:
        raise ShardMismatch(f"shard blob header must have keys {sorted(_HEADER_KEYS)} and format {FORMAT!r}")
    for key in ("episodes", "round", "shard", "steps", "task_id", "task_seed"):
        if not is_count(header[key]):
            raise ShardMismatch(f"shard blob header {key} must be a non-negative integer, got {brief(header[key])}")
    items = []
    while off < len(blob):
        if off + 4 > len(blob):
            raise ShardMismatch("shard blob ends inside an episode length")
        (n,) = struct.unpack_from("<I", blob, off)
        if off + 4 + n > len(blob):
            raise ShardMismatch(f"shard blob ends inside episode {len(items)}")
        items.append(blob[off + 4:off + 4 + n])
        off += 4 + n
    if not items or len(items) != header["episodes"]:
        raise ShardMismatch(f"shard blob holds {len(items)} episodes, its header says {header['episodes']}")
    try:
        episodes = [decode_episode(item) for item in items]
    except Malformed as error:
        raise ShardMismatch(f"shard blob holds a malformed episode: {error}") from None
    try:  # each item is its episode's canonical bytes (decode_episode checks it): not encoded again
        result = bundle_shard(header["task_id"], header["round"], header["shard"], episodes, items)
    except ValueError as error:
        raise ShardMismatch(str(error)) from None
    if result.blob != blob:
        raise ShardMismatch("shard blob is not canonical: its header disagrees with its episodes "
                            "(count, steps, root, env, seed, policy or coordinates)")
    for ep in episodes:
        if (ep.round, ep.shard) != (header["round"], header["shard"]):
            raise ShardMismatch(f"episode {ep.index} is of round {ep.round} shard {ep.shard}, the blob "
                                f"is of round {header['round']} shard {header['shard']}")
    return result


def verify_shard(blob: bytes, root: bytes) -> ShardResult:
    """The blob's ShardResult if its episodes hash to `root`; ShardMismatch otherwise."""
    result = unbundle_shard(blob)
    if result.root != bytes(root):
        raise ShardMismatch(f"episodes hash to root {result.root.hex()}, the revealed root is "
                            f"{bytes(root).hex()}")
    return result


# -- commit / reveal -------------------------------------------------------------------------------

def new_salt() -> bytes:
    """A fresh secret 32-byte salt for a commitment (keep it until the reveal)."""
    return os.urandom(32)


def make_commitment(task_id: int, round_: int, node: str, root: bytes, cid: str, salt: bytes) -> bytes:
    """The commitment StateView.commitmentFor computes (`workers.protocol.commitment`)."""
    return protocol.commitment(task_id, round_, node, root, cid, salt)
