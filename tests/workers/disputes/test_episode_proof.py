"""What a detector's node offers proveFault (detector_handlers.proof_candidates): the episodes of a
shard with a fault the chain checks, the one its dispute names first, each with a Merkle proof that
reaches the shard's committed root; none for an honest shard or a blob that misses its root."""
import dataclasses

from workers import merkle
from workers.node.handlers.detector_handlers import proof_candidates
from workers.rl.rollout import decode_episode, encode_episode
from workers.roles.fault_proof import Fault
from workers.roles.sampler import bundle_shard, sample_shard
from workers.spec import DEMO_CARTPOLE

SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=64)
TASK, ROUND, SLOT = 7, 0, 1


def test_an_honest_shard_offers_nothing():
    shard = sample_shard(SPEC, TASK, ROUND, SLOT, None)
    assert proof_candidates(shard.blob, shard.root, ROUND, SLOT, named=0) == []
    assert proof_candidates(shard.blob, b"\x01" * 32, ROUND, SLOT, named=0) == []  # not its root


def test_faulty_episodes_are_offered_the_named_one_first_with_proofs_that_reach_the_root():
    honest = sample_shard(SPEC, TASK, ROUND, SLOT, None)
    episodes = [decode_episode(b) for b in honest.episode_bytes]
    assert len(episodes) >= 3
    for i in (0, 2):  # wrong seeds in episodes 0 and 2
        episodes[i] = dataclasses.replace(episodes[i], env_seed=episodes[i].env_seed + 1)
    shard = bundle_shard(TASK, ROUND, SLOT, episodes)
    offered = proof_candidates(shard.blob, shard.root, ROUND, SLOT, named=2)
    assert [(f.index, f.fault) for f in offered] == [(2, Fault.WRONG_SEEDS), (0, Fault.WRONG_SEEDS)]
    for f in offered:
        assert f.item == encode_episode(episodes[f.index]) and merkle.verify(shard.root, f.item, f.proof)


def test_episodes_with_snapshots_are_read_like_version_1():
    snap = dataclasses.replace(SPEC, steps_per_snapshot=16)
    honest = sample_shard(snap, TASK, ROUND, SLOT, None)
    assert honest.episode_bytes[0][4] == 2  # encoding version 2
    assert proof_candidates(honest.blob, honest.root, ROUND, SLOT, named=0) == []
    episodes = [decode_episode(b) for b in honest.episode_bytes]
    episodes[1] = dataclasses.replace(episodes[1], sample_seed=episodes[1].sample_seed + 1)
    shard = bundle_shard(TASK, ROUND, SLOT, episodes)
    assert [(f.index, f.fault) for f in proof_candidates(shard.blob, shard.root, ROUND, SLOT, named=1)] == [
        (1, Fault.WRONG_SEEDS)]
