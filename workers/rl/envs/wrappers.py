"""The closed registry of observation/reward wrappers a spec may name, and their implementations.

Each wrapper's state that changes the data (the frame stack's frames, Atari preprocessing's lives
and last action) is captured by `workers.rl.snapshot`. Observation and reward normalisation are not wrappers here:
their statistics belong to the policy and trainer (`policy.obs_norm`, `ppo.norm_reward`), where
they are committed with the policy.
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from workers.rl.envs import image
from workers.rl.envs.spaces import EnvError


@dataclass(frozen=True)
class Arg:
    """One wrapper argument: its type (bool, int or float), default and inclusive range (numbers)."""

    kind: type
    default: bool | int | float
    lo: int = 0
    hi: int = 0


ATARI_PREPROCESSING = "atari_preprocessing"
FRAME_STACK = "frame_stack"
GRAYSCALE = "grayscale"
RESIZE = "resize"
CLIP_REWARD = "clip_reward"
ACTION_REPEAT = "action_repeat"
TIME_LIMIT = "time_limit"

ARGS = {
    ATARI_PREPROCESSING: {"noop_max": Arg(int, 30, 0, 1000), "frame_skip": Arg(int, 4, 1, 100),
                          "repeat_action_probability": Arg(float, 0.25, 0, 1),
                          "screen_size": Arg(int, 84, 8, 512), "grayscale": Arg(bool, True),
                          "terminal_on_life_loss": Arg(bool, False)},
    FRAME_STACK: {"size": Arg(int, 4, 2, 64)},
    GRAYSCALE: {},
    RESIZE: {"height": Arg(int, 84, 1, 1024), "width": Arg(int, 84, 1, 1024)},
    CLIP_REWARD: {},
    ACTION_REPEAT: {"times": Arg(int, 4, 2, 100)},
    TIME_LIMIT: {"max_episode_steps": Arg(int, 1000, 1, 10_000_000)},
}
"""Every wrapper a spec may name -> its arguments."""

NOT_WRAPPERS = {
    "normalize_obs": 'set "policy": {"obs_norm": true}', "normalize_observation": 'set "policy": {"obs_norm": true}',
    "normalize_reward": 'set "ppo": {"norm_reward": true}',
}
"""Names people expect here, and what a spec does instead (the statistics are committed with the policy)."""

Value = bool | int | float


@dataclass(frozen=True)
class WrapperConfig:
    """One wrapper of an EnvConfig: its name and every argument (defaults filled in), sorted."""

    name: str
    args: tuple[tuple[str, Value], ...] = ()

    def to_dict(self) -> dict:
        """The spec's JSON form: {"name": ..., arg: value, ...}."""
        return {"name": self.name, **dict(self.args)}

    def arg(self, name: str) -> Value:
        return dict(self.args)[name]


def wrapper_config(d) -> WrapperConfig:
    """A WrapperConfig from its JSON form (or itself); EnvError naming what is wrong and what is known."""
    if isinstance(d, WrapperConfig):
        d = d.to_dict()
    if not isinstance(d, dict) or not isinstance(d.get("name"), str):
        raise EnvError(f'a wrapper is a JSON object {{"name": ..., argument: value}}, got {d!r}; '
                       f"known wrappers: {', '.join(ARGS)}")
    name = d["name"]
    if name in NOT_WRAPPERS:
        raise EnvError(f"{name!r} is not an environment wrapper: {NOT_WRAPPERS[name]} (its statistics are "
                       f"committed with the policy)")
    if name not in ARGS:
        raise EnvError(f"unknown wrapper {name!r}; known wrappers: {', '.join(ARGS)}")
    known = ARGS[name]
    args = {}
    for key in sorted(set(d) - {"name"}):
        if key not in known:
            raise EnvError(f"wrapper {name!r} has no argument {key!r}; its arguments: {', '.join(known) or 'none'}")
    for key, arg in known.items():
        value = d.get(key, arg.default)
        if arg.kind is bool and not isinstance(value, bool):
            raise EnvError(f"wrapper {name!r} argument {key!r} must be true or false, got {value!r}")
        if arg.kind is int and (isinstance(value, bool) or not isinstance(value, int) or not arg.lo <= value <= arg.hi):
            raise EnvError(f"wrapper {name!r} argument {key!r} must be an integer in [{arg.lo}, {arg.hi}], "
                           f"got {value!r}")
        if arg.kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not arg.lo <= value <= arg.hi:
                raise EnvError(f"wrapper {name!r} argument {key!r} must be a number in [{arg.lo}, {arg.hi}], "
                               f"got {value!r}")
            value = float(value)
        args[key] = value
    return WrapperConfig(name, tuple(sorted(args.items())))


def check_order(wrappers: tuple[WrapperConfig, ...], atari: bool) -> None:
    """EnvError unless the list is one we can build: each wrapper at most once, Atari preprocessing
    first and only on Atari ids, time limit last (it counts the agent's steps)."""
    names = [w.name for w in wrappers]
    for name in set(names):
        if names.count(name) > 1:
            raise EnvError(f"wrapper {name!r} is listed {names.count(name)} times; list each wrapper once")
    if ATARI_PREPROCESSING in names and (not atari or names[0] != ATARI_PREPROCESSING):
        raise EnvError(f"{ATARI_PREPROCESSING!r} works on Atari ids (ALE/...) only, as the first wrapper"
                       if not atari else f"list {ATARI_PREPROCESSING!r} first: it drives the emulator itself")
    if TIME_LIMIT in names and names[-1] != TIME_LIMIT:
        raise EnvError(f"list {TIME_LIMIT!r} last: it counts the agent's steps, after every other wrapper")


def apply(env: gym.Env, config: WrapperConfig) -> gym.Env:
    """`env` wrapped as `config` says (its input space checked: EnvError naming the mismatch)."""
    a = dict(config.args)
    if config.name == ATARI_PREPROCESSING:
        return AtariPreprocessing(env, **a)
    if config.name == FRAME_STACK:
        return FrameStack(env, a["size"])
    if config.name == GRAYSCALE:
        return Grayscale(env)
    if config.name == RESIZE:
        return Resize(env, a["height"], a["width"])
    if config.name == CLIP_REWARD:
        return ClipReward(env)
    if config.name == ACTION_REPEAT:
        return ActionRepeat(env, a["times"])
    if config.name == TIME_LIMIT:
        return gym.wrappers.TimeLimit(env, a["max_episode_steps"])
    raise EnvError(f"unknown wrapper {config.name!r}; known wrappers: {', '.join(ARGS)}")


def _image_space(env: gym.Env, wrapper: str, channels: tuple[int, ...] | None = None) -> spaces.Box:
    obs = env.observation_space
    if not (isinstance(obs, spaces.Box) and obs.dtype == np.uint8 and len(obs.shape) == 3):
        got = f"{obs.dtype} observations of shape {obs.shape}" if isinstance(obs, spaces.Box) else str(obs)
        raise EnvError(f"wrapper {wrapper!r} takes uint8 image observations (H, W, C); this env gives {got}")
    if channels is not None and obs.shape[2] not in channels:
        raise EnvError(f"wrapper {wrapper!r} takes images with {' or '.join(map(str, channels))} channels, "
                       f"got {obs.shape}")
    return obs


def _image_box(shape: tuple[int, ...], high: int = 255) -> spaces.Box:
    return spaces.Box(0, high, shape=shape, dtype=np.uint8)


class Grayscale(gym.ObservationWrapper):
    """RGB image -> one luma channel (image.grayscale)."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        h, w, _ = _image_space(env, GRAYSCALE, channels=(3,)).shape
        self.observation_space = _image_box((h, w, 1))

    def observation(self, observation):
        return image.grayscale(observation)


class Resize(gym.ObservationWrapper):
    """Image -> (height, width, C) by exact area interpolation (image.resize)."""

    def __init__(self, env: gym.Env, height: int, width: int):
        super().__init__(env)
        obs = _image_space(env, RESIZE)
        self.size = (height, width)
        self.observation_space = _image_box((height, width, obs.shape[2]), int(np.max(obs.high)))

    def observation(self, observation):
        return image.resize(observation, *self.size)


class ClipReward(gym.RewardWrapper):
    """Reward -> its sign (-1.0, 0.0 or 1.0)."""

    def reward(self, reward):
        return float(np.sign(reward))


class ActionRepeat(gym.Wrapper):
    """Each action applied `times` steps in a row (fewer when the episode ends first), the rewards
    summed, the last observation returned: the agent decides every `times` steps. Exploration in
    envs whose reward needs momentum (MountainCar) comes from held actions, which independent
    per-step draws practically never make. Keeps nothing between steps."""

    def __init__(self, env: gym.Env, times: int):
        super().__init__(env)
        self.times = times

    def step(self, action):
        total = 0.0
        for _ in range(self.times):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total += float(reward)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info


class FrameStack(gym.Wrapper):
    """The last `size` images stacked on the channel axis, oldest first: (H, W, C * size) uint8.
    After a reset every slot holds the first image. Its state is `frames` (size, H, W, C)."""

    def __init__(self, env: gym.Env, size: int):
        super().__init__(env)
        obs = _image_space(env, FRAME_STACK)
        h, w, c = obs.shape
        self.size = size
        self.frames = np.zeros((size, h, w, c), dtype=np.uint8)
        self.observation_space = _image_box((h, w, c * size), int(np.max(obs.high)))

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.frames[:] = obs
        return self.stacked(), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.frames[:-1] = self.frames[1:]
        self.frames[-1] = obs
        return self.stacked(), reward, terminated, truncated, info

    def stacked(self) -> np.ndarray:
        size, h, w, c = self.frames.shape
        return np.ascontiguousarray(self.frames.transpose(1, 2, 0, 3).reshape(h, w, size * c))


ALE_KWARGS = {"frameskip": 1, "repeat_action_probability": 0.0, "max_num_frames_per_episode": 0}
"""What EnvConfig makes an ALE env with under atari_preprocessing, which skips frames and repeats
actions itself (ALE keeps its last, sticky, action outside its cloneable state, so sticky actions
are drawn here instead); episodes are cut by a TimeLimit of agent steps, ATARI_TIME_LIMIT unless a
time_limit wrapper says otherwise, not by ALE's frame count (which includes the reset's no-ops)."""
ATARI_TIME_LIMIT = 27_000
"""Agent steps of an Atari episode: 108,000 frames (ALE v5's limit, 30 minutes) at frame skip 4."""


class AtariPreprocessing(gym.Wrapper):
    """The usual Atari preprocessing (Machado et al. 2018) over an ALE env made with `ALE_KWARGS`:
    up to `noop_max` no-op steps after reset; `frame_skip` emulator frames per step, each repeating
    the previous frame's action with `repeat_action_probability` (sticky actions, drawn from the
    env's np_random), the reward summed and the last two frames max-pooled; grayscale (ALE's own
    palette) or RGB, area-resized to `screen_size` square, uint8 (S, S, 1 or 3). With
    `terminal_on_life_loss` a lost life ends the episode. Its state is `lives` and `last_action`;
    the pooled frames are all read within one step."""

    def __init__(self, env: gym.Env, noop_max: int, frame_skip: int, repeat_action_probability: float,
                 screen_size: int, grayscale: bool, terminal_on_life_loss: bool):
        super().__init__(env)
        base = env.unwrapped
        if not hasattr(base, "ale"):
            raise EnvError(f"wrapper {ATARI_PREPROCESSING!r} works on Atari ids (ALE/...) only")
        if base._frameskip != 1 or base.ale.getFloat("repeat_action_probability") != 0.0:
            raise EnvError(f"wrapper {ATARI_PREPROCESSING!r} skips frames and repeats actions itself: make the "
                           f"env with {ALE_KWARGS} (EnvConfig does)")
        if base._obs_type != "rgb":
            raise EnvError(f"wrapper {ATARI_PREPROCESSING!r} reads the screen itself; leave obs_type at 'rgb'")
        self.ale = base.ale
        self.noop_max, self.frame_skip, self.screen_size = noop_max, frame_skip, screen_size
        self.repeat_action_probability = repeat_action_probability
        self.grayscale, self.terminal_on_life_loss = grayscale, terminal_on_life_loss
        self.lives = 0
        self.last_action = 0
        self.observation_space = _image_box((screen_size, screen_size, 1 if grayscale else 3))

    def screen(self) -> np.ndarray:
        return self.ale.getScreenGrayscale()[..., None] if self.grayscale else self.ale.getScreenRGB()

    def observation(self, frames: list[np.ndarray]) -> np.ndarray:
        pooled = frames[0] if len(frames) == 1 else np.maximum(frames[0], frames[1])
        return image.resize(pooled, self.screen_size, self.screen_size)

    def reset(self, *, seed=None, options=None):
        _, info = self.env.reset(seed=seed, options=options)
        noops = int(self.env.unwrapped.np_random.integers(1, self.noop_max + 1)) if self.noop_max > 0 else 0
        for _ in range(noops):
            _, _, terminated, truncated, info = self.env.step(0)
            if terminated or truncated:
                _, info = self.env.reset(options=options)
        self.lives = self.ale.lives()
        self.last_action = 0  # ALE's reset leaves NOOP as the action a sticky frame repeats
        return self.observation([self.screen()]), info

    def step(self, action):
        total, frames = 0.0, []
        terminated = truncated = False
        info = {}
        rng = self.env.unwrapped.np_random
        for t in range(self.frame_skip):
            if rng.random() >= self.repeat_action_probability:
                self.last_action = int(action)
            _, reward, terminated, truncated, info = self.env.step(self.last_action)
            total += reward
            if self.terminal_on_life_loss:
                lives = self.ale.lives()
                terminated = terminated or lives < self.lives
                self.lives = lives
            if t >= self.frame_skip - 2 or terminated or truncated:
                frames.append(self.screen())
            if terminated or truncated:
                break
        self.lives = self.ale.lives()
        return self.observation(frames[-2:]), total, terminated, truncated, info
