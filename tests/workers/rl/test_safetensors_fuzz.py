"""The safetensors parsers of workers/rl (policy.from_bytes, policy.read_metadata,
TrainState.from_bytes: one bounded header reader) on damaged and random bytes: they parse or
reject with a reason (Malformed), and check every size before allocating anything."""

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.workers.fuzzing import FUZZ, damaged, edited_json, every_cut, parses_or_rejects, random_bytes
from tests.workers.rl.conftest import policy_for
from workers.framing import Malformed
from workers.rl.policy import from_bytes, parameter_shapes, read_metadata, to_bytes
from workers.rl.ppo import PPOConfig, TrainState, train_round
from workers.rl.rollout import rollout


def _trained(env_id):
    policy, state = policy_for(env_id, hidden=(4,)), TrainState()
    episodes = rollout(policy, env_id, task_seed=3, round_=0, shard=0, num_steps=16)
    policy, _ = train_round(policy, episodes, PPOConfig(batch_size=8, update_epochs=1, device="cpu"), state)
    return to_bytes(policy), state.to_bytes()


(CARTPOLE, CARTPOLE_STATE), (PENDULUM, PENDULUM_STATE) = _trained("CartPole-v1"), _trained("Pendulum-v1")
PARSERS = {"policy": (from_bytes, [CARTPOLE, PENDULUM]), "metadata": (read_metadata, [CARTPOLE]),
           "train state": (TrainState.from_bytes, [CARTPOLE_STATE, PENDULUM_STATE, TrainState().to_bytes()])}
CASES = [(name, i) for name, (_, valid) in PARSERS.items() for i in range(len(valid))]


def _split(data: bytes) -> tuple[dict, dict, bytes]:
    """(tensor entries, decentrl metadata, body) of safetensors bytes."""
    (n,) = struct.unpack_from("<Q", data)
    header = json.loads(data[8:8 + n])
    return header, json.loads(header.pop("__metadata__")["decentrl"]), data[8 + n:]


def _join(header, meta, body: bytes) -> bytes:
    raw = json.dumps({**header, "__metadata__": {"decentrl": json.dumps(meta)}} if isinstance(header, dict)
                     else header).encode()
    return struct.pack("<Q", len(raw)) + raw + body


@pytest.mark.parametrize("name, i", CASES)
def test_every_truncation_is_rejected(name, i):
    parse, valid = PARSERS[name][0], PARSERS[name][1][i]
    assert parse(valid) is not None
    every_cut(parse, valid)


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES))
def test_damaged_bytes_parse_or_are_rejected(data, case):
    parse, valid = PARSERS[case[0]][0], PARSERS[case[0]][1][case[1]]
    header_end = 8 + struct.unpack_from("<Q", valid)[0]
    parses_or_rejects(parse, data.draw(damaged(valid, header_end, fields=[(0, "<Q"), (0, "<I")])))


@FUZZ
@given(data=st.data(), case=st.sampled_from(CASES), where=st.sampled_from(["tensors", "metadata"]))
def test_any_header_values_parse_or_are_rejected(data, case, where):
    """Tensor entries (dtype, shape, offsets) and metadata (format, architecture, counters, Adam
    steps) of any type and size, re-encoded consistently."""
    parse, valid = PARSERS[case[0]][0], PARSERS[case[0]][1][case[1]]
    header, meta, body = _split(valid)
    if where == "tensors":
        header = data.draw(edited_json(header))
    else:
        meta = data.draw(edited_json(meta))
    parses_or_rejects(parse, _join(header, meta, body))


@FUZZ
@given(blob=random_bytes() | random_bytes(b"\x40\x00\x00\x00\x00\x00\x00\x00{"), name=st.sampled_from(list(PARSERS)))
def test_random_bytes_are_rejected(blob, name):
    assert parses_or_rejects(PARSERS[name][0], blob) is None


def test_a_huge_architecture_is_rejected_before_it_is_built():
    """A policy whose metadata names a billion-weight network but holds a few tensors is refused from
    its header: building it first would allocate gigabytes."""
    header, meta, body = _split(CARTPOLE)
    meta["config"]["hidden_sizes"] = [100_000, 100_000]
    with pytest.raises(Malformed, match="do not match the architecture's|expected float32"):
        from_bytes(_join(header, meta, body))


def test_parameter_shapes_are_the_built_policy_s():
    for env_id in ("CartPole-v1", "Pendulum-v1"):
        policy = policy_for(env_id, hidden=(5, 3))
        assert parameter_shapes(policy.spec, policy.config) == {k: tuple(v.shape) for k, v in
                                                                policy.state_dict().items()}
