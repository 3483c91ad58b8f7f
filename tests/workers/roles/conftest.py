"""Fixtures for workers/roles tests: one torch thread (checkpoints are compared bit for bit), a
small CartPole spec, and two honest rounds (2 samplers, 1 trainer) computed once per session."""

import dataclasses
from types import SimpleNamespace

import pytest
import torch

from workers.rl.presets import CARTPOLE
from workers.roles import sampler, trainer
from workers.spec import TaskSpec
from workers.storage import cid as cids

torch.set_num_threads(1)

TASK_ID = 42
SMALL = TaskSpec(env_id="CartPole-v1", seed=7, hidden_sizes=(16, 16), steps_per_shard=96,
                 ppo=dataclasses.replace(CARTPOLE.ppo, batch_size=32, update_epochs=2),
                 challenges_per_sampler=3)
"""About 5 episodes per shard with the initial policy; 3 of them challenged."""


def fetcher(*ckpts):
    """fetch(cid) over what the trainers of `ckpts` stored (trace states and blobs): None if absent."""
    stored = {cids.compute(b): b for c in ckpts for b in c.stored}
    return stored.get


def honest_round(spec, round_, prev_bundle, slots=(0, 1)):
    policy_bytes = None if prev_bundle is None else trainer.unbundle_checkpoint(prev_bundle).policy_bytes
    shards = {slot: sampler.sample_shard(spec, TASK_ID, round_, slot, policy_bytes) for slot in slots}
    ckpt = trainer.train_round(spec, TASK_ID, round_, prev_bundle,
                               [(slot, s.root, s.blob) for slot, s in shards.items()])
    return SimpleNamespace(round=round_, prev=prev_bundle, shards=shards, ckpt=ckpt)


@pytest.fixture(scope="session")
def rounds():
    """rounds[0], rounds[1]: honest rounds 0 and 1 of SMALL (round 1 starts from round 0's
    checkpoint). Each has .round, .prev (bundle or None), .shards {slot: ShardResult}, .ckpt."""
    r0 = honest_round(SMALL, 0, None)
    return [r0, honest_round(SMALL, 1, r0.ckpt.bundle)]
