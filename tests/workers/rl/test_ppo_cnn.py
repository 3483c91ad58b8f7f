"""PPO (workers/rl/ppo.py) on CNN policies: a round on a tiny synthetic image batch trains the
shared trunk and both heads, bit for bit the same twice on the CPU, and the Nature CNN takes
84x84x4 frames."""

import dataclasses
import math

import pytest
import torch

from tests.workers.rl.image_episodes import synthetic_episodes
from tests.workers.rl.test_policy_cnn import MINATAR, MINATAR_CONFIG, image_space
from workers.rl import ppo
from workers.rl.config import NATURE_CNN, PolicyConfig, PPOConfig
from workers.rl.policy import make_policy, to_bytes

CONFIG = PPOConfig(batch_size=16, update_epochs=2, learning_rate=1e-3, device="cpu")


@pytest.fixture(autouse=True)
def synthetic_episodes_fit(monkeypatch):
    """The episodes here fit the policy by construction; ppo's fit check is the episode module's."""
    monkeypatch.setattr(ppo, "misfit", lambda ep, space: None)


def train(policy, episodes, config=CONFIG):
    state = ppo.TrainState()
    policy, stats = ppo.train_round(policy, episodes, config, state)
    return policy, stats, state


def test_a_round_on_images_updates_trunk_and_heads_deterministically():
    episodes = synthetic_episodes(MINATAR, [20, 17, 11])
    before = {k: v.clone() for k, v in make_policy(MINATAR, MINATAR_CONFIG).state_dict().items()}
    a, stats, state = train(make_policy(MINATAR, MINATAR_CONFIG), episodes)
    b, _, state_b = train(make_policy(MINATAR, MINATAR_CONFIG), episodes)
    assert to_bytes(a) == to_bytes(b) and state.to_bytes() == state_b.to_bytes()
    after = a.state_dict()
    for name in ("trunk.0.weight", "trunk.3.weight", "actor.0.weight", "critic.0.weight"):
        assert not torch.equal(after[name], before[name]), name
    assert stats["samples"] == 48 and stats["gradient_steps"] == 6 and stats["device"] == "cpu"
    assert all(math.isfinite(stats[k]) for k in ("policy_loss", "value_loss", "entropy"))


def test_nature_cnn_round_on_a_few_84x84x4_frames():
    space = image_space((84, 84, 4))
    policy = make_policy(space, PolicyConfig(kind=NATURE_CNN))
    first = policy.trunk[0].weight.detach().clone()
    policy, stats, _ = train(policy, synthetic_episodes(space, [3, 2]), dataclasses.replace(CONFIG, batch_size=4,
                                                                                          update_epochs=1))
    assert stats["gradient_steps"] == 1 and not torch.equal(policy.trunk[0].weight, first)
