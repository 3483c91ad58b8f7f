"""Snapshots of a running environment's state, as canonical bytes a validator restores and replays.

`capture(env)` reads everything a step depends on, from the outermost wrapper down to the base env:
gymnasium's TimeLimit elapsed steps, our wrappers' state (frame stack frames, Atari preprocessing's
lives and last action, for its sticky actions), and the family's own state:

- classic control: `state` (+ CartPole's `steps_beyond_terminated`);
- MuJoCo: `mj_getState(mjSTATE_FULLPHYSICS | mjSTATE_WARMSTART)` (time, qpos, qvel, act, ...; not
  the user inputs, see `_mj_state`), plus the body positions a step reads before simulating (Ant's
  `xpos`);
- Atari: `ale.cloneState(include_rng=True).serialize()` (the emulator and its RNG; its mode and
  difficulty must be the env's own);
- MinAtar: the game objects' plain attributes and their numpy RandomState (`get_state()`); the
  settings among them (`_MINATAR_SETTINGS`) must be the env's own;

and the base env's `np_random` generator (gymnasium envs; it draws Atari's no-ops and stochastic
frame skips). `restore(env, data)` writes it into an env made from the same EnvConfig and reset
once: stepping it then gives bit-identical observations, rewards and flags, and `capture` the same
bytes. Encoding: `workers.rl.snapshot_codec` (no pickle).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from workers.framing import brief
from workers.rl.envs import MinAtarPlanes
from workers.rl.envs.wrappers import ActionRepeat, AtariPreprocessing, ClipReward, FrameStack, Grayscale, Resize
from workers.rl.snapshot_codec import SnapshotError, decode, encode

__all__ = ["SnapshotError", "capture", "restore"]

_CLASSIC = {
    "CartPoleEnv": ("steps_beyond_terminated",), "AcrobotEnv": (), "MountainCarEnv": (),
    "Continuous_MountainCarEnv": (), "PendulumEnv": (),
}
"""Classic-control envs -> what their step reads besides `state` (Pendulum's `last_u` only renders)."""
_MUJOCO = ("HopperEnv", "HalfCheetahEnv", "Walker2dEnv", "AntEnv")
"""MuJoCo envs whose steps read nothing but the physics state and body positions (checked in
tests/workers/rl/test_snapshot.py)."""
_STATELESS = (Grayscale, Resize, ClipReward, ActionRepeat, MinAtarPlanes, gym.wrappers.PassiveEnvChecker)
"""Wrappers whose step depends on nothing they keep (PassiveEnvChecker's flags only govern warnings)."""


def capture(env: gym.Env) -> bytes:
    """The canonical snapshot bytes of `env`'s current state; SnapshotError if it holds a wrapper or
    an env whose state we cannot capture."""
    return encode(_describe(env), {"layers": [_layer_state(w) for w in _wrappers(env)],
                                   "base": _base_state(env.unwrapped)})


def restore(env: gym.Env, data: bytes) -> None:
    """Writes the snapshot `data` into `env` (made from the same EnvConfig and reset once).
    SnapshotError if `data` is not a snapshot of such an env; `env` is then left unchanged."""
    described, state = decode(data)
    expected = _describe(env)
    if described != expected:
        raise SnapshotError(f"a snapshot of {brief(described, 300)}, not of this env ({brief(expected, 300)})")
    wrappers = _wrappers(env)
    if not isinstance(state, dict) or sorted(state) != ["base", "layers"] or not isinstance(state["layers"], list) \
            or len(state["layers"]) != len(wrappers):
        raise SnapshotError("a snapshot's state is {layers: [one per wrapper], base: ...}")
    current = capture(env)
    try:
        for wrapper, layer in zip(wrappers, state["layers"], strict=True):
            _restore_layer(wrapper, layer)
        _restore_base(env.unwrapped, state["base"])
    except BaseException:
        restore(env, current)  # the env's own snapshot: puts back what the bad one changed
        raise


# -- what identifies an env --------------------------------------------------------------------------

def _wrappers(env: gym.Env) -> list[gym.Wrapper]:
    out = []
    while isinstance(env, gym.Wrapper):
        out.append(env)
        env = env.env
    return out


def _describe(env: gym.Env) -> dict:
    """The env's id, constructor kwargs and wrapper chain with their settings: a snapshot restores
    only into an env that matches it."""
    base = env.unwrapped
    spec = base.spec
    if spec is None:
        raise SnapshotError(f"{type(base).__name__} was not made by gymnasium.make; make it with EnvConfig.make")
    kwargs = {k: v for k, v in spec.kwargs.items() if v is None or isinstance(v, (bool, int, float, str))}
    return {"env_id": spec.id, "kwargs": {k: ["float", repr(v)] if isinstance(v, float) else v
                                          for k, v in sorted(kwargs.items())},
            "layers": [[type(w).__name__, _settings(w)] for w in _wrappers(env)], "base": type(base).__name__}


def _settings(w: gym.Wrapper) -> dict:
    if isinstance(w, gym.wrappers.TimeLimit):
        return {"max_episode_steps": w._max_episode_steps}
    if isinstance(w, FrameStack):
        return {"size": w.size}
    if isinstance(w, Resize):
        return {"size": list(w.size)}
    if isinstance(w, ActionRepeat):
        return {"times": w.times}
    if isinstance(w, AtariPreprocessing):
        return {"noop_max": w.noop_max, "frame_skip": w.frame_skip, "screen_size": w.screen_size,
                "repeat_action_probability": repr(w.repeat_action_probability), "grayscale": w.grayscale,
                "terminal_on_life_loss": w.terminal_on_life_loss}
    return {}


# -- wrappers --------------------------------------------------------------------------------------

def _layer_state(w: gym.Wrapper):
    if isinstance(w, gym.wrappers.TimeLimit):
        if w._elapsed_steps is None:
            raise SnapshotError("reset the env before capturing it (its TimeLimit has not started)")
        return {"elapsed_steps": int(w._elapsed_steps)}
    if isinstance(w, gym.wrappers.OrderEnforcing):
        return {"has_reset": bool(w._has_reset)}
    if isinstance(w, FrameStack):
        return {"frames": w.frames}
    if isinstance(w, AtariPreprocessing):
        return {"lives": int(w.lives), "last_action": int(w.last_action)}
    if isinstance(w, _STATELESS):
        return {}
    raise SnapshotError(f"cannot snapshot the wrapper {type(w).__name__}: not one of workers.rl.envs' wrappers")


def _restore_layer(w: gym.Wrapper, layer) -> None:
    want = _layer_state(w)
    if not isinstance(layer, dict) or sorted(layer) != sorted(want):
        raise SnapshotError(f"{type(w).__name__}'s snapshot state has keys {sorted(want)}")
    if isinstance(w, gym.wrappers.TimeLimit):
        w._elapsed_steps = _count(layer["elapsed_steps"], "TimeLimit elapsed steps")
    elif isinstance(w, gym.wrappers.OrderEnforcing):
        w._has_reset = _typed(layer["has_reset"], bool, "OrderEnforcing has_reset")
    elif isinstance(w, FrameStack):
        w.frames[...] = _like(layer["frames"], w.frames, "frame stack frames")
    elif isinstance(w, AtariPreprocessing):
        if _count(layer["last_action"], "Atari preprocessing last action") >= w.action_space.n:
            raise SnapshotError(f"Atari preprocessing last action is below {w.action_space.n}")
        w.lives = _count(layer["lives"], "Atari preprocessing lives")
        w.last_action = layer["last_action"]


# -- base envs ---------------------------------------------------------------------------------------

def _base_state(base: gym.Env) -> dict:
    name = type(base).__name__
    if name in _CLASSIC:
        return {"state": base.state} | {a: getattr(base, a) for a in _CLASSIC[name]} | {"np_random": _rng_state(base)}
    if name in _MUJOCO:
        import mujoco

        physics = np.empty(mujoco.mj_stateSize(base.model, _mj_state()))
        mujoco.mj_getState(base.model, base.data, physics, _mj_state())
        return {"physics": physics, "xpos": base.data.xpos.copy(), "xipos": base.data.xipos.copy(),
                "np_random": _rng_state(base)}
    if name == "AtariEnv":
        ale = np.frombuffer(base.ale.cloneState(include_rng=True).serialize(), dtype=np.uint8)
        return {"ale": ale, "np_random": _rng_state(base)}
    if name == "BaseEnv" and type(base).__module__ == "minatar.gym":
        return _minatar_state(base)
    raise SnapshotError(f"cannot snapshot {name}: snapshots cover classic control "
                        f"({', '.join(_CLASSIC)}), MuJoCo ({', '.join(_MUJOCO)}), Atari and MinAtar")


def _restore_base(base: gym.Env, state) -> None:
    want = _base_state(base)
    if not isinstance(state, dict) or sorted(state) != sorted(want):
        raise SnapshotError(f"{type(base).__name__}'s snapshot state has keys {sorted(want)}")
    name = type(base).__name__
    if name == "BaseEnv":
        return _restore_minatar(base, state)
    if name in _CLASSIC:
        base.state = _classic_state(state["state"], want["state"])
        for attr in _CLASSIC[name]:
            value = state[attr]
            if value is not None and not (isinstance(value, int) and not isinstance(value, bool)):
                raise SnapshotError(f"{attr} is an integer or None, got {type(value).__name__}")
            setattr(base, attr, value)
    elif name in _MUJOCO:
        import mujoco

        physics = _like(state["physics"], want["physics"], "MuJoCo state")
        xpos, xipos = _like(state["xpos"], want["xpos"], "xpos"), _like(state["xipos"], want["xipos"], "xipos")
        mujoco.mj_setState(base.model, base.data, physics, _mj_state())
        base.data.xpos[...], base.data.xipos[...] = xpos, xipos
    elif name == "AtariEnv":
        import ale_py

        raw = state["ale"]
        if not isinstance(raw, np.ndarray) or raw.dtype != np.uint8 or raw.ndim != 1:
            raise SnapshotError("the ALE state is a 1-D uint8 array")
        try:
            ale_state = ale_py.ALEState(raw.tobytes())
        except Exception as exc:  # noqa: BLE001 - ale-py raises bare runtime errors for bad bytes
            raise SnapshotError(f"not an ALE state: {exc}") from None
        own = base.ale.cloneState()
        if (ale_state.getCurrentMode(), ale_state.getDifficulty()) != (own.getCurrentMode(), own.getDifficulty()):
            raise SnapshotError(f"the ALE state is of game mode {ale_state.getCurrentMode()} and difficulty "
                                f"{ale_state.getDifficulty()}, the env's are {own.getCurrentMode()} and "
                                f"{own.getDifficulty()}")
        try:
            base.ale.restoreState(ale_state)
        except Exception as exc:  # noqa: BLE001 - as above
            raise SnapshotError(f"not an ALE state of this game: {exc}") from None
        if base.ale.cloneState(include_rng=True).serialize() != raw.tobytes():  # it skips parts it cannot read
            raise SnapshotError("not an ALE state of this game: the emulator does not read it back as written")
    _restore_rng(base, state["np_random"])


def _mj_state() -> int:
    """What a MuJoCo snapshot holds: everything the simulation evolves (time, qpos, qvel, act,
    history, plugin and plastic state) and the solver's warm start. Not the user inputs (controls,
    applied forces, mocap, equality activation, userdata): the env sets its controls before each
    step and never touches the rest, so a snapshot cannot push the robot."""
    import mujoco

    return int(mujoco.mjtState.mjSTATE_FULLPHYSICS) | int(mujoco.mjtState.mjSTATE_WARMSTART)


def _rng_state(base: gym.Env):
    """The base env's np_random state, or None before it was seeded (read without creating it:
    gymnasium's `np_random` property would seed a new one from the OS)."""
    rng = base._np_random
    return None if rng is None else rng.bit_generator.state


def _restore_rng(base: gym.Env, state) -> None:
    if state is None:
        base._np_random = None
        return
    if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
        raise SnapshotError("np_random is a PCG64 generator's state")
    generator = np.random.Generator(np.random.PCG64())
    try:
        generator.bit_generator.state = state
    except (TypeError, ValueError, KeyError, IndexError, OverflowError) as exc:
        raise SnapshotError(f"not a PCG64 state: {exc}") from None
    if generator.bit_generator.state != state:
        raise SnapshotError("not a PCG64 state (it does not read back as written)")
    base._np_random = generator


# -- MinAtar -------------------------------------------------------------------------------------------

def _minatar_state(base) -> dict:
    game = base.game  # minatar.Environment: sticky actions, and the game itself in game.env
    if game.random is not game.env.random:
        raise SnapshotError("a MinAtar env's random state is shared once it is reset with a seed; reset it "
                            "with a seed before capturing")
    return {"environment": {k: v for k, v in sorted(vars(game).items()) if k not in ("env", "random")},
            "game": {k: v for k, v in sorted(vars(game.env).items()) if k != "random"},
            "random": game.random.get_state(legacy=True)}


def _restore_minatar(base, state) -> None:
    game = base.game
    want = _minatar_state(base)
    for part in ("environment", "game"):
        got = state[part]
        if not isinstance(got, dict) or sorted(got) != sorted(want[part]):
            raise SnapshotError(f"MinAtar {part} attributes are {sorted(want[part])}")
        for k, v in got.items():
            _check_minatar(v, want[part][k], f"MinAtar {part}.{k}", setting=k in _MINATAR_SETTINGS[part])
    random = state["random"]
    _check_kind(random, want["random"], "MinAtar random state")
    if not (isinstance(random, tuple) and len(random) == 5 and random[0] == "MT19937"):
        raise SnapshotError("MinAtar's random state is RandomState.get_state(): ('MT19937', keys, pos, has_gauss, "
                            "cached_gaussian)")
    try:
        game.random.set_state(random)
    except (TypeError, ValueError, IndexError, OverflowError) as exc:
        raise SnapshotError(f"not a RandomState state: {exc}") from None
    for part, target in (("environment", game), ("game", game.env)):
        for k, v in state[part].items():
            setattr(target, k, v)


_MINATAR_SETTINGS = {"environment": ("closed", "env_name", "n_channels", "sticky_action_prob", "visualized"),
                     "game": ("action_map", "channels", "ramping")}
"""Attributes fixed when the env is made: a snapshot must hold the env's own values (it restores a
game's state, never its rules)."""
_MAX_GAME_INT = 1 << 31


def _check_minatar(value, like, what: str, setting: bool) -> None:
    """SnapshotError unless `value` can stand where `like` is: equal to it for a setting, else an
    array of its dtype and shape, or the same kind of value made of ints (|n| < 2**31), bools and
    None only (what MinAtar's games keep)."""
    if setting:
        if _category(value) != _category(like) or value != like:
            raise SnapshotError(f"{what} is a setting of the env: {like!r}")
    elif isinstance(like, np.ndarray):
        _like(value, like, what)
    else:
        _check_kind(value, like, what)
        if not _small_ints(value):
            raise SnapshotError(f"{what} holds something other than ints below 2**31, bools and None")


def _small_ints(value) -> bool:
    if value is None or isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (int, np.integer)):
        return -_MAX_GAME_INT < int(value) < _MAX_GAME_INT
    return isinstance(value, (list, tuple)) and all(_small_ints(v) for v in value)


def _check_kind(value, like, what: str) -> None:
    """SnapshotError unless `value` is the same kind of value as `like` (None, bool, number, str,
    sequence, dict; for arrays the same dtype and shape): the game's step could not use it otherwise."""
    if isinstance(like, np.ndarray):
        _like(value, like, what)
    elif _category(value) != _category(like):
        raise SnapshotError(f"{what} is a {_category(like)}, got {_category(value)}")


def _category(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.number)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return type(value).__name__


def _classic_state(value, like):
    """A classic-control `state`: a float array, or a tuple of floats (MountainCar's step makes one),
    of the current state's length. Its dtype is kept: MountainCarContinuous steps in float32."""
    if isinstance(value, np.ndarray) and value.dtype in (np.float32, np.float64) and value.shape == np.shape(like):
        return value
    if isinstance(value, tuple) and len(value) == len(like) and all(
            isinstance(x, (float, np.floating)) for x in value):
        return value
    raise SnapshotError(f"a classic-control state is {len(like)} floats, got {_kind(value)}")


# -- checks ----------------------------------------------------------------------------------------------

def _like(value, like: np.ndarray, what: str) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype != like.dtype or value.shape != like.shape:
        raise SnapshotError(f"{what} is a {like.dtype} array of shape {like.shape}, got {_kind(value)}")
    return value


def _kind(value) -> str:
    return f"a {value.dtype} array of shape {value.shape}" if isinstance(value, np.ndarray) else type(value).__name__


def _count(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SnapshotError(f"{what} is a non-negative integer, got {value!r}")
    return value


def _typed(value, kind: type, what: str):
    if type(value) is not kind:
        raise SnapshotError(f"{what} is a {kind.__name__}, got {type(value).__name__}")
    return value
