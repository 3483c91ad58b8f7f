"""workers/spec.py env_kwargs and wrappers: written only when set, normalised, checked with a
SpecError naming the field and what the environment accepts."""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.workers.fuzzing import FUZZ, edited_json, parses_or_rejects
from workers.rl.envs import EnvConfig, WrapperConfig
from workers.spec import DEMO_CARTPOLE, SpecError, TaskSpec, from_dict, parse

ATARI = [{"name": "atari_preprocessing"}, {"name": "frame_stack", "size": 4}]
CNN = {"hidden_sizes": [512], "activation": "relu", "init_log_std": 0.0, "kind": "nature_cnn"}
"""A policy that takes the frames (an MLP's spec is refused for image observations: test_spec_policy.py)."""


def demo_with(**top):
    return {**json.loads(DEMO_CARTPOLE.to_bytes()), **top}


def error_of(d) -> SpecError:
    with pytest.raises(SpecError) as info:
        from_dict(d)
    return info.value


def test_a_spec_without_them_keeps_its_bytes():
    data = DEMO_CARTPOLE.to_bytes()
    assert b"env_kwargs" not in data and b"wrappers" not in data
    assert DEMO_CARTPOLE.env_config() == EnvConfig("CartPole-v1")
    assert from_dict(demo_with(env_kwargs={}, wrappers=[])).to_bytes() == data


def test_round_trip_fills_every_wrapper_argument():
    spec = from_dict(demo_with(env_id="ALE/Breakout-v5", wrappers=ATARI, policy=CNN))
    data = spec.to_bytes()
    assert parse(data) == spec and parse(data).to_bytes() == data
    written = json.loads(data)["wrappers"]
    assert written[0] == {"name": "atari_preprocessing", "frame_skip": 4, "grayscale": True, "noop_max": 30,
                          "repeat_action_probability": 0.25, "screen_size": 84, "terminal_on_life_loss": False}
    assert written[1] == {"name": "frame_stack", "size": 4}
    assert spec.wrappers == (WrapperConfig("atari_preprocessing", tuple(sorted((k, v) for k, v in written[0].items()
                                                                               if k != "name"))),
                             WrapperConfig("frame_stack", (("size", 4),)))
    assert spec.env_config().space().obs_shape == (84, 84, 4)
    explicit = from_dict(demo_with(env_id="ALE/Breakout-v5", wrappers=written, policy=CNN))
    assert explicit.digest() == spec.digest()  # defaults written out: one meaning, one digest


def test_env_kwargs_are_sorted_and_reach_the_env():
    spec = TaskSpec(env_id="Hopper-v5", env_kwargs={"reset_noise_scale": 0.1, "frame_skip": 2})
    assert spec.env_kwargs == (("frame_skip", 2), ("reset_noise_scale", 0.1))
    assert b'"env_kwargs":{"frame_skip":2,"reset_noise_scale":0.1}' in spec.to_bytes()
    env = spec.env_config().make()
    assert env.unwrapped.frame_skip == 2 and env.unwrapped._reset_noise_scale == 0.1


def test_time_limit_wrapper_sets_the_episode_cap():
    spec = TaskSpec(env_id="Pendulum-v1", wrappers=[{"name": "time_limit", "max_episode_steps": 50}])
    assert spec.env_config().time_limit() == 50 and DEMO_CARTPOLE.env_config().time_limit() == 500


@pytest.mark.parametrize("top, path, message", [
    ({"env_kwargs": {"foo": 1}}, "env_kwargs", "does not accept the keyword argument 'foo'; it accepts: "
                                               "sutton_barto_reward"),
    ({"env_kwargs": {"sutton_barto_reward": [1]}}, "env_kwargs", "values are JSON scalars"),
    ({"env_kwargs": [1]}, "env_kwargs", "must be a JSON object"),
    ({"wrappers": {"name": "frame_stack"}}, "wrappers", "must be a list"),
    ({"wrappers": [{"name": "normalize_obs"}]}, "wrappers[0]", 'set "policy": {"obs_norm": true}'),
    ({"wrappers": [{"name": "clip_reward"}, {"name": "normalize_reward"}]}, "wrappers[1]",
     'set "ppo": {"norm_reward": true}'),
    ({"wrappers": [{"name": "blur"}]}, "wrappers[0]", "unknown wrapper 'blur'; known wrappers: atari_preprocessing, "
                                                      "frame_stack"),
    ({"wrappers": [{"name": "frame_stack", "depth": 4}]}, "wrappers[0]",
     "has no argument 'depth'; its arguments: size"),
    ({"wrappers": [{"name": "frame_stack", "size": 1}]}, "wrappers[0]", r"must be an integer in \[2, 64\], got 1"),
    ({"wrappers": [{"name": "frame_stack"}]}, "wrappers", "takes uint8 image observations"),
    ({"wrappers": [{"name": "clip_reward"}, {"name": "clip_reward"}]}, "wrappers", "listed 2 times"),
    ({"wrappers": [{"name": "time_limit"}, {"name": "clip_reward"}]}, "wrappers", "list 'time_limit' last"),
    ({"env_id": "ALE/Pong-v5"}, "env_id", r'add "wrappers": \[\{"name": "atari_preprocessing"\}'),
    ({"env_id": "ALE/Pong-v5", "env_kwargs": {"frameskip": 1}}, "env_kwargs",
     "frame skip is the \"atari_preprocessing\" wrapper's frame_skip"),
    ({"env_id": "ALE/Pong-v5", "wrappers": [{"name": "frame_stack"}, {"name": "atari_preprocessing"}]}, "wrappers",
     "list 'atari_preprocessing' first"),
    ({"wrappers": [{"name": "atari_preprocessing"}]}, "wrappers", "Atari ids"),
])
def test_bad_env_fields_name_the_field_and_what_is_accepted(top, path, message):
    error = error_of(demo_with(**top))
    assert error.path == path
    assert re.search(message, error.problem), error.problem


FUZZED = [TaskSpec(env_id="Hopper-v5", env_kwargs={"frame_skip": 4, "reset_noise_scale": 0.005, "healthy_reward": 1},
                   wrappers=[{"name": "clip_reward"}, {"name": "time_limit", "max_episode_steps": 100}]),
          TaskSpec(env_id="MinAtar/Breakout-v1", env_kwargs={"sticky_action_prob": 0.1}, policy_kind="minatar_cnn",
                   wrappers=[{"name": "resize", "height": 5, "width": 5}, {"name": "frame_stack", "size": 2}])]


@settings(FUZZ, max_examples=100)  # a new env configuration is made, reset and stepped
@given(data=st.data(), which=st.sampled_from([0, 1]))
def test_any_env_kwargs_and_wrappers_parse_or_name_the_field(data, which):
    d = json.loads(FUZZED[which].to_bytes())
    edited = data.draw(edited_json({"env_kwargs": d["env_kwargs"], "wrappers": d["wrappers"]}))
    if isinstance(edited, dict):
        d.update(edited)
    spec = parses_or_rejects(from_dict, d, SpecError)
    assert spec is None or parse(spec.to_bytes()) == spec
