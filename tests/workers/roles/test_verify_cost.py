"""Validator compute <= 10% of the trainer compute it verifies (issue 4), counted structurally:
samples through a forward pass (ActorCritic.evaluate and .value) and Adam steps, for the trainer's
round and for a validator's check of it, at the spec's default verification values."""

import pytest
import torch

from tests.workers.roles.conftest import TASK_ID, fetcher
from workers.rl.policy import ActorCritic
from workers.roles import sampler, trainer
from workers.roles.validator import verify_trainer
from workers.spec import DEMO_CARTPOLE, TaskSpec

DEFAULTS = TaskSpec()
"""The design values: 1024 steps per shard, batch 256, 4 epochs; 1 challenged transition of 1 step."""


class Counter:
    """Counts forward samples and optimizer steps while installed (evaluate's own value() call is
    counted once, with evaluate)."""

    def __init__(self, monkeypatch):
        self.rows = self.steps = 0
        self.inside = False
        evaluate, value, step = ActorCritic.evaluate, ActorCritic.value, torch.optim.Adam.step

        def counted_evaluate(policy, obs, actions):
            self.rows += obs.shape[0]
            self.inside = True
            try:
                return evaluate(policy, obs, actions)
            finally:
                self.inside = False

        def counted_value(policy, obs):
            self.rows += 0 if self.inside else obs.shape[0]
            return value(policy, obs)

        def counted_step(optimizer, *a, **k):
            self.steps += 1
            return step(optimizer, *a, **k)
        monkeypatch.setattr(ActorCritic, "evaluate", counted_evaluate)
        monkeypatch.setattr(ActorCritic, "value", counted_value)
        monkeypatch.setattr(torch.optim.Adam, "step", counted_step)

    def take(self) -> tuple[int, int]:
        counts, self.rows, self.steps = (self.rows, self.steps), 0, 0
        return counts


@pytest.mark.parametrize("spec, samplers", [(DEFAULTS, 1), (DEFAULTS, 2), (DEMO_CARTPOLE, 2)],
                         ids=["defaults-1-sampler", "defaults-2-samplers", "demo"])
def test_validator_compute_is_at_most_a_tenth_of_the_trainers(monkeypatch, spec, samplers):
    shards = {slot: sampler.sample_shard(spec, TASK_ID, 0, slot, None) for slot in range(samplers)}
    counter = Counter(monkeypatch)
    ckpt = trainer.train_round(spec, TASK_ID, 0, None, [(slot, s.root, s.blob) for slot, s in shards.items()])
    trainer_rows, trainer_steps = counter.take()
    judgement = verify_trainer(spec, TASK_ID, 0, None, None, ckpt.root, ckpt.bundle,
                               {slot: (s.root, s.blob) for slot, s in shards.items()}, set(shards), fetcher(ckpt),
                               b"\x01" * 32)
    rows, steps = counter.take()
    assert judgement.accepted, judgement
    assert trainer_steps == ckpt.trace.steps and trainer_rows > trainer_steps * spec.ppo.batch_size
    assert steps == spec.challenges_per_trainer * spec.steps_per_leaf
    assert steps <= 0.1 * trainer_steps, (steps, trainer_steps)
    assert rows <= 0.1 * trainer_rows, (rows, trainer_rows)
