"""A trainer's trace: the round's intermediate training states and the pre-update data, under one
Merkle root that the checkpoint metadata carries (`trace_root`), so it is fixed when the trainer
commits. Validators re-execute only challenged parts of it (workers.roles.trace_check).

**Items** of the trace's keccak Merkle tree (workers.merkle), in this order:

* state leaves s_0 .. s_m: the training state after b_j = min(j * k, S) gradient steps of the
  round's S (k = the spec's `steps_per_leaf`; s_0 is the incoming state, s_m the final one);
* data leaves d_0 .. d_{C-1}: the pre-update forward pass in chunks of CHUNK_ROWS samples.

Each item carries its own position (a state its step counter, a chunk its index), as the tree's
sorted pairs do not fix positions.

**State bytes**: uint64 LE length of the policy bytes ++ the policy's safetensors
(`workers.rl.policy.to_bytes`) ++ a TrainState's safetensors (`TrainState.to_bytes`) holding the
Adam moments after b_j steps, `updates` = the round's starting count + b_j, and the round's
starting env_steps, rounds, last_checkpoint and return statistics (ret_rms). The policy of every
state carries the round's observation statistics (obs_norm): the checkpoint's policy is the last
state's with the statistics updated by the round's observations (ppo.update_obs_stats_).

**Chunk bytes**: b"DRLD" ++ uint32 LE (index, first row, rows, finals) ++ uint32 episode index of
each final ++ float32 old log-prob[rows] ++ float32 old value[rows] ++ float32 final value[finals].
Rows are the round's samples in training order (by slot, then episode, then step); the finals of
a chunk are the values of the final observations of the episodes whose last sample is in it.
Advantages and returns are not stored: they follow from the values by GAE (ppo.make_batch).

**Trace blob** (stored; its CID is the checkpoint metadata's `trace_cid`): b"DRLT", uint8 version
1, uint32 LE header length, the header as canonical JSON {"chunk_rows", "chunks": [chunk sizes],
"format": "decentrl.trace", "states": [{"cid", "digest", "size", "step"} per state leaf],
"steps": S, "steps_per_leaf": k}, then the chunks' bytes in order. Each state but s_0 is stored on its
own under its CID, so a validator fetches only the ones it challenges; s_0 is the previous
checkpoint, which validators already hold (storing it again would also publish a requester's
encrypted initial policy, SPECIFICATION 5.7), so its entry's CID names content nobody stores.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np
from eth_utils import keccak

from workers.framing import Malformed, brief, canonical, frame, is_count, is_hex32, unframe
from workers.merkle import MerkleTree
from workers.rl.policy import to_bytes
from workers.rl.ppo import Batch, TrainState, adam_state
from workers.storage import cid as cids

MAGIC = b"DRLT"
CHUNK_MAGIC = b"DRLD"
VERSION = 1
FORMAT = "decentrl.trace"
CHUNK_ROWS = 64
"""Samples per pre-update data chunk: one challenged chunk costs a validator a forward pass over
this many samples (a gradient step costs a forward and a backward pass over batch_size)."""


class TraceError(Malformed):
    """A trace blob, state or chunk that is malformed."""


def state_bytes(policy_bytes: bytes, train_state_bytes: bytes) -> bytes:
    return struct.pack("<Q", len(policy_bytes)) + bytes(policy_bytes) + bytes(train_state_bytes)


def split_state(data: bytes) -> tuple[bytes, bytes]:
    """(policy bytes, train state bytes) of state bytes."""
    if len(data) < 8:
        raise TraceError("state bytes are shorter than their length prefix")
    (n,) = struct.unpack_from("<Q", data)
    if 8 + n > len(data):
        raise TraceError(f"state bytes announce a {n}-byte policy but hold {len(data) - 8} bytes")
    return bytes(data[8:8 + n]), bytes(data[8 + n:])


def leaf_steps(steps: int, steps_per_leaf: int) -> list[int]:
    """b_0 .. b_m: the gradient-step counts after which a state is a leaf."""
    return list(range(0, steps, steps_per_leaf)) + [steps]


def chunk_plan(episode_steps: list[int], chunk_rows: int = CHUNK_ROWS) -> list[tuple[int, int, list[int]]]:
    """(first row, rows, episodes whose final value the chunk holds) of each chunk."""
    n = sum(episode_steps)
    chunks = [(lo, min(chunk_rows, n - lo), []) for lo in range(0, n, chunk_rows)]
    end = 0
    for e, steps in enumerate(episode_steps):
        end += steps
        chunks[max(end - 1, 0) // chunk_rows][2].append(e)
    return chunks


@dataclass(frozen=True)
class Chunk:
    index: int
    first: int
    logp: np.ndarray
    values: np.ndarray
    episodes: list[int]
    finals: np.ndarray

    def to_bytes(self) -> bytes:
        head = struct.pack("<4I", self.index, self.first, len(self.logp), len(self.episodes))
        return b"".join([CHUNK_MAGIC, head, np.asarray(self.episodes, "<u4").tobytes(),
                         np.asarray(self.logp, "<f4").tobytes(), np.asarray(self.values, "<f4").tobytes(),
                         np.asarray(self.finals, "<f4").tobytes()])

    @classmethod
    def from_bytes(cls, data: bytes) -> Chunk:
        if data[:4] != CHUNK_MAGIC or len(data) < 20:
            raise TraceError("not a pre-update data chunk: bad magic")
        index, first, rows, finals = struct.unpack_from("<4I", data, 4)
        if len(data) != 20 + 4 * finals + 8 * rows + 4 * finals:
            raise TraceError(f"chunk {index} is {len(data)} bytes; its header says {rows} rows, {finals} finals")
        at = 20
        episodes = np.frombuffer(data, "<u4", finals, at).tolist()
        at += 4 * finals
        logp = np.frombuffer(data, "<f4", rows, at)
        values = np.frombuffer(data, "<f4", rows, at + 4 * rows)
        return cls(index, first, logp, values, episodes, np.frombuffer(data, "<f4", finals, at + 8 * rows))


def chunks_of(batch: Batch, episode_steps: list[int]) -> list[Chunk]:
    logp = batch.old_logp.detach().cpu().numpy()
    values = batch.old_values.detach().cpu().numpy()
    return [Chunk(i, lo, logp[lo:lo + rows], values[lo:lo + rows], eps, batch.final_values[eps].astype(np.float32))
            for i, (lo, rows, eps) in enumerate(chunk_plan(episode_steps))]


@dataclass(frozen=True)
class Trace:
    """A parsed trace blob (module doc)."""

    header: dict
    chunks: list[bytes] = field(repr=False)
    blob: bytes = field(repr=False)

    @property
    def steps(self) -> int:
        return self.header["steps"]

    @property
    def states(self) -> list[dict]:
        return self.header["states"]

    def tree(self) -> MerkleTree:
        digests = [bytes.fromhex(s["digest"]) for s in self.states] + [keccak(c) for c in self.chunks]
        return MerkleTree(digests, digests=True)


def make_trace(states: list[tuple[int, bytes]], chunks: list[Chunk], steps_per_leaf: int) -> Trace:
    """The trace of (step, state bytes) leaves and data chunks."""
    raw = [c.to_bytes() for c in chunks]
    header = {"chunk_rows": CHUNK_ROWS, "chunks": [len(c) for c in raw], "format": FORMAT,
              "states": [{"cid": cids.compute(b), "digest": keccak(b).hex(), "size": len(b), "step": step}
                         for step, b in states],
              "steps": states[-1][0], "steps_per_leaf": steps_per_leaf}
    return assemble(header, raw)


def assemble(header: dict, raw_chunks: list[bytes]) -> Trace:
    """The trace of a header and its chunks' bytes (the header's chunk sizes must be theirs)."""
    return Trace(header, list(raw_chunks), frame(MAGIC, VERSION, canonical(header), *raw_chunks))


def parse_trace(blob: bytes) -> Trace:
    """The trace in a blob; TraceError if it is malformed or not canonical."""
    blob = bytes(blob)
    header, at = unframe(blob, MAGIC, VERSION, "trace blob", TraceError)
    keys = {"chunk_rows", "chunks", "format", "states", "steps", "steps_per_leaf"}
    if not isinstance(header, dict) or set(header) != keys or header["format"] != FORMAT:
        raise TraceError(f"trace header must have keys {sorted(keys)} and format {FORMAT!r}")
    if not all(is_count(header[k]) for k in ("chunk_rows", "steps", "steps_per_leaf")):
        raise TraceError("trace header chunk_rows, steps and steps_per_leaf must be non-negative integers")
    if not isinstance(header["chunks"], list) or not all(is_count(size) for size in header["chunks"]):
        raise TraceError(f"trace header chunks {brief(header['chunks'])} is not a list of sizes")
    if not isinstance(header["states"], list) or not header["states"]:
        raise TraceError("trace header states must be a non-empty list")
    for i, s in enumerate(header["states"]):
        if not isinstance(s, dict) or set(s) != {"cid", "digest", "size", "step"} or not is_count(s["size"]) \
                or not is_count(s["step"]) or not _is_cid(s["cid"]) or not is_hex32(s["digest"]):
            raise TraceError(f"trace state entry {i} is malformed: {brief(s)}")
    chunks, body = [], at
    for size in header["chunks"]:
        if at + size > len(blob):
            raise TraceError(f"trace blob ends inside data chunk {len(chunks)}")
        chunks.append(blob[at:at + size])
        at += size
    if at != len(blob) or canonical(header) != blob[9:body]:
        raise TraceError("trace blob is not canonical: its header disagrees with its length or encoding")
    return Trace(header, chunks, blob)


def _is_cid(x) -> bool:
    try:
        cids.decode(x)
    except ValueError:
        return False
    return True


class TraceRecorder:
    """Records a trace while ppo.train_round runs: pass `on_step` to it, then `close()`."""

    def __init__(self, start: TrainState, steps_per_leaf: int):
        self.start = TrainState(start.env_steps, start.rounds, start.updates, start.last_checkpoint,
                                ret_rms=start.ret_rms)
        self.steps_per_leaf = steps_per_leaf
        self.states: list[tuple[int, bytes]] = []
        self.batch: Batch | None = None

    def _record(self, steps: int, policy, adam: dict) -> None:
        s = self.start
        state = TrainState(s.env_steps, s.rounds, s.updates + steps, s.last_checkpoint, adam, s.ret_rms)
        self.states.append((steps, state_bytes(to_bytes(policy), state.to_bytes())))

    def on_step(self, steps: int, policy, optimizer, batch: Batch) -> None:
        if steps == 0:
            self.batch = batch
        if steps % self.steps_per_leaf == 0:
            self._record(steps, policy, adam_state(optimizer))

    def close(self, policy, state: TrainState, episode_steps: list[int]) -> Trace:
        """The trace, given the round's final policy and (finished) state."""
        steps = state.updates - self.start.updates
        if self.states[-1][0] != steps:
            self._record(steps, policy, state.adam)
        return make_trace(self.states, chunks_of(self.batch, episode_steps), self.steps_per_leaf)
