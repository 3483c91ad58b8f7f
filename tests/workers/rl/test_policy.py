"""workers/rl/policy.py: seeded init, safetensors round trip, digest, config validation."""

import json

import pytest
import torch
from eth_utils import keccak
from safetensors.torch import save as st_save

from workers.rl.config import ACTIVATIONS
from workers.rl.envs import make_env, space_spec
from workers.rl.policy import PolicyConfig, digest, from_bytes, load, make_policy, read_metadata, save, to_bytes


def test_same_seed_same_parameters_and_digest(policy_for):
    a, b = policy_for("CartPole-v1", seed=3), policy_for("CartPole-v1", seed=3)
    assert to_bytes(a) == to_bytes(b)
    assert digest(a) == digest(b) == keccak(to_bytes(a))
    assert digest(policy_for("CartPole-v1", seed=4)) != digest(a)


def test_init_does_not_touch_global_rng(policy_for):
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    policy_for("CartPole-v1", seed=9)
    assert torch.equal(torch.rand(3), before)


def test_a_checkpoint_is_safetensors_own_encoding(policy_for):
    from safetensors.torch import save as st_save

    policy = policy_for("Pendulum-v1", seed=2)
    meta = {"decentrl": json.dumps(read_metadata(to_bytes(policy)), sort_keys=True, separators=(",", ":"))}
    assert to_bytes(policy) == st_save(dict(policy.state_dict()), metadata=meta)  # the torch writer's bytes


def test_loading_a_checkpoint_does_not_touch_global_rng_either(policy_for):
    data = to_bytes(policy_for("Pendulum-v1", seed=9))
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    assert to_bytes(from_bytes(data)) == data  # every parameter comes from the checkpoint
    assert torch.equal(torch.rand(3), before)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_save_load_round_trip(tmp_path, env_id, policy_for):
    policy = policy_for(env_id, seed=5)
    with torch.no_grad():
        for p in policy.parameters():
            p.add_(0.01)  # not just the init
    d = save(policy, tmp_path / "p.safetensors")
    loaded = load(tmp_path / "p.safetensors")
    assert digest(loaded) == d == digest(policy)
    obs = torch.randn(7, policy.spec.obs_dim)
    actions = loaded.deterministic_action(obs)
    assert torch.equal(actions, policy.deterministic_action(obs))
    assert torch.equal(loaded.value(obs), policy.value(obs))
    assert loaded.spec == policy.spec and loaded.config == policy.config


def test_metadata_header_describes_architecture(cartpole_policy):
    meta = read_metadata(to_bytes(cartpole_policy))
    assert meta["format"] == "decentrl.policy" and meta["version"] == 1
    assert meta["spec"]["obs_dim"] == 4 and meta["spec"]["action_dim"] == 2
    assert meta["config"]["hidden_sizes"] == [32, 32]


def test_foreign_safetensors_is_rejected():
    data = st_save({"w": torch.zeros(2)})
    with pytest.raises(ValueError, match="not a decentrl policy"):
        from_bytes(data)


def test_shape_mismatch_is_rejected(cartpole_policy):
    tensors = {k: v.clone() for k, v in cartpole_policy.state_dict().items()}
    tensors["actor.0.weight"] = torch.zeros(32, 5)
    meta = json.loads(st_meta(cartpole_policy))
    data = st_save(tensors, metadata={"decentrl": json.dumps(meta)})
    with pytest.raises(ValueError, match=r"actor.0.weight.*expected float32 \(32, 4\)"):
        from_bytes(data)


def st_meta(policy):
    return json.dumps(read_metadata(to_bytes(policy)))


def test_policy_config_validation():
    with pytest.raises(ValueError, match="activation must be one of"):
        PolicyConfig(activation="gelu")
    with pytest.raises(ValueError, match="hidden_sizes must be one or more positive widths"):
        PolicyConfig(hidden_sizes=())


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_every_activation_a_config_accepts_builds_and_round_trips(activation):
    # config.ACTIVATIONS (torch-free, what specs are checked against) and the torch modules
    # policy.py maps them to must not drift apart
    policy = make_policy(space_spec(make_env("CartPole-v1")), PolicyConfig(hidden_sizes=(8,), activation=activation))
    assert to_bytes(from_bytes(to_bytes(policy))) == to_bytes(policy)
    assert read_metadata(to_bytes(policy))["config"]["activation"] == activation


def test_fast_forward_is_the_modules_after_updates_and_loads(policy_for):
    """Forward passes run cached (weight, bias) tensors: they must stay the modules' own through
    in-place updates, load_state_dict and .to()."""
    policy, other = policy_for("CartPole-v1", seed=1), policy_for("CartPole-v1", seed=2)
    obs = torch.randn(8, 4, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        next(policy.critic.parameters()).add_(0.5)
    policy.load_state_dict(other.state_dict())
    policy.to("cpu")
    with torch.no_grad():
        assert torch.equal(policy.value(obs), other.critic(obs).squeeze(-1))
        logp, _ = policy.log_prob_entropy(obs, torch.zeros(8, dtype=torch.int64))
        assert torch.equal(logp, torch.log_softmax(other.actor(obs), -1)[:, 0])
