"""workers/node/handlers/common.checkpoint_bundle: the task's current checkpoint comes from this
process's memory only when it holds bytes that hash to the chain's checkpointRoot; otherwise it is
fetched and checked, so content under the task's CID that does not hash to the root is refused
even while the process holds the genuine bundle."""

from types import SimpleNamespace

import pytest

from workers.node.handlers.common import checkpoint_bundle
from workers.roles import trainer
from workers.roles.trainer import CheckpointMismatch, make_checkpoint
from workers.storage.store import EmbeddedStore


def bundle(round_: int):
    return make_checkpoint(task_id=7, round_=round_, spec_digest=bytes(32), prev_root=None, inputs=[], device="cpu",
                           policy_bytes=bytes([round_]) * 4096, train_state_bytes=b"t" * 4096, trace_root=bytes(32),
                           trace_cid="")


class CountingStore(EmbeddedStore):
    gets = 0

    def get(self, cid, **kwargs):
        self.gets += 1
        return super().get(cid, **kwargs)


@pytest.fixture
def ctx(tmp_path):
    trainer.UNBUNDLED.clear()
    yield SimpleNamespace(store=CountingStore(tmp_path / "store"))
    trainer.UNBUNDLED.clear()


def test_a_bundle_held_for_the_root_is_not_fetched_again(ctx):
    ckpt = bundle(1)
    cid = ctx.store.put(ckpt.bundle)
    task = SimpleNamespace(checkpoint_cid=cid, checkpoint_root=ckpt.root)
    assert checkpoint_bundle(ctx, task) == ckpt.bundle and ctx.store.gets == 1  # fetched and checked once
    assert checkpoint_bundle(ctx, task) == ckpt.bundle and ctx.store.gets == 1  # then held


def test_other_content_under_the_tasks_cid_is_refused_while_the_genuine_bundle_is_held(ctx):
    genuine, other = bundle(1), bundle(2)
    trainer.unbundle_checkpoint(genuine.bundle)  # held, under its own root
    trainer.unbundle_checkpoint(other.bundle)
    task = SimpleNamespace(checkpoint_cid=ctx.store.put(other.bundle), checkpoint_root=bytes(32))
    with pytest.raises(CheckpointMismatch, match="the revealed root is"):
        checkpoint_bundle(ctx, task)  # no held bundle hashes to this root: fetched, and it does not either
    assert ctx.store.gets == 1
