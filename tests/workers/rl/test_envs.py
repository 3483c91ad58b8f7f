"""workers/rl/envs.py: classic-control envs by id, clear errors for unknown ids and spaces."""

import pytest

from workers.rl.envs import BOX, CLASSIC_CONTROL, DISCRETE, EnvError, SpaceSpec, env_space_spec, make_env, space_spec

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
    with pytest.raises(EnvError, match=r"observation space .* is not supported.*FlattenObservation"):
        make_env(env_id)


def test_space_spec_validation():
    with pytest.raises(EnvError, match="needs action_low and action_high"):
        SpaceSpec(3, BOX, 1).validate()
    with pytest.raises(EnvError, match="action_kind must be"):
        SpaceSpec(3, "multi", 1).validate()
