"""The parsers of the blobs nodes store (workers/roles: shards, checkpoint bundles, traces, trace
states and data chunks) on damaged and random bytes: each parses or rejects with a reason
(Malformed: ShardMismatch, CheckpointMismatch, TraceError), whatever another node stored."""

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.workers.fuzzing import FUZZ, damaged, edited_json, every_cut, parses_or_rejects, random_bytes
from workers.framing import canonical, frame
from workers.rl.ppo import TrainState
from workers.roles import sampler, trace, trainer

FRAMED = {"shard": (sampler.unbundle_shard, sampler.MAGIC), "checkpoint": (trainer.unbundle_checkpoint, trainer.MAGIC),
          "trace": (trace.parse_trace, trace.MAGIC)}


@pytest.fixture(scope="module")
def blobs(rounds):
    """A valid blob of each kind, from round 1 (its trace has states and chunks)."""
    ckpt = rounds[1].checkpoint
    return {"shard": rounds[1].shards[0].blob, "checkpoint": ckpt.bundle, "trace": ckpt.trace.blob,
            "chunk": ckpt.trace.chunks[-1], "state": ckpt.trace_states[-1]}


def _parse_state(data: bytes):
    """A trace state as a validator opens it: split, then the train state parsed."""
    policy_bytes, train_state = trace.split_state(data)
    return policy_bytes, TrainState.from_bytes(train_state)


PARSERS = {"shard": sampler.unbundle_shard, "checkpoint": trainer.unbundle_checkpoint, "trace": trace.parse_trace,
           "chunk": trace.Chunk.from_bytes, "state": _parse_state}
FIELDS = {"shard": [(5, "<I")], "checkpoint": [(5, "<I")], "trace": [(5, "<I")],
          "chunk": [(4 + 4 * i, "<I") for i in range(4)], "state": [(0, "<Q"), (0, "<I")]}
"""The integer fields of each kind: header lengths, a chunk's index, first row, rows and finals."""


@pytest.mark.parametrize("kind", list(PARSERS))
def test_truncated_blobs_are_rejected(blobs, kind):
    """Each cut point in the first 600 bytes (prefixes, headers, lengths), then one in 97."""
    assert PARSERS[kind](blobs[kind]) is not None
    every_cut(PARSERS[kind], blobs[kind], stride=97, dense=600)


@FUZZ
@given(data=st.data(), kind=st.sampled_from(list(PARSERS)))
def test_damaged_blobs_parse_or_are_rejected(blobs, data, kind):
    valid = blobs[kind]
    header_end = 9 + struct.unpack_from("<I", valid, 5)[0] if kind in FRAMED else 64
    parses_or_rejects(PARSERS[kind], data.draw(damaged(valid, header_end, FIELDS[kind])))


@FUZZ
@given(data=st.data(), kind=st.sampled_from(list(FRAMED)))
def test_blobs_with_any_header_values_parse_or_are_rejected(blobs, data, kind):
    """Header values of any type and size (counts, sizes, slots, hex digests, CIDs), re-framed with
    a consistent length."""
    parse, magic = FRAMED[kind]
    valid = blobs[kind]
    (hlen,) = struct.unpack_from("<I", valid, 5)
    header = data.draw(edited_json(json.loads(valid[9:9 + hlen])))
    parses_or_rejects(parse, frame(magic, 1, canonical(header), valid[9 + hlen:]))


@FUZZ
@given(data=st.data(), kind=st.sampled_from(list(PARSERS)))
def test_random_bytes_are_rejected(data, kind):
    magic = FRAMED[kind][1] + b"\x01" if kind in FRAMED else trace.CHUNK_MAGIC if kind == "chunk" else b""
    assert parses_or_rejects(PARSERS[kind], data.draw(random_bytes(magic) | random_bytes())) is None
