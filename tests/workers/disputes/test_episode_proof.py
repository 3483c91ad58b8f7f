"""The detector's proof of one episode (detector_handlers.episode_proof, what proveFault takes): the
episode's canonical bytes and a Merkle proof that reaches the shard's committed root."""
import dataclasses

import pytest

from workers import merkle
from workers.node.handlers.detector_handlers import episode_proof
from workers.roles.sampler import sample_shard
from workers.spec import DEMO_CARTPOLE

SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=64)


def test_an_episode_and_its_proof_reach_the_shards_root():
    shard = sample_shard(SPEC, 7, 0, 1, None)
    assert len(shard.episode_bytes) > 1
    for index in (0, len(shard.episode_bytes) - 1):
        item, proof = episode_proof(shard.blob, shard.root, index)
        assert item == shard.episode_bytes[index]
        assert merkle.verify(shard.root, item, proof)
    with pytest.raises(ValueError, match="no episode"):
        episode_proof(shard.blob, shard.root, len(shard.episode_bytes))
