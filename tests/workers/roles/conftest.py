"""Fixtures for workers/roles tests: one torch thread (checkpoints are compared bit for bit), a
small CartPole spec, and two honest rounds (2 samplers, 1 trainer) computed once per session."""

import dataclasses

import pytest
import torch

from workers.rl.presets import CARTPOLE
from workers.roles.local_round import run_round
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
    """Round `round_` of task TASK_ID done honestly in this process (workers.roles.local_round)."""
    return run_round(spec, TASK_ID, round_, prev_bundle, slots)


@pytest.fixture(scope="session")
def rounds():
    """rounds[0], rounds[1]: honest rounds 0 and 1 of SMALL (round 1 starts from round 0's
    checkpoint). Each has .round, .prev (bundle or None), .shards {slot: ShardResult}, .checkpoint."""
    r0 = honest_round(SMALL, 0, None)
    return [r0, honest_round(SMALL, 1, r0.checkpoint.bundle)]
