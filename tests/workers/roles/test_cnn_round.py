"""A pixel task through the roles: MinAtar Breakout (10x10x4 uint8 frames) with the MinAtar CNN.
Samplers roll out image episodes, the trainer trains the CNN and records its trace, and a validator
accepts every shard and the trainer's trace (re-executed bit for bit on the CPU), with and without
observation normalisation; the checkpoint carries the kind."""

import dataclasses

import pytest

from tests.workers.roles.conftest import SMALL, TASK_ID, fetcher, honest_round
from workers.rl.policy import from_bytes, read_metadata
from workers.roles.validator import verify_round
from workers.spec import TaskSpec

PIXELS = TaskSpec(env_id="MinAtar/Breakout-v1", seed=3, policy_kind="minatar_cnn", hidden_sizes=(32,),
                  steps_per_shard=64, ppo=dataclasses.replace(SMALL.ppo, batch_size=32, update_epochs=1),
                  challenges_per_sampler=2, challenges_per_trainer=4)
"""4 gradient steps a round (2 x 64 samples / batch 32), all re-executed; 2 episodes replayed a shard."""


@pytest.mark.parametrize("obs_norm", [False, True])
def test_two_pixel_rounds_verify(obs_norm):
    spec = dataclasses.replace(PIXELS, obs_norm=obs_norm)
    prev = None
    for round_ in (0, 1):
        rnd = honest_round(spec, round_, prev)
        ckpt = rnd.checkpoint
        episode = rnd.shards[0].episodes[0]
        assert episode.obs.dtype.name == "uint8" and episode.obs.shape[1:] == (10, 10, 4)
        verdict = verify_round(spec, TASK_ID, round_, prev, rnd.revealed, (ckpt.root, ckpt.bundle), bytes(32),
                               fetcher(ckpt))
        assert verdict.trainer.accepted and "re-executed 4 of 4 steps" in verdict.trainer.reason, verdict.trainer
        assert all(j.accepted for j in verdict.samplers.values()), verdict.samplers
        prev = ckpt.bundle
    meta = read_metadata(ckpt.policy_bytes)
    assert meta["config"]["kind"] == "minatar_cnn" and meta["config"].get("obs_norm", False) == obs_norm
    assert (from_bytes(ckpt.policy_bytes).obs_stats() is not None) == obs_norm
