"""workers/rl/envs: every family by id, kwargs and wrappers checked, clear errors for unknown ids,
kwargs, wrappers and spaces."""

import gymnasium as gym
import numpy as np
import pytest

from workers.rl.envs import (
    ATARI,
    BOX,
    CLASSIC,
    CLASSIC_CONTROL,
    DISCRETE,
    MINATAR,
    MUJOCO,
    OTHER,
    SUPPORTED,
    UINT8,
    EnvConfig,
    EnvError,
    SpaceSpec,
    WrapperConfig,
    accepted_kwargs,
    env_space_spec,
    family,
    image,
    make_env,
    space_spec,
    time_limit,
    wrapper_config,
)

EXPECTED = {
    "CartPole-v1": (4, DISCRETE, 2),
    "Acrobot-v1": (6, DISCRETE, 3),
    "MountainCar-v0": (2, DISCRETE, 3),
    "Pendulum-v1": (3, BOX, 1),
    "MountainCarContinuous-v0": (2, BOX, 1),
}


@pytest.mark.parametrize("env_id", CLASSIC_CONTROL)
def test_classic_control_envs_have_supported_spaces(env_id):
    env = make_env(env_id)
    spec = space_spec(env)
    env.close()
    assert (spec.obs_dim, spec.action_kind, spec.action_dim) == EXPECTED[env_id]
    if spec.action_kind == BOX:
        assert len(spec.action_low) == len(spec.action_high) == spec.action_dim
    assert SpaceSpec.from_dict(spec.to_dict()) == spec
    assert env_space_spec(env_id) == spec  # by id: made, read and closed


def test_unknown_id_suggests_close_match():
    with pytest.raises(EnvError, match=r"unknown environment id 'CartPol-v1'.*'CartPole-v1'"):
        make_env("CartPol-v1")


@pytest.mark.parametrize("bad", ["", None, 3])
def test_non_string_id_is_rejected(bad):
    with pytest.raises(EnvError, match="env_id must be a non-empty gymnasium id"):
        make_env(bad)


@pytest.mark.parametrize("env_id", ["Blackjack-v1", "FrozenLake-v1"])
def test_unsupported_observation_space_says_what_to_do(env_id):
    with pytest.raises(EnvError, match=r"is not supported.*pick an environment with a supported space: `decentrl task"):
        make_env(env_id)


def test_space_spec_validation():
    with pytest.raises(EnvError, match="needs action_low and action_high"):
        SpaceSpec(3, BOX, 1).validate()
    with pytest.raises(EnvError, match="action_kind must be"):
        SpaceSpec(3, "multi", 1).validate()


# -- families ------------------------------------------------------------------------------------

IMAGE_SHAPES = {"ALE/Breakout-v5": (84, 84, 4), "MinAtar/Breakout-v1": (10, 10, 4), "MinAtar/Seaquest-v1": (10, 10, 10)}


@pytest.mark.parametrize("env_id", [i for i, fam in SUPPORTED.items() if fam == MUJOCO])
def test_mujoco_envs_have_flat_float_observations_and_bounded_actions(env_id):
    spec = env_space_spec(env_id)
    assert family(env_id) == MUJOCO and spec.action_kind == BOX and not spec.image
    assert spec.obs_dtype == "float32" and all(lo == -1.0 for lo in spec.action_low)


@pytest.mark.parametrize("env_id", IMAGE_SHAPES)
def test_pixel_envs_give_uint8_images(env_id):
    wrappers = [{"name": "atari_preprocessing"}, {"name": "frame_stack"}] if env_id.startswith("ALE/") else []
    config = EnvConfig(env_id, wrappers=wrappers)
    spec = config.space()
    assert (spec.obs_shape, spec.obs_dtype, spec.action_kind) == (IMAGE_SHAPES[env_id], UINT8, DISCRETE)
    env = config.make()
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(0)
    assert obs.dtype == np.uint8 and obs.shape == IMAGE_SHAPES[env_id]
    if family(env_id) == MINATAR:
        assert set(np.unique(obs)) == {0, 255}  # bool planes as pixels off/on


def test_every_supported_id_is_in_its_family():
    assert {family(i) for i in SUPPORTED} == {CLASSIC, MUJOCO, ATARI, MINATAR}
    assert all(family(i) == fam for i, fam in SUPPORTED.items())
    assert family("FrozenLake-v1") == OTHER


def test_kwargs_are_checked_against_the_constructor():
    assert accepted_kwargs("MinAtar/Breakout-v1") == ("difficulty_ramping", "sticky_action_prob")
    assert "frameskip" not in accepted_kwargs("ALE/Pong-v5") and "render_mode" not in accepted_kwargs("Hopper-v5")
    with pytest.raises(EnvError, match="does not accept the keyword argument 'render_mode'; it accepts: g"):
        EnvConfig("Pendulum-v1", {"render_mode": "human"})
    with pytest.raises(EnvError, match="fails on its first reset or step"):
        EnvConfig("Hopper-v5", {"reset_noise_scale": "x"}).space()
    assert make_env("Pendulum-v1", g=3.0).unwrapped.g == 3.0  # the old keyword form still works
    assert EnvConfig("Pendulum-v1", {"g": 3.0}) == EnvConfig("Pendulum-v1", (("g", 3.0),))


def test_minatar_kwargs_reach_the_game():
    env = EnvConfig("MinAtar/Breakout-v1", {"sticky_action_prob": 0.0}).make()
    assert env.unwrapped.game.sticky_action_prob == 0.0


# -- wrappers ------------------------------------------------------------------------------------

def test_wrapper_arguments_are_filled_in_and_checked():
    assert wrapper_config({"name": "resize"}) == WrapperConfig("resize", (("height", 84), ("width", 84)))
    with pytest.raises(EnvError, match="argument 'grayscale' must be true or false"):
        wrapper_config({"name": "atari_preprocessing", "grayscale": 1})
    with pytest.raises(EnvError, match=r"'repeat_action_probability' must be a number in \[0, 1\]"):
        wrapper_config({"name": "atari_preprocessing", "repeat_action_probability": 2})
    with pytest.raises(EnvError, match="known wrappers: atari_preprocessing, frame_stack, grayscale, resize, "
                                       "clip_reward, action_repeat, time_limit"):
        wrapper_config({"name": "NormalizeObservation"})


def test_frame_stack_stacks_on_the_channel_axis_oldest_first():
    env = EnvConfig("MinAtar/Breakout-v1", wrappers=[{"name": "frame_stack", "size": 3}]).make()
    first, _ = env.reset(seed=1)
    assert first.shape == (10, 10, 12) and all(np.array_equal(first[..., :4], first[..., 4 * k:4 * k + 4])
                                                for k in range(3))
    plain = EnvConfig("MinAtar/Breakout-v1").make()
    plain.reset(seed=1)
    frames = [first[..., :4]]
    for _ in range(4):
        obs, *_ = env.step(1)
        frames.append(plain.step(1)[0])
        assert np.array_equal(obs, np.concatenate(frames[-3:], axis=2) if len(frames) >= 3
                              else np.concatenate([frames[0]] * (3 - len(frames)) + frames, axis=2))


def test_grayscale_and_resize_are_exact_integer_arithmetic():
    rgb = np.zeros((4, 6, 3), np.uint8)
    rgb[..., 0], rgb[..., 1], rgb[..., 2] = 200, 100, 50
    assert image.grayscale(rgb)[0, 0, 0] == (299 * 200 + 587 * 100 + 114 * 50 + 500) // 1000
    blocks = np.arange(24, dtype=np.uint8).reshape(4, 6, 1)
    assert np.array_equal(image.resize(blocks, 2, 3)[..., 0],
                          (blocks[..., 0].reshape(2, 2, 3, 2).astype(int).sum(axis=(1, 3)) + 2) // 4)
    flat = np.full((210, 160, 1), 77, np.uint8)
    assert np.all(image.resize(flat, 84, 84) == 77)  # area weights sum to one exactly


def test_clip_reward_and_time_limit():
    config = EnvConfig("Pendulum-v1",
                       wrappers=[{"name": "clip_reward"}, {"name": "time_limit", "max_episode_steps": 7}])
    assert config.time_limit() == 7 and time_limit(config) == 7 and time_limit("Pendulum-v1") == 200
    env = config.make()
    env.reset(seed=0)
    steps = [env.step(np.zeros(1, np.float32)) for _ in range(7)]
    assert {s[1] for s in steps} <= {-1.0, 0.0} and [s[3] for s in steps] == [False] * 6 + [True]


def test_action_repeat_holds_each_action_and_sums_the_rewards():
    config = EnvConfig("MountainCar-v0", wrappers=[{"name": "action_repeat", "times": 4},
                                                   {"name": "time_limit", "max_episode_steps": 3}])
    assert config.time_limit() == 3  # decisions, not env steps
    env, plain = config.make(), EnvConfig("MountainCar-v0").make()
    obs, _ = env.reset(seed=3)
    assert np.array_equal(obs, plain.reset(seed=3)[0])
    for decision, action in enumerate([2, 0, 2]):
        obs, reward, terminated, truncated, _ = env.step(action)
        held = [plain.step(action) for _ in range(4)]
        assert np.array_equal(obs, held[-1][0]) and reward == sum(h[1] for h in held) == -4.0
        assert (terminated, truncated) == (False, decision == 2)
    with pytest.raises(EnvError, match=r"'times' must be an integer in \[2, 100\]"):
        wrapper_config({"name": "action_repeat", "times": 1})


def test_action_repeat_stops_holding_when_the_episode_ends():
    env = EnvConfig("CartPole-v1", wrappers=[{"name": "action_repeat", "times": 50}]).make()
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(1)  # pushing right 50 times topples the pole first
    assert terminated and not truncated and 1.0 <= reward < 50.0


def test_atari_preprocessing_does_the_frame_skip_and_sticky_actions():
    env = EnvConfig("ALE/Breakout-v5", wrappers=[{"name": "atari_preprocessing", "frame_skip": 3}]).make()
    base = env.unwrapped
    assert base._frameskip == 1 and base.ale.getFloat("repeat_action_probability") == 0.0
    env.reset(seed=0)
    before = base.ale.getEpisodeFrameNumber()
    env.step(1)
    assert base.ale.getEpisodeFrameNumber() - before == 3


def test_atari_episodes_are_cut_by_a_time_limit_of_agent_steps_only():
    config = EnvConfig("ALE/Pong-v5", wrappers=[{"name": "atari_preprocessing"}])
    assert config.time_limit() == 27_000
    env = config.make()
    assert isinstance(env, gym.wrappers.TimeLimit) and env.unwrapped.ale.getInt("max_num_frames_per_episode") == 0
    short = EnvConfig("ALE/Pong-v5", wrappers=[{"name": "atari_preprocessing"},
                                               {"name": "time_limit", "max_episode_steps": 5}])
    env = short.make()
    env.reset(seed=0)
    assert [env.step(0)[3] for _ in range(5)] == [False] * 4 + [True] and short.time_limit() == 5
    with pytest.raises(EnvError, match="episode length is the \"time_limit\" wrapper's max_episode_steps"):
        EnvConfig("ALE/Pong-v5", {"max_num_frames_per_episode": 100})


@pytest.mark.parametrize(("env_id", "kwargs", "steps"), [
    ("HalfCheetah-v5", {}, 1000),
    ("Pendulum-v1", {}, 200),
    ("Hopper-v5", {"terminate_when_unhealthy": False}, 1000),
    ("Hopper-v5", {}, None),  # it ends when it falls
    ("CartPole-v1", {}, None),
    ("MountainCarContinuous-v0", {}, None),
])
def test_which_envs_run_every_episode_to_the_time_limit(env_id, kwargs, steps):
    assert EnvConfig(env_id, kwargs=kwargs).fixed_episode_steps() == steps
