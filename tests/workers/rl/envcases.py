"""One small environment per family, fixed action sequences, and their records: shared by
test_snapshot.py and test_env_determinism.py, and run as a script in a subprocess by the latter:

    python -m tests.workers.rl.envcases SNAPSHOTS.json   # prints {case: {...digests}} as JSON

(SNAPSHOTS.json: {case: {step: hex}} captured by the parent; the child restores each and rolls on.)
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
import sys

import numpy as np

from workers.rl.envs import BOX, EnvConfig, space_spec
from workers.rl.snapshot import capture, restore

ATARI_WRAPPERS = ({"name": "atari_preprocessing"}, {"name": "frame_stack", "size": 4})
CASES = {
    "cartpole": EnvConfig("CartPole-v1"),
    "acrobot": EnvConfig("Acrobot-v1"),
    "pendulum": EnvConfig("Pendulum-v1"),
    "mountaincar_continuous": EnvConfig("MountainCarContinuous-v0"),
    "mountaincar_held": EnvConfig("MountainCar-v0", wrappers=({"name": "action_repeat", "times": 4},
                                                              {"name": "time_limit", "max_episode_steps": 250})),
    "hopper": EnvConfig("Hopper-v5"),
    "halfcheetah": EnvConfig("HalfCheetah-v5"),
    "walker2d": EnvConfig("Walker2d-v5"),
    "ant": EnvConfig("Ant-v5"),
    "breakout": EnvConfig("ALE/Breakout-v5", wrappers=ATARI_WRAPPERS),
    "minatar_seaquest": EnvConfig("MinAtar/Seaquest-v1"),
    "minatar_breakout": EnvConfig("MinAtar/Breakout-v1", wrappers=({"name": "frame_stack", "size": 2},)),
}
STEPS = {"breakout": 60}
"""Steps rolled per case (default DEFAULT_STEPS): Atari's are 4 emulator frames each."""
DEFAULT_STEPS = 150
SNAPSHOT_AT = (0, 23, 51)
SEED = 7


def actions(env, n: int, seed: int = SEED) -> list:
    """`n` fixed actions for `env`'s action space (float32 vectors for a box)."""
    spec = space_spec(env)
    rng = np.random.default_rng(seed)
    if spec.action_kind == BOX:
        return list(rng.uniform(spec.action_low, spec.action_high, size=(n, spec.action_dim)).astype(np.float32))
    return [int(a) for a in rng.integers(0, spec.action_dim, size=n)]


def record(obs, reward, terminated, truncated) -> bytes:
    """One step as bytes: the observation's bytes, the reward as a float64, the two flags."""
    return np.asarray(obs).tobytes() + struct.pack("<d??", float(reward), bool(terminated), bool(truncated))


def roll(env, acts: list, first: int = 0, snapshot_at=()) -> tuple[list[bytes], dict[int, bytes]]:
    """Steps `acts` (the sequence's steps `first`, `first + 1`, ...) through `env`; an episode's end
    resets with seed SEED + the step. Returns each step's record and the snapshots taken before
    the steps in `snapshot_at`."""
    records, snapshots = [], {}
    for i, a in enumerate(acts, start=first):
        if i in snapshot_at:
            snapshots[i] = capture(env)
        step = env.step(a)
        records.append(record(*step[:4]))
        if step[2] or step[3]:
            env.reset(seed=SEED + i)
    return records, snapshots


@functools.lru_cache(maxsize=32)
def run(name: str, snapshot_at=SNAPSHOT_AT) -> tuple[list[bytes], dict[int, bytes], list]:
    """(records, snapshots, actions) of case `name` from a fresh env reset with SEED (computed once
    per process: callers only read them)."""
    env = CASES[name].make()
    acts = actions(env, STEPS.get(name, DEFAULT_STEPS))
    env.reset(seed=SEED)
    records, snapshots = roll(env, acts, snapshot_at=snapshot_at)
    env.close()
    return records, snapshots, acts


def resumed(name: str, snapshots: dict[int, bytes], acts: list) -> dict[int, list[bytes]]:
    """step -> the records of steps `step`... after restoring `snapshots[step]`, each into the same
    env of case `name` reset with another seed (a snapshot overwrites whatever an earlier one left)."""
    env = CASES[name].make()
    env.reset(seed=SEED + 1000)
    out = {}
    for step, snapshot in snapshots.items():
        restore(env, snapshot)
        out[step], _ = roll(env, acts[step:], first=step)
    env.close()
    return out


def digest(chunks) -> str:
    return hashlib.sha256(b"".join(chunks)).hexdigest()


def main(snapshots_file: str) -> None:
    parent = json.loads(open(snapshots_file).read())
    out = {}
    for name in CASES:
        records, snapshots, acts = run(name)
        out[name] = {"records": digest(records), "snapshots": {str(k): digest([v]) for k, v in snapshots.items()},
                     "resumed": {str(k): digest(v) for k, v in resumed(
                         name, {int(k): bytes.fromhex(v) for k, v in parent[name].items()}, acts).items()}}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    import torch

    torch.set_num_threads(int(sys.argv[2]))
    main(sys.argv[1])
