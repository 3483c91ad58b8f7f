"""A recorded episode and its canonical bytes (the Merkle leaf's item of a sampler's shard).

Version 1 (`encode_episode` for every episode with flat float32 observations and no snapshots;
its bytes are pinned by tests, fixtures and contracts/libraries/EpisodeCheck.sol): fixed binary
layout, little-endian, no padding:

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

Version 2, used only for an episode with image (uint8 or multi-axis) observations or with
environment snapshots: the same with these differences. The header has no obs_dim but obs_dtype
("float32" | "uint8"), obs_shape (one observation's shape as a string of decimal sizes joined by
"x", e.g. "17" or "84x84x4": strings and integers are all the chain's header parser reads) and
steps_per_snapshot (s, 0 = none). obs is (steps + 1) x the shape, in obs_dtype (uint8 one byte
each). After values comes the snapshot section: `snapshot_count(steps, s)` snapshots (none when s
is 0), each a uint32 length (at least 1) and that many bytes: `workers.rl.snapshot.capture` of the
env after its reset (snapshot 0) and after steps s, 2s, ... below `steps`. Snapshot j starts
segment j, steps [j*s, min((j+1)*s, steps)) (`segment_bounds`); workers.rl.replay replays one
segment from its snapshot and checks that it ends in the next one.

`end` is "terminated" or "truncated" (the env ended the episode at its last step) or "cut" (a
step budget ended it). Decoding accepts only the canonical form: `encode(decode(b)) == b` (so a
version-2 encoding of a version-1 episode is refused), and checks every size against the data
before it allocates.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np

from workers.framing import Malformed, brief, is_count, is_hex32, json_header
from workers.rl.envs import BOX, DISCRETE, FLOAT32, OBS_DTYPES, UINT8, SpaceSpec

MAGIC = b"DRLE"
ENCODING_VERSION = 1
IMAGE_ENCODING_VERSION = 2
ENDS = ("terminated", "truncated", "cut")
_V1_KEYS = {"action_dim", "action_kind", "end", "env_id", "env_seed", "index", "obs_dim",
            "policy", "round", "sample_seed", "shard", "steps", "task_seed"}
_V2_KEYS = (_V1_KEYS - {"obs_dim"}) | {"obs_dtype", "obs_shape", "steps_per_snapshot"}
_OBS_SHAPE = re.compile(r"[1-9][0-9]{0,8}(x[1-9][0-9]{0,8}){0,3}")
"""An obs_shape string: one to four sizes, each 1..999999999, no leading zeros."""
_STORED_OBS = {FLOAT32: "<f4", UINT8: "u1"}


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
    """(steps + 1, *observation shape), float32 or uint8 (images) as recorded."""
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    logp: np.ndarray
    values: np.ndarray
    steps_per_snapshot: int = 0
    """Env steps between two snapshots; 0: the episode has none."""
    snapshots: tuple[bytes, ...] = ()
    """The env's snapshots at steps 0, s, 2s, ... below `steps` (module doc)."""
    meta: dict = field(default_factory=dict, repr=False)
    """Free-form, not encoded (e.g. timing); never part of the episode's identity."""

    @property
    def steps(self) -> int:
        return int(self.rewards.shape[0])

    @property
    def total_reward(self) -> float:
        return float(self.rewards.sum())

    @property
    def segments(self) -> int:
        """Segments a validator can replay one at a time (`segment_bounds`); 0 without snapshots."""
        return snapshot_count(self.steps, self.steps_per_snapshot)

    def __eq__(self, other) -> bool:
        return isinstance(other, Episode) and encode_episode(self) == encode_episode(other)


def snapshot_count(steps: int, steps_per_snapshot: int) -> int:
    """Snapshots (= segments) of an episode of `steps` steps: at step 0 and after every
    `steps_per_snapshot` steps below `steps`; none when steps_per_snapshot is 0."""
    return 0 if steps_per_snapshot == 0 else max(1, -(-steps // steps_per_snapshot))


def segment_bounds(ep: Episode, segment: int) -> tuple[int, int]:
    """(first step, end step) of segment `segment` of `ep`; IndexError if it has no such segment."""
    if not 0 <= segment < ep.segments:
        raise IndexError(f"episode {ep.index} has segments 0..{ep.segments - 1}, not {segment}")
    start = segment * ep.steps_per_snapshot
    return start, min(start + ep.steps_per_snapshot, ep.steps)


def _version(ep: Episode) -> int:
    image = ep.obs.dtype == np.uint8 or ep.obs.ndim != 2
    return IMAGE_ENCODING_VERSION if image or ep.steps_per_snapshot else ENCODING_VERSION


# -- encoding -------------------------------------------------------------------------------------

def _header(ep: Episode, version: int) -> bytes:
    action_dim = 1 if ep.action_kind == DISCRETE else int(ep.actions.shape[1])
    h = {"action_dim": action_dim, "action_kind": ep.action_kind, "end": ep.end,
         "env_id": ep.env_id, "env_seed": ep.env_seed, "index": ep.index,
         "policy": ep.policy.hex(), "round": ep.round, "sample_seed": ep.sample_seed,
         "shard": ep.shard, "steps": ep.steps, "task_seed": ep.task_seed}
    if version == ENCODING_VERSION:
        h["obs_dim"] = int(ep.obs.shape[1])
    else:
        h |= {"obs_dtype": str(ep.obs.dtype), "obs_shape": "x".join(str(n) for n in ep.obs.shape[1:]),
              "steps_per_snapshot": ep.steps_per_snapshot}
    return json.dumps(h, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def encode_episode(ep: Episode) -> bytes:
    """The canonical bytes of `ep` (layout in the module docstring)."""
    t = ep.steps
    if ep.end not in ENDS:
        raise ValueError(f"end must be one of {ENDS}, got {ep.end!r}")
    if ep.obs.shape[0] != t + 1 or len(ep.policy) != 32:
        raise ValueError(f"episode needs steps + 1 = {t + 1} observations and a 32-byte policy digest")
    if str(ep.obs.dtype) not in OBS_DTYPES or ep.obs.ndim < 2:
        raise ValueError(f"observations must be a (steps + 1, ...) array of {' or '.join(OBS_DTYPES)}, "
                         f"got {ep.obs.dtype} {ep.obs.shape}")
    count = snapshot_count(t, ep.steps_per_snapshot)
    if len(ep.snapshots) != count or not all(isinstance(s, bytes) and s for s in ep.snapshots):
        raise ValueError(f"an episode of {t} steps with steps_per_snapshot {ep.steps_per_snapshot} needs "
                         f"{count} non-empty snapshots, got {len(ep.snapshots)}")
    version = _version(ep)
    header = _header(ep, version)
    parts = [MAGIC, struct.pack("<BI", version, len(header)), header,
             np.ascontiguousarray(ep.obs, dtype=_STORED_OBS[str(ep.obs.dtype)]).tobytes(),
             np.ascontiguousarray(ep.actions, dtype="<i8" if ep.action_kind == DISCRETE else "<f4").tobytes(),
             np.ascontiguousarray(ep.rewards, dtype="<f8").tobytes(),
             np.ascontiguousarray(ep.terminated, dtype="u1").tobytes(),
             np.ascontiguousarray(ep.truncated, dtype="u1").tobytes(),
             np.ascontiguousarray(ep.logp, dtype="<f4").tobytes(),
             np.ascontiguousarray(ep.values, dtype="<f4").tobytes()]
    parts += [struct.pack("<I", len(s)) + s for s in ep.snapshots]
    return b"".join(parts)


def decode_episode(data: bytes) -> Episode:
    """The episode in `data`; Malformed (a ValueError) saying why unless `data` is exactly a
    canonical encoding. Every size in the header is checked against the data before use."""
    data = bytes(data)
    if data[:4] != MAGIC or len(data) < 9:
        raise Malformed("not an encoded episode: bad magic")
    version, hlen = struct.unpack_from("<BI", data, 4)
    if version not in (ENCODING_VERSION, IMAGE_ENCODING_VERSION):
        raise Malformed(f"episode encoding version {version} is not supported (expected {ENCODING_VERSION} "
                        f"or {IMAGE_ENCODING_VERSION})")
    start = 9
    if start + hlen > len(data):
        raise Malformed(f"episode announces a {hlen}-byte header but holds {len(data) - start} bytes after its prefix")
    raw = data[start:start + hlen]
    h = json_header(raw, "episode header")
    keys = _V1_KEYS if version == ENCODING_VERSION else _V2_KEYS
    if not isinstance(h, dict) or set(h) != keys:
        raise Malformed(f"episode header keys {brief(sorted(h) if isinstance(h, dict) else h)} differ from "
                        f"{sorted(keys)} (version {version})")
    if json.dumps(h, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode() != raw:
        raise Malformed("episode header is not canonical JSON")
    _check_header(h)
    t, k, kind = h["steps"], h["action_dim"], h["action_kind"]
    if kind == DISCRETE and k != 1:
        raise Malformed("a discrete episode has action_dim 1")
    obs_shape, obs_dtype = ((h["obs_dim"],), FLOAT32) if version == ENCODING_VERSION else _obs_layout(h)
    # (name, stored dtype, shape, in-memory dtype): each array is read from the bytes and copied
    # once into its in-memory dtype (numpy's per-call costs, not the data, dominate an episode)
    layout = [("obs", _STORED_OBS[obs_dtype], (t + 1, *obs_shape), np.dtype(obs_dtype)),
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
    steps_per_snapshot = h.get("steps_per_snapshot", 0)
    snapshots, off = _read_snapshots(data, off, snapshot_count(t, steps_per_snapshot))
    if off != len(data):
        raise Malformed(f"episode data has {len(data) - off} trailing bytes")
    ep = Episode(env_id=h["env_id"], task_seed=h["task_seed"], round=h["round"], shard=h["shard"],
                 index=h["index"], env_seed=h["env_seed"], sample_seed=h["sample_seed"],
                 policy=bytes.fromhex(h["policy"]), end=h["end"], action_kind=kind, **arrays,
                 steps_per_snapshot=steps_per_snapshot, snapshots=snapshots)
    if encode_episode(ep) != data:
        raise Malformed("episode bytes are not in canonical form")
    return ep


def _obs_layout(h: dict) -> tuple[tuple[int, ...], str]:
    """(observation shape, dtype) of a version-2 header; Malformed if either is not canonical."""
    shape, dtype = h["obs_shape"], h["obs_dtype"]
    if not isinstance(shape, str) or not _OBS_SHAPE.fullmatch(shape):
        raise Malformed(f"episode header obs_shape must be sizes joined by 'x' (e.g. '84x84x4'), got {brief(shape)}")
    if dtype not in OBS_DTYPES:
        raise Malformed(f"episode header obs_dtype must be one of {', '.join(OBS_DTYPES)}, got {brief(dtype)}")
    return tuple(int(n) for n in shape.split("x")), dtype


def _read_snapshots(data: bytes, off: int, count: int) -> tuple[tuple[bytes, ...], int]:
    """`count` length-prefixed snapshots from `off`, and the offset after them."""
    if off + 4 * count > len(data):
        raise Malformed(f"episode data too short for its {count} snapshots")
    snapshots = []
    for j in range(count):
        if off + 4 > len(data):
            raise Malformed(f"episode data ends inside the length of snapshot {j}")
        (n,) = struct.unpack_from("<I", data, off)
        if n == 0 or off + 4 + n > len(data):
            raise Malformed(f"episode snapshot {j} announces {n} bytes, {len(data) - off - 4} remain (at least 1)")
        snapshots.append(data[off + 4:off + 4 + n])
        off += 4 + n
    return tuple(snapshots), off


_HEADER_INTS = {"action_dim": 1, "env_seed": 0, "index": 0, "obs_dim": 1, "round": 0, "sample_seed": 0, "shard": 0,
                "steps": 0, "steps_per_snapshot": 0, "task_seed": 0}
"""The header's integer fields and their least values (all are below 2**256, a protocol word)."""


def _check_header(h: dict) -> None:
    """Malformed naming the first field of an episode header that has the wrong type or range."""
    for name, least in _HEADER_INTS.items():
        if name not in h:
            continue  # obs_dim is version 1's, steps_per_snapshot version 2's
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
    if h.get("steps_per_snapshot", 0) >= 2**32:
        raise Malformed(f"episode header steps_per_snapshot must be below 2**32, got {h['steps_per_snapshot']}")


def misfit(ep: Episode, space: SpaceSpec) -> str | None:
    """Why a policy for `space` cannot replay or train on `ep` (observation shape or type, action
    kind or size, a discrete action out of range), or None: an episode decoded from another node's
    shard may hold any of these, and torch would fail on them deep inside a forward pass."""
    if ep.action_kind != space.action_kind or ep.obs.shape[1:] != space.shape or ep.obs.dtype != space.obs_dtype:
        return f"{ep.action_kind} actions and {ep.obs.dtype} observations of shape {ep.obs.shape[1:]}"
    if space.action_kind == DISCRETE:
        if ep.steps and not 0 <= int(ep.actions.min()) <= int(ep.actions.max()) < space.action_dim:
            return f"a discrete action outside [0, {space.action_dim})"
    elif ep.actions.shape[1] != space.action_dim:
        return f"actions of {ep.actions.shape[1]} values"
    return None
