"""workers/rl/snapshot.py: capture/restore of every family's state, canonical bytes, refusals."""

import gymnasium as gym
import numpy as np
import pytest

from tests.workers.rl.envcases import CASES, SEED, actions, roll, run
from workers.framing import Malformed
from workers.rl.envs import ATARI, SUPPORTED, EnvConfig
from workers.rl.snapshot import SnapshotError, capture, restore
from workers.rl.snapshot_codec import decode, encode


def fresh(config: EnvConfig, seed: int = SEED + 1000):
    env = config.make()
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize("name", CASES)
def test_restored_env_captures_the_same_bytes_step_for_step(name):
    _, snapshots, acts = run(name)
    first, *later = sorted(snapshots)
    env = fresh(CASES[name])
    restore(env, snapshots[first])
    assert capture(env) == snapshots[first]
    _, again = roll(env, acts[first:], first=first, snapshot_at=later)
    assert again == {k: snapshots[k] for k in later}


def test_time_limit_elapsed_steps_are_restored():
    config = EnvConfig("Pendulum-v1", wrappers=[{"name": "time_limit", "max_episode_steps": 30}])
    env = fresh(config, SEED)
    for _ in range(20):
        env.step(np.zeros(1, np.float32))
    data = capture(env)
    other = fresh(config)
    restore(other, data)
    flags = [other.step(np.zeros(1, np.float32))[3] for _ in range(10)]
    assert flags == [False] * 9 + [True]


def test_a_snapshot_of_another_env_or_setting_is_refused():
    cartpole = capture(fresh(EnvConfig("CartPole-v1")))
    with pytest.raises(SnapshotError, match="not of this env"):
        restore(fresh(EnvConfig("Acrobot-v1")), cartpole)
    stacked = EnvConfig("MinAtar/Breakout-v1", wrappers=[{"name": "frame_stack", "size": 2}])
    with pytest.raises(SnapshotError, match="not of this env"):
        restore(fresh(EnvConfig("MinAtar/Breakout-v1", wrappers=[{"name": "frame_stack", "size": 3}])),
                capture(fresh(stacked)))
    with pytest.raises(SnapshotError, match="not of this env"):
        restore(fresh(EnvConfig("CartPole-v1", {"sutton_barto_reward": True})), cartpole)


def test_damaged_bytes_are_refused_and_leave_the_env_unchanged():
    _, snapshots, _ = run("minatar_seaquest", snapshot_at=(23,))
    data = snapshots[23]
    env = fresh(CASES["minatar_seaquest"])
    before = capture(env)
    assert isinstance(SnapshotError("x"), Malformed)
    for bad in [data[:-1], data + b"\0", b"", data[:9], b"XXXX" + data[4:]]:
        with pytest.raises(SnapshotError):
            restore(env, bad)
        assert capture(env) == before


def test_damaged_ale_state_is_refused():
    _, snapshots, _ = run("breakout", snapshot_at=(23,))
    env = fresh(CASES["breakout"])
    before = capture(env)
    described, state = decode(snapshots[23])
    ale = state["base"]["ale"]
    for cut in (ale[:100], ale[:-1], np.concatenate([ale, ale[:2]])):
        bad = encode(described, {**state, "base": {**state["base"], "ale": cut}})
        with pytest.raises(SnapshotError, match="ALE state"):
            restore(env, bad)
        assert capture(env) == before


def test_bytes_are_canonical():
    data = capture(fresh(EnvConfig("CartPole-v1")))
    described, state = decode(data)
    assert encode(described, state) == data
    loose = data.replace(b'"state":', b'"state" :', 1)
    header_len = int.from_bytes(data[5:9], "little") + 1
    loose = loose[:5] + header_len.to_bytes(4, "little") + loose[9:]
    with pytest.raises(SnapshotError, match="canonical"):
        decode(loose)


def test_codec_keeps_plain_values_exactly():
    value = {"a": [1, -2**70, None, True, "s", 0.1, -0.0, (np.float32(1.5), np.int64(-3))],
             "b": np.arange(6, dtype=np.uint8).reshape(2, 3), "c": np.zeros(0), "d": np.bool_(True)}
    described, back = decode(encode({"x": 1}, value))
    assert described == {"x": 1}
    assert encode({"x": 1}, back) == encode({"x": 1}, value)
    assert type(back["a"][5]) is float and np.signbit(back["a"][6])
    assert back["a"][7][0].dtype == np.float32 and back["b"].dtype == np.uint8 and back["b"].shape == (2, 3)
    with pytest.raises(SnapshotError, match="cannot snapshot a object"):
        encode({}, {"x": object()})


def test_minatar_refuses_what_is_not_plain_or_not_seeded():
    env = fresh(CASES["minatar_breakout"])
    env.unwrapped.game.env.helper = object()
    with pytest.raises(SnapshotError, match="cannot snapshot a object"):
        capture(env)
    unseeded = CASES["minatar_breakout"].make()
    unseeded.reset()
    with pytest.raises(SnapshotError, match="reset it with a seed"):
        capture(unseeded)


def test_a_wrapper_outside_the_registry_is_refused():
    env = gym.wrappers.NormalizeObservation(fresh(EnvConfig("CartPole-v1")))
    with pytest.raises(SnapshotError, match="cannot snapshot the wrapper NormalizeObservation"):
        capture(env)


def test_atari_sticky_actions_come_back_with_the_snapshot():
    config = EnvConfig("ALE/Breakout-v5", wrappers=[{"name": "atari_preprocessing", "repeat_action_probability": 0.5}])
    env = fresh(config, SEED)
    acts = actions(env, 40)
    _, snaps = roll(env, acts[:20], snapshot_at=(10,))
    later, _ = roll(env, acts[20:], first=20)
    other = fresh(config)
    restore(other, snaps[10])
    roll(other, acts[10:20], first=10)
    assert roll(other, acts[20:], first=20)[0] == later


def test_a_snapshot_restores_state_never_rules():
    hopper = fresh(CASES["hopper"], SEED)
    hopper.unwrapped.data.xfrc_applied[1] = 50.0  # a force no Hopper step applies
    other = fresh(CASES["hopper"])
    restore(other, capture(hopper))
    assert not other.unwrapped.data.xfrc_applied.any()
    game = fresh(CASES["minatar_breakout"], SEED)
    data = capture(game)
    described, state = decode(data)
    for part, key, value in (("game", "action_map", ["n"] * 6), ("environment", "sticky_action_prob", 0.0),
                             ("game", "pos", "left"), ("game", "ball_x", 2**40)):
        edited = {**state, "base": {**state["base"], part: {**state["base"][part], key: value}}}
        with pytest.raises(SnapshotError, match=f"MinAtar {part}.{key}"):
            restore(fresh(CASES["minatar_breakout"]), encode(described, edited))


@pytest.mark.parametrize("env_id", SUPPORTED)
def test_every_supported_id_snapshots_and_resumes(env_id):
    wrappers = CASES["breakout"].wrappers if SUPPORTED[env_id] == ATARI else ()
    config = EnvConfig(env_id, wrappers=wrappers)
    env = fresh(config, SEED)
    acts = actions(env, 12)
    _, snaps = roll(env, acts[:6], snapshot_at=(3,))
    later, _ = roll(env, acts[6:], first=6)
    other = fresh(config)
    restore(other, snaps[3])
    roll(other, acts[3:6], first=3)
    assert roll(other, acts[6:], first=6)[0] == later


@pytest.mark.parametrize("name", ["cartpole", "hopper", "breakout", "minatar_seaquest", "minatar_breakout"])
def test_an_env_reset_for_a_new_episode_starts_as_a_fresh_one(name):
    """A sampler reuses its envs from episode to episode; a validator replays an episode in a new
    env. Whatever the earlier episode left behind (MinAtar's last action, which a sticky step
    repeats) must not reach the next one."""
    used = fresh(CASES[name], SEED)
    roll(used, actions(used, 40, seed=3))
    used.reset(seed=SEED + 99)
    new = fresh(CASES[name], SEED + 99)
    assert capture(used) == capture(new)
    acts = actions(new, 40)
    assert roll(used, acts)[0] == roll(new, acts)[0]
