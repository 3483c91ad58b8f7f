"""workers/rl/rollout.py decode_episode on damaged and random bytes: it decodes or rejects with a
reason (Malformed), whatever a sampler put in an episode's header or arrays."""

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.workers.fuzzing import FUZZ, damaged, edited_json, every_cut, parses_or_rejects, random_bytes
from tests.workers.rl.conftest import policy_for
from workers.rl.rollout import MAGIC, decode_episode, encode_episode, rollout


def _episodes():
    out = []
    for env_id in ("CartPole-v1", "Pendulum-v1"):
        policy = policy_for(env_id, hidden=(4,))
        out += [encode_episode(ep) for ep in rollout(policy, env_id, task_seed=3, round_=0, shard=0, num_steps=12)]
    return out


EPISODES = _episodes()
"""A discrete and a continuous episode of 12 steps or fewer (a few hundred bytes each)."""


def _split(data: bytes) -> tuple[dict, bytes]:
    (hlen,) = struct.unpack_from("<I", data, 5)
    return json.loads(data[9:9 + hlen]), data[9 + hlen:]


def _encode(header, body: bytes) -> bytes:
    raw = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    return MAGIC + struct.pack("<BI", 1, len(raw)) + raw + body


@pytest.mark.parametrize("valid", EPISODES[:1] + EPISODES[-1:], ids=["discrete", "box"])
def test_every_truncated_episode_is_rejected(valid):
    assert decode_episode(valid) is not None
    every_cut(decode_episode, valid)


@FUZZ
@given(data=st.data(), which=st.integers(0, len(EPISODES) - 1))
def test_a_damaged_episode_decodes_or_is_rejected(data, which):
    valid = EPISODES[which]
    header_end = 9 + struct.unpack_from("<I", valid, 5)[0]
    parses_or_rejects(decode_episode, data.draw(damaged(valid, header_end, fields=[(5, "<I")])))


@FUZZ
@given(data=st.data(), which=st.integers(0, len(EPISODES) - 1))
def test_an_episode_with_any_header_values_decodes_or_is_rejected(data, which):
    """Header values of any type and size, re-encoded with a consistent length: the sizes (steps,
    obs_dim, action_dim) must be checked against the data before anything is allocated."""
    header, body = _split(EPISODES[which])
    blob = _encode(data.draw(edited_json(header)), body)
    ep = parses_or_rejects(decode_episode, blob)
    assert ep is None or encode_episode(ep) == blob  # what decodes is canonical


@FUZZ
@given(blob=random_bytes(MAGIC) | random_bytes())
def test_random_bytes_are_rejected(blob):
    assert parses_or_rejects(decode_episode, blob) is None
