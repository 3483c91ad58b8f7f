"""workers/spec.py's policy.kind, policy.obs_norm and ppo.norm_reward: written only when set (a
spec without them keeps its bytes), round trips, and a SpecError saying what to set when the
network does not fit the environment's observations or is too large."""

import dataclasses
import json

from tests.workers.test_spec import error_of, spec_dict
from workers import spec as spec_module
from workers.rl.envs import DISCRETE, SpaceSpec
from workers.spec import DEMO_CARTPOLE, MAX_HIDDEN_WEIGHTS, TaskSpec, parse


def image_env(monkeypatch, shape):
    """Pretend env ids name an image environment of `shape` (uint8, 6 discrete actions): the spec's
    checks only read the environment's SpaceSpec."""
    space = SpaceSpec(obs_dim=shape[0] * shape[1] * shape[2], action_kind=DISCRETE, action_dim=6,
                      obs_shape=shape, obs_dtype="uint8")
    monkeypatch.setattr(spec_module, "env_space_spec", lambda env_id: space)


def test_defaults_are_not_written():
    data = DEMO_CARTPOLE.to_bytes()
    assert b'"kind"' not in data and b'"obs_norm"' not in data and b'"norm_reward"' not in data
    assert DEMO_CARTPOLE.policy_kind == "mlp" and not DEMO_CARTPOLE.obs_norm and not DEMO_CARTPOLE.ppo.norm_reward


def test_set_fields_round_trip_with_their_own_digest():
    spec = dataclasses.replace(DEMO_CARTPOLE, obs_norm=True,
                               ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, norm_reward=True))
    data = spec.to_bytes()
    assert b'"obs_norm":true' in data and b'"norm_reward":true' in data
    assert parse(data) == spec and parse(data).to_bytes() == data and spec.digest() != DEMO_CARTPOLE.digest()
    assert spec.policy_config().obs_norm
    # written as false by hand: the same spec, but not its canonical bytes
    assert parse(json.dumps(spec_dict(policy__obs_norm=False, ppo__norm_reward=False)).encode()) == DEMO_CARTPOLE


def test_a_cnn_kind_on_an_image_env(monkeypatch):
    image_env(monkeypatch, (10, 10, 4))
    spec = TaskSpec(env_id="CartPole-v1", policy_kind="minatar_cnn")
    assert spec.hidden_sizes == (128,) and spec.activation == "relu"
    assert b'"kind":"minatar_cnn"' in spec.to_bytes() and parse(spec.to_bytes()) == spec
    config = spec.policy_config()
    assert (config.kind, config.hidden_sizes, config.seed) == ("minatar_cnn", (128,), spec.seed)


def test_an_mlp_on_images_says_which_kind_to_set(monkeypatch):
    image_env(monkeypatch, (84, 84, 4))
    error = error_of(spec_dict())
    assert error.path == "policy.kind" and '"nature_cnn"' in error.problem and '"minatar_cnn"' in error.problem


def test_a_cnn_on_flat_observations_says_to_set_mlp():
    error = error_of(spec_dict(policy__kind="nature_cnn"))
    assert error.path == "policy.kind" and 'set policy kind to "mlp"' in error.problem


def test_nature_cnn_on_small_images_says_to_use_minatar_cnn(monkeypatch):
    image_env(monkeypatch, (10, 10, 4))
    error = error_of(spec_dict(policy__kind="nature_cnn", policy__hidden_sizes=[512], policy__activation="relu"))
    assert error.path == "policy.kind" and "at least 36x36" in error.problem and "minatar_cnn" in error.problem


def test_unknown_kind_and_non_bool_flags():
    assert error_of(spec_dict(policy__kind="resnet")).path == "policy.kind"
    assert error_of(spec_dict(policy__obs_norm=1)).path == "policy.obs_norm"
    assert error_of(spec_dict(ppo__norm_reward="yes")).path == "ppo.norm_reward"


def test_a_cnn_is_held_to_the_parameter_bound(monkeypatch):
    image_env(monkeypatch, (210, 160, 3))
    # minatar_cnn's one convolution keeps 16 x 208 x 158 features: 526k inputs to each hidden unit
    width = MAX_HIDDEN_WEIGHTS // (16 * 208 * 158) + 1
    error = error_of(spec_dict(policy__kind="minatar_cnn", policy__hidden_sizes=[width]))
    assert error.path == "policy.hidden_sizes" and "parameters, more than the 100,000,000" in error.problem
    assert TaskSpec(policy_kind="minatar_cnn", hidden_sizes=(width - 2,)).hidden_sizes == (width - 2,)
