"""Fixtures for workers/rl tests: one torch thread (results are compared bit for bit) and small
policies for a discrete and a continuous env."""

import pytest
import torch

from workers.rl.envs import make_env, space_spec
from workers.rl.policy import PolicyConfig, make_policy

torch.set_num_threads(1)


def policy_for(env_id, seed=0, hidden=(32, 32)):
    env = make_env(env_id)
    spec = space_spec(env)
    env.close()
    return make_policy(spec, PolicyConfig(hidden_sizes=hidden, seed=seed))


@pytest.fixture(name="policy_for")
def policy_for_fixture():
    """`policy_for(env_id, seed=0, hidden=(32, 32))`: a fresh policy for that env."""
    return policy_for


@pytest.fixture
def cartpole_policy():
    return policy_for("CartPole-v1")


@pytest.fixture
def pendulum_policy():
    return policy_for("Pendulum-v1")
