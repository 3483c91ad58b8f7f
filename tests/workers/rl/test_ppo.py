"""workers/rl/ppo.py: config checks, the learning-rate schedule, bit-identical updates, state
round trip, and that a thousand steps of training improve CartPole."""

import dataclasses

import pytest
import torch

from workers.rl.evaluate import evaluate
from workers.rl.policy import digest, from_bytes, to_bytes
from workers.rl.ppo import PPOConfig, TrainState, learning_rate, resolve_device, train_round
from workers.rl.presets import CARTPOLE
from workers.rl.rollout import rollout

FAST = dataclasses.replace(CARTPOLE.ppo, batch_size=64)


def episodes(policy, round_=0, env_id="CartPole-v1", steps=256):
    return rollout(policy, env_id, task_seed=1, round_=round_, shard=0, num_steps=steps)


def test_defaults_are_the_design_values():
    c = PPOConfig()
    assert (c.batch_size, c.learning_rate, c.final_learning_rate, c.anneal_steps, c.checkpoint_every) == \
        (256, 1e-4, 1e-5, 100_000, 10_000)
    assert learning_rate(c, 0) == 1e-4
    assert learning_rate(c, 50_000) == pytest.approx(5.5e-5)
    assert learning_rate(c, 100_000) == pytest.approx(1e-5) == learning_rate(c, 250_000)


def test_invalid_config_says_what_to_fix():
    with pytest.raises(ValueError, match="batch_size must be a positive integer, got 0"):
        PPOConfig(batch_size=0)
    with pytest.raises(ValueError, match="gamma and gae_lambda must be in"):
        PPOConfig(gamma=1.5)
    with pytest.raises(ValueError, match="device must be one of auto, cpu, cuda, got 'tpu'"):
        PPOConfig(device="tpu")


def test_auto_device_is_cuda_when_available():
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")


def test_update_is_bit_identical(policy_for):
    results = []
    for _ in range(2):
        policy, state = policy_for("CartPole-v1", seed=1), TrainState()
        for r in range(2):
            policy, stats = train_round(policy, episodes(policy, r), FAST, state)
        results.append((digest(policy), state.to_bytes(), stats))
    assert results[0][0] == results[1][0] and results[0][1] == results[1][1]
    assert results[0][2] == results[1][2]
    assert results[0][0] != digest(policy_for("CartPole-v1", seed=1))


def test_resuming_from_serialized_state_matches(policy_for):
    policy, state = policy_for("CartPole-v1", seed=1), TrainState()
    policy, _ = train_round(policy, episodes(policy, 0), FAST, state)
    # a validator re-runs round 1 from the stored checkpoint and state
    replica, replica_state = from_bytes(to_bytes(policy)), TrainState.from_bytes(state.to_bytes())
    eps = episodes(policy, 1)
    policy, _ = train_round(policy, eps, FAST, state)
    replica, _ = train_round(replica, eps, FAST, replica_state)
    assert digest(replica) == digest(policy)
    assert replica_state.updates == state.updates and replica_state.env_steps == 512


def test_a_train_state_is_safetensors_own_encoding(policy_for):
    import json

    from safetensors.torch import save as st_save

    policy, state = policy_for("CartPole-v1", seed=1), TrainState()
    train_round(policy, episodes(policy, 0), FAST, state)
    data = state.to_bytes()
    header_length = int.from_bytes(data[:8], "little")
    meta = json.loads(data[8:8 + header_length])["__metadata__"]
    tensors = {f"adam.{i}.{k}": s[k] for i, s in state.adam.items() for k in ("exp_avg", "exp_avg_sq")}
    assert data == st_save(tensors, metadata=meta)  # what the torch writer gives, byte for byte


def test_stats_and_checkpoint_due(policy_for):
    policy, state = policy_for("CartPole-v1"), TrainState()
    config = dataclasses.replace(FAST, checkpoint_every=400)
    _, stats = train_round(policy, episodes(policy), config, state)
    assert (stats["samples"], stats["env_steps"], stats["checkpoint_due"]) == (256, 256, False)
    assert stats["gradient_steps"] == FAST.update_epochs * 4
    _, stats = train_round(policy, episodes(policy, 1), config, state)
    assert stats["checkpoint_due"] and state.last_checkpoint == 400
    assert stats["device"] == resolve_device("auto").type


def test_continuous_actions_train(policy_for):
    policy = policy_for("Pendulum-v1")
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    policy, stats = train_round(policy, episodes(policy, env_id="Pendulum-v1", steps=200), FAST, TrainState())
    assert all(torch.isfinite(torch.tensor(v)) for k, v in stats.items() if isinstance(v, float))
    assert not torch.equal(before["log_std"], policy.state_dict()["log_std"])


def test_episodes_must_fit_the_policy(policy_for):
    with pytest.raises(ValueError, match="does not fit the policy"):
        train_round(policy_for("Acrobot-v1"), episodes(policy_for("CartPole-v1")), FAST, TrainState())


def test_a_thousand_steps_improve_cartpole(policy_for):
    policy, state = policy_for("CartPole-v1", seed=1), TrainState()
    before = evaluate(policy, "CartPole-v1", episodes=10).mean_return
    first = None
    for r in range(4):
        policy, stats = train_round(policy, episodes(policy, r), FAST, state)
        first = stats["mean_return"] if first is None else first
    after = evaluate(policy, "CartPole-v1", episodes=10).mean_return
    assert state.env_steps == 1024
    assert after >= 2 * before, (before, after)
    assert stats["mean_return"] > first
