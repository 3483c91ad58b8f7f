"""workers/rl/episode.py encoding version 2 (image observations, snapshots): it round-trips, it is
used only where version 1 cannot say what the episode holds, and decoding accepts only its
canonical form, with a reason for everything else."""

import dataclasses
import json
import struct

import numpy as np
import pytest

from workers.framing import Malformed
from workers.rl.envs import DISCRETE
from workers.rl.episode import Episode, decode_episode, encode_episode, segment_bounds, snapshot_count
from workers.rl.plants import is_planted_obs, is_planted_reward, plant_episode


def episode(steps=5, image=True, every=2) -> Episode:
    rng = np.random.default_rng(steps)
    obs = (rng.integers(0, 256, (steps + 1, 3, 2, 4), dtype=np.uint8) if image
           else rng.standard_normal((steps + 1, 3)).astype(np.float32))
    return Episode(env_id="Pixels-v0", task_seed=1, round=2, shard=3, index=4, env_seed=5, sample_seed=6,
                   policy=bytes(range(32)), end="cut", action_kind=DISCRETE, obs=obs,
                   actions=rng.integers(0, 4, steps), rewards=rng.standard_normal(steps),
                   terminated=np.zeros(steps, bool), truncated=np.zeros(steps, bool),
                   logp=np.full(steps, -1.5, np.float32), values=np.arange(steps, dtype=np.float32),
                   steps_per_snapshot=every,
                   snapshots=tuple(b"state %d" % j for j in range(snapshot_count(steps, every))))


def split(data: bytes) -> tuple[dict, bytes]:
    (hlen,) = struct.unpack_from("<I", data, 5)
    return json.loads(data[9:9 + hlen]), data[9 + hlen:]


def join(header: dict, body: bytes, version: int = 2) -> bytes:
    raw = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    return b"DRLE" + struct.pack("<BI", version, len(raw)) + raw + body


@pytest.mark.parametrize("image,every", [(True, 2), (True, 0), (False, 2)],
                         ids=["image+snapshots", "image", "snapshots"])
def test_round_trip_keeps_dtype_shape_and_snapshots(image, every):
    ep = episode(image=image, every=every)
    data = encode_episode(ep)
    assert data[4] == 2
    back = decode_episode(data)
    assert back.obs.dtype == ep.obs.dtype and back.obs.shape == ep.obs.shape
    assert back.obs.tobytes() == ep.obs.tobytes() and back.snapshots == ep.snapshots
    assert encode_episode(back) == data and back == ep


def test_header_names_shape_dtype_and_snapshot_interval():
    header, _ = split(encode_episode(episode()))
    assert (header["obs_shape"], header["obs_dtype"], header["steps_per_snapshot"]) == ("3x2x4", "uint8", 2)
    assert "obs_dim" not in header


def test_flat_episodes_without_snapshots_stay_version_1():
    ep = episode(image=False, every=0)
    data = encode_episode(ep)
    assert data[4] == 1 and "obs_shape" not in split(data)[0]
    header, body = split(encode_episode(dataclasses.replace(ep, steps_per_snapshot=0)))
    header = {k: v for k, v in header.items() if k != "obs_dim"}
    as_v2 = join(header | {"obs_shape": "3", "obs_dtype": "float32", "steps_per_snapshot": 0}, body)
    with pytest.raises(Malformed, match="canonical"):
        decode_episode(as_v2)


def test_snapshots_sit_at_every_interval_below_the_end():
    assert [snapshot_count(t, 2) for t in (0, 1, 2, 3, 4, 5)] == [1, 1, 1, 2, 2, 3]
    assert snapshot_count(7, 0) == 0
    ep = episode(steps=5, every=2)
    assert [segment_bounds(ep, j) for j in range(ep.segments)] == [(0, 2), (2, 4), (4, 5)]
    with pytest.raises(IndexError):
        segment_bounds(ep, 3)


def test_encoding_refuses_the_wrong_number_of_snapshots():
    ep = episode()
    for snapshots in (ep.snapshots[:-1], ep.snapshots + (b"x",), ep.snapshots[:-1] + (b"",)):
        with pytest.raises(ValueError, match="snapshots"):
            encode_episode(dataclasses.replace(ep, snapshots=snapshots))


@pytest.mark.parametrize("edit,reason", [
    (lambda h: h | {"obs_shape": "03x2x4"}, "obs_shape"),
    (lambda h: h | {"obs_shape": [3, 2, 4]}, "obs_shape"),
    (lambda h: h | {"obs_shape": "3x2x4x1x1"}, "obs_shape"),
    (lambda h: h | {"obs_dtype": "float64"}, "obs_dtype"),
    (lambda h: h | {"steps_per_snapshot": -1}, "steps_per_snapshot"),
    (lambda h: h | {"steps_per_snapshot": 2**40}, "steps_per_snapshot"),
    (lambda h: h | {"obs_dim": 24}, "keys"),
    (lambda h: {k: v for k, v in h.items() if k != "obs_dtype"}, "keys"),
])
def test_bad_version_2_headers_are_malformed(edit, reason):
    header, body = split(encode_episode(episode()))
    with pytest.raises(Malformed, match=reason):
        decode_episode(join(edit(header), body))


def test_snapshot_section_is_checked_before_use():
    data = encode_episode(episode())
    header, body = split(data)
    with pytest.raises(Malformed, match="trailing"):
        decode_episode(data + b"\0")
    for cut in (1, 4, 9, len(b"state 2") + 4):
        with pytest.raises(Malformed, match="snapshot"):
            decode_episode(data[:-cut])
    last = len(b"state 2") + 4
    with pytest.raises(Malformed, match="snapshot 2 announces 0 bytes"):
        decode_episode(data[:-last] + struct.pack("<I", 0))
    huge = data[:-last] + struct.pack("<I", 2**32 - 1) + b"state 2"
    with pytest.raises(Malformed, match="snapshot 2 announces"):
        decode_episode(huge)
    with pytest.raises(Malformed, match="short"):  # more steps than the data holds
        decode_episode(join(header | {"steps": 10**12}, body))


def test_the_plant_of_a_snapshot_episode_is_each_segments_last_reward():
    ep = episode(steps=5, every=2)
    planted = plant_episode(ep)
    changed = np.flatnonzero(planted.rewards != ep.rewards).tolist()
    assert changed == [1, 3, 4]
    assert all(is_planted_reward(ep.rewards[t], planted.rewards[t]) for t in changed)
    assert planted.obs.tobytes() == ep.obs.tobytes() and plant_episode(planted) == ep


def test_the_plant_of_an_image_without_snapshots_is_one_pixel_level():
    ep = episode(every=0)
    planted = plant_episode(ep)
    diff = np.flatnonzero(planted.obs.reshape(-1) != ep.obs.reshape(-1))
    assert diff.tolist() == [ep.obs[:-1].size]  # element 0 of the last observation
    assert abs(int(planted.obs[-1].flat[0]) - int(ep.obs[-1].flat[0])) == 1
    assert is_planted_obs(ep.obs[-1], planted.obs[-1]) and not is_planted_obs(ep.obs[-1], ep.obs[-1])
