"""workers/rl/snapshot.py restore on damaged bytes: it restores or refuses with a reason
(SnapshotError, a Malformed), whatever a sampler put in a snapshot, and a refused snapshot leaves
the env as it was."""

import json
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.workers.fuzzing import FUZZ, damaged, edited_json, every_cut, random_bytes
from tests.workers.rl.envcases import CASES, SEED, run
from workers.rl.snapshot import SnapshotError, capture, restore
from workers.rl.snapshot_codec import MAGIC, VERSION

NAMES = ("cartpole", "hopper", "breakout", "minatar_seaquest")
SNAPSHOTS = {name: run(name, snapshot_at=(23,))[1][23] for name in NAMES}
ENVS = {}


def _env(name):
    if name not in ENVS:
        ENVS[name] = CASES[name].make()
        ENVS[name].reset(seed=SEED + 1000)
    return ENVS[name]


def restores_or_refuses(name, blob):
    """Restores `blob` into the case's env: True if it did (then the env captures exactly `blob`),
    False if refused (then the env is unchanged); any other exception fails the test."""
    env = _env(name)
    before = capture(env)
    try:
        restore(env, blob)
    except SnapshotError as error:
        assert str(error)
        assert capture(env) == before
        return False
    assert capture(env) == blob
    restore(env, before)
    return True


@pytest.mark.parametrize("name", NAMES)
def test_every_truncated_snapshot_is_refused(name):
    every_cut(lambda b: restore(_env(name), b) or True, SNAPSHOTS[name], SnapshotError, stride=7, dense=64)


@FUZZ
@given(data=st.data(), name=st.sampled_from(NAMES))
def test_a_damaged_snapshot_restores_or_is_refused(data, name):
    valid = SNAPSHOTS[name]
    header_end = 9 + struct.unpack_from("<I", valid, 5)[0]
    restores_or_refuses(name, data.draw(damaged(valid, header_end, fields=[(5, "<I")])))


@FUZZ
@given(data=st.data(), name=st.sampled_from(NAMES))
def test_a_snapshot_with_any_header_values_restores_or_is_refused(data, name):
    valid = SNAPSHOTS[name]
    (hlen,) = struct.unpack_from("<I", valid, 5)
    header = json.loads(valid[9:9 + hlen])
    raw = json.dumps(data.draw(edited_json(header)), sort_keys=True, separators=(",", ":")).encode()
    restores_or_refuses(name, MAGIC + struct.pack("<BI", VERSION, len(raw)) + raw + valid[9 + hlen:])


@FUZZ
@given(data=st.data(), name=st.sampled_from(NAMES), part=st.sampled_from(["env", "state"]))
def test_a_snapshot_with_any_env_description_or_state_restores_or_is_refused(data, name, part):
    """The same, one part of the header at a time: the description an env is matched against, and
    the state tree without its arrays table."""
    valid = SNAPSHOTS[name]
    (hlen,) = struct.unpack_from("<I", valid, 5)
    header = json.loads(valid[9:9 + hlen])
    header[part] = data.draw(edited_json(header[part]))
    raw = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    restores_or_refuses(name, MAGIC + struct.pack("<BI", VERSION, len(raw)) + raw + valid[9 + hlen:])


@FUZZ
@given(blob=random_bytes(MAGIC) | random_bytes())
def test_random_bytes_are_refused(blob):
    assert not restores_or_refuses("cartpole", blob)
