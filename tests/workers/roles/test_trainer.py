"""workers/roles/trainer.py: deterministic checkpoints, the bundle and its root, refusing shards
that do not match their roots, and starting from the previous checkpoint."""

import dataclasses

import pytest
from eth_utils import keccak

from tests.workers.roles.conftest import SMALL, TASK_ID
from workers.merkle import merkle_root
from workers.rl.ppo import TrainState
from workers.roles import trainer
from workers.roles.trainer import CheckpointMismatch, ShardError, train_round, unbundle_checkpoint, verify_checkpoint


def inputs(rnd):
    return rnd.revealed


def test_same_inputs_same_checkpoint_in_any_order(rounds):
    ckpt = rounds[0].checkpoint
    again = train_round(SMALL, TASK_ID, 0, None, list(reversed(inputs(rounds[0]))))
    assert (again.bundle, again.root) == (ckpt.bundle, ckpt.root)


def test_checkpoint_metadata_and_root(rounds):
    r0, r1 = rounds
    meta = r0.checkpoint.meta
    assert (meta["task_id"], meta["round"], meta["prev"], meta["device"]) == (TASK_ID, 0, None, "cpu")
    assert meta["spec"] == SMALL.digest().hex()
    assert r0.checkpoint.inputs == [(0, r0.shards[0].root), (1, r0.shards[1].root)]
    assert r0.checkpoint.policy_digest == keccak(r0.checkpoint.policy_bytes)
    c = r0.checkpoint
    raw = c.bundle[9:9 + len(c.bundle) - 9 - len(c.policy_bytes) - len(c.train_state_bytes)]
    assert c.root == merkle_root([c.policy_bytes, c.train_state_bytes, raw])
    assert r1.checkpoint.meta["prev"] == r0.checkpoint.root.hex()


def test_round_one_continues_from_round_zero(rounds):
    r0, r1 = rounds
    s0, s1 = r0.checkpoint.train_state(), r1.checkpoint.train_state()
    assert s1.env_steps == s0.env_steps + 2 * SMALL.steps_per_shard and s1.rounds == 2
    assert r1.checkpoint.stats["samples"] == 2 * SMALL.steps_per_shard
    fresh = train_round(SMALL, TASK_ID, 1, None, inputs(r1))  # same shards, no history
    assert fresh.policy_digest != r1.checkpoint.policy_digest


def test_bundle_round_trip(rounds):
    ckpt = rounds[1].checkpoint
    back = verify_checkpoint(ckpt.bundle, ckpt.root)
    assert (back.meta, back.policy_bytes, back.root) == (ckpt.meta, ckpt.policy_bytes, ckpt.root)
    assert isinstance(back.train_state(), TrainState)


def test_wrong_root_or_tampered_bundle_is_refused(rounds):
    ckpt = rounds[1].checkpoint
    with pytest.raises(CheckpointMismatch, match="the revealed root is"):
        verify_checkpoint(ckpt.bundle, rounds[0].checkpoint.root)
    tampered = bytearray(ckpt.bundle)
    tampered[-100] ^= 0x01  # inside the train state: sizes stay, digest in the metadata breaks
    with pytest.raises(CheckpointMismatch, match="not canonical"):
        unbundle_checkpoint(bytes(tampered))
    with pytest.raises(CheckpointMismatch, match="bytes; its metadata says"):
        unbundle_checkpoint(ckpt.bundle[:-1])


def test_shard_not_matching_its_root_names_the_slot(rounds):
    r0 = rounds[0]
    bad = [(0, r0.shards[0].root, r0.shards[0].blob), (1, r0.shards[0].root, r0.shards[1].blob)]
    with pytest.raises(ShardError, match="^shard of sampler slot 1: episodes hash to root") as info:
        train_round(SMALL, TASK_ID, 0, None, bad)
    assert info.value.slot == 1


def test_shard_of_another_slot_or_round_is_refused(rounds):
    r0 = rounds[0]
    with pytest.raises(ShardError, match="expected task 42 round 0 shard 1") as info:
        train_round(SMALL, TASK_ID, 0, None, [(1, r0.shards[0].root, r0.shards[0].blob)])
    assert info.value.slot == 1
    with pytest.raises(ShardError, match="blob is of task 42 round 0 shard 0, expected task 42 round 1"):
        train_round(SMALL, TASK_ID, 1, r0.checkpoint.bundle, [(0, r0.shards[0].root, r0.shards[0].blob)])


def test_no_shards_or_a_slot_twice(rounds):
    with pytest.raises(ValueError, match="at least one shard"):
        train_round(SMALL, TASK_ID, 0, None, [])
    s = rounds[0].shards[0]
    with pytest.raises(ValueError, match="slots \\[0, 0\\]"):
        train_round(SMALL, TASK_ID, 0, None, [(0, s.root, s.blob), (0, s.root, s.blob)])


def test_hyperparameters_come_from_the_spec(rounds):
    spec = dataclasses.replace(SMALL, ppo=dataclasses.replace(SMALL.ppo, learning_rate=1e-2))
    other = train_round(spec, TASK_ID, 0, None, inputs(rounds[0]))
    assert other.policy_digest != rounds[0].checkpoint.policy_digest and other.meta["spec"] == spec.digest().hex()


def test_checkpoint_helpers_agree(rounds):
    ckpt = rounds[0].checkpoint
    policy, state, prev_root = trainer.round_start(SMALL, ckpt.bundle)
    assert prev_root == ckpt.root and state.to_bytes() == ckpt.train_state_bytes


def test_the_update_is_the_same_with_any_thread_count():
    """Validators re-run the trainer's update on machines with other core counts: whatever the
    process's torch thread count, the demo's hyperparameters (batch 256, 64x64 policy) on 2 x 512
    steps give bit-identical checkpoints (train_round pins one thread while it computes)."""
    import torch

    from workers.roles.sampler import sample_shard
    from workers.spec import DEMO_CARTPOLE

    spec = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=512,
                               ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, update_epochs=2))
    shards = [sample_shard(spec, TASK_ID, 0, slot, None) for slot in (0, 1)]
    previous, digests = torch.get_num_threads(), set()
    try:
        for threads in (1, 2, 4):
            torch.set_num_threads(threads)
            ckpt = train_round(spec, TASK_ID, 0, None, [(s, sh.root, sh.blob) for s, sh in enumerate(shards)],
                               device="cpu")
            digests.add((ckpt.policy_digest, ckpt.train_state_digest))
    finally:
        torch.set_num_threads(previous)
    assert len(digests) == 1
