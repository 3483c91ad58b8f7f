"""workers/roles/sampler.py: deterministic shards, the blob format and its tamper detection,
the round's policy, and commitments through workers.protocol."""

import dataclasses
import struct

import pytest
from eth_utils import keccak

from tests.workers.roles.conftest import SMALL, TASK_ID
from workers import protocol
from workers.merkle import merkle_root
from workers.rl.policy import digest, to_bytes
from workers.rl.rollout import derive_seeds
from workers.roles import sampler
from workers.roles.sampler import ShardMismatch, sample_shard, unbundle_shard, verify_shard
from workers.storage import cid as cids

NODE = "0x" + "ab" * 20


def test_same_coordinates_same_bytes(rounds):
    shard = rounds[0].shards[1]
    again = sample_shard(SMALL, TASK_ID, 0, 1, None)
    assert (again.blob, again.root) == (shard.blob, shard.root)
    assert sample_shard(SMALL, TASK_ID, 0, 0, None).root != shard.root  # shards differ


def test_shard_content(rounds):
    shard = rounds[0].shards[1]
    assert shard.steps == SMALL.steps_per_shard and len(shard.episodes) > 2
    assert shard.root == merkle_root(shard.episode_bytes)
    for i, ep in enumerate(shard.episodes):
        assert (ep.task_seed, ep.round, ep.shard, ep.index) == (SMALL.seed, 0, 1, i)
        assert (ep.env_seed, ep.sample_seed) == derive_seeds(SMALL.seed, 0, 1, i)
    assert shard.policy == digest(sampler.initial_policy(SMALL))
    assert shard.cid == cids.compute(shard.blob)


def test_initial_policy_comes_from_the_spec_seed():
    a = digest(sampler.initial_policy(SMALL))
    assert a == digest(sampler.initial_policy(SMALL))
    assert a != digest(sampler.initial_policy(dataclasses.replace(SMALL, seed=8)))


def test_round_policy_is_the_checkpoint(rounds):
    policy_bytes = rounds[0].checkpoint.policy_bytes
    assert rounds[1].shards[0].policy == keccak(policy_bytes)
    assert digest(sampler.round_policy(SMALL, policy_bytes)) == keccak(policy_bytes)


def test_checkpoint_of_another_architecture_is_refused():
    other = sampler.initial_policy(dataclasses.replace(SMALL, hidden_sizes=(8,)))
    with pytest.raises(ValueError, match="does not have the spec's architecture"):
        sample_shard(SMALL, TASK_ID, 1, 0, to_bytes(other))


def test_blob_round_trip(rounds):
    shard = rounds[0].shards[0]
    back = verify_shard(shard.blob, shard.root)
    assert (back.task_id, back.round, back.shard, back.root) == (TASK_ID, 0, 0, shard.root)
    assert back.episode_bytes == shard.episode_bytes and back.blob == shard.blob


def test_wrong_root_is_refused(rounds):
    shard = rounds[0].shards[0]
    with pytest.raises(ShardMismatch, match="the revealed root is " + rounds[0].shards[1].root.hex()):
        verify_shard(shard.blob, rounds[0].shards[1].root)


@pytest.mark.parametrize("where", ["header", "last byte", "middle"])
def test_any_flipped_byte_is_caught(rounds, where):
    shard = rounds[0].shards[0]
    blob = bytearray(shard.blob)
    hlen = struct.unpack_from("<I", blob, 5)[0]
    pos = {"header": 9 + hlen // 2, "last byte": len(blob) - 1, "middle": len(blob) // 2}[where]
    blob[pos] ^= 0x01
    with pytest.raises(ShardMismatch):
        verify_shard(bytes(blob), shard.root)


@pytest.mark.parametrize("cut", [1, 4, 100])
def test_truncated_or_extended_blob_is_caught(rounds, cut):
    blob = rounds[0].shards[0].blob
    with pytest.raises(ShardMismatch):
        unbundle_shard(blob[:-cut])
    with pytest.raises(ShardMismatch):
        unbundle_shard(blob + b"\x00" * cut)


def test_not_a_blob():
    with pytest.raises(ShardMismatch, match="bad magic"):
        unbundle_shard(b"DRLC" + b"\x00" * 20)


def test_commitment_is_the_protocol_one():
    root, salt, cid = keccak(b"r"), sampler.new_salt(), "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
    c = sampler.make_commitment(TASK_ID, 3, NODE, root, cid, salt)
    assert c == protocol.commitment(TASK_ID, 3, NODE, root, cid, salt)
    assert c != sampler.make_commitment(TASK_ID, 3, NODE, root, cid, sampler.new_salt())
    assert c != sampler.make_commitment(TASK_ID, 3, "0x" + "cd" * 20, root, cid, salt)
