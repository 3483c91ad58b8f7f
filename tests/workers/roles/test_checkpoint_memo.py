"""workers/roles/trainer.py keeps unbundled checkpoints by their bytes (UNBUNDLED): a bundle read
again is not hashed again, a bundle that differs in one byte is a miss that is checked in full,
and `known_bundle(root)` hands out only bytes that hash to that root."""

import pytest

from workers.roles import trainer
from workers.roles.trainer import CheckpointMismatch, known_bundle, unbundle_checkpoint, verify_checkpoint


@pytest.fixture(autouse=True)
def empty_memo():
    trainer.UNBUNDLED.clear()
    yield
    trainer.UNBUNDLED.clear()


def counting(monkeypatch):
    calls = []
    real = trainer._unbundle
    monkeypatch.setattr(trainer, "_unbundle", lambda b: calls.append(len(b)) or real(b))
    return calls


def test_a_bundle_read_again_is_not_unbundled_again(rounds, monkeypatch):
    calls = counting(monkeypatch)
    ckpt = rounds[1].checkpoint
    first = verify_checkpoint(ckpt.bundle, ckpt.root)
    again = verify_checkpoint(bytes(bytearray(ckpt.bundle)), ckpt.root)  # equal bytes, another object
    assert len(calls) == 1
    assert (again.root, again.policy_bytes, again.meta) == (first.root, first.policy_bytes, first.meta)


def test_a_changed_byte_misses_and_is_checked_in_full(rounds, monkeypatch):
    calls = counting(monkeypatch)
    ckpt = rounds[1].checkpoint
    verify_checkpoint(ckpt.bundle, ckpt.root)
    tampered = bytearray(ckpt.bundle)
    tampered[-100] ^= 0x01  # inside the train state: its digest in the metadata no longer holds
    with pytest.raises(CheckpointMismatch, match="not canonical"):
        verify_checkpoint(bytes(tampered), ckpt.root)
    with pytest.raises(CheckpointMismatch, match="not canonical"):  # a failure is not kept either
        unbundle_checkpoint(bytes(tampered))
    assert len(calls) == 3
    assert known_bundle(ckpt.root) == ckpt.bundle


def test_known_bundle_only_hands_out_bytes_that_hash_to_the_root(rounds):
    r0, r1 = rounds
    assert known_bundle(r1.checkpoint.root) is None  # nothing unbundled yet
    unbundle_checkpoint(r0.checkpoint.bundle)
    assert known_bundle(r1.checkpoint.root) is None
    assert known_bundle(r0.checkpoint.root) == r0.checkpoint.bundle
    assert verify_checkpoint(known_bundle(r0.checkpoint.root), r0.checkpoint.root).root == r0.checkpoint.root


def test_each_caller_gets_its_own_metadata(rounds):
    ckpt = rounds[0].checkpoint
    unbundle_checkpoint(ckpt.bundle).meta["inputs"].clear()
    assert unbundle_checkpoint(ckpt.bundle).meta == ckpt.meta
