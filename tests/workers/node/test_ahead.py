"""workers/node/ahead.py, the plain parts: work done ahead is used only for the inputs it was done
with (the shard: the task's checkpoint it was sampled under, its slot, and still in the store; the
verdicts: the roots revealed and the checkpoint they were judged under), and results cross the
background process intact. The whole flow on a chain: tests/workers/integration/test_work_ahead.py."""
from types import SimpleNamespace

from workers.node import ahead
from workers.node.context import Secrets
from workers.protocol import Role
from workers.roles.validator import Judgement

TASK_ID, CKPT, OTHER_CKPT = 5, b"\x01" * 32, b"\x02" * 32


def context(tmp_path, held=()):
    return SimpleNamespace(secrets=Secrets(tmp_path / "secrets.sqlite"), store=SimpleNamespace(has=set(held).__contains__))


def task(checkpoint_root=CKPT):
    return SimpleNamespace(task_id=TASK_ID, checkpoint_root=checkpoint_root)


def note_shard(ctx, round_=1, slot=0, policy_root=CKPT):
    ctx.secrets.note(TASK_ID, round_, Role.SAMPLER, ahead.SHARD_AHEAD, {
        "policy_root": policy_root.hex(), "root": (b"\x0a" * 32).hex(), "cid": "bafkshard", "slot": slot,
        "steps": 256, "mean_return": 20.5, "work_s": 0.1})


def test_a_shard_sampled_ahead_is_committed_under_the_checkpoint_it_was_sampled_with(tmp_path):
    ctx = context(tmp_path, held={"bafkshard"})
    assert ahead.shard_ahead(ctx, task(), 1, 0) is None  # nothing sampled ahead
    note_shard(ctx)
    root, cid, note = ahead.shard_ahead(ctx, task(), 1, 0)
    assert (root, cid) == (b"\x0a" * 32, "bafkshard")
    assert note == {"steps": 256, "mean_return": 20.5, "work_s": 0.1, "ahead": True}


def test_a_shard_sampled_ahead_is_not_used_for_other_inputs(tmp_path):
    ctx = context(tmp_path, held={"bafkshard"})
    note_shard(ctx)
    assert ahead.shard_ahead(ctx, task(OTHER_CKPT), 1, 0) is None  # the trainer was rejected
    assert ahead.shard_ahead(ctx, task(), 1, 1) is None  # another slot
    assert ahead.shard_ahead(ctx, task(), 2, 0) is None  # another round
    assert ahead.shard_ahead(context(tmp_path), task(), 1, 0) is None  # the store lost it


def test_verdicts_reached_ahead_count_only_for_the_roots_they_judged(tmp_path):
    ctx = context(tmp_path)
    ctx.secrets.note(TASK_ID, 0, Role.VALIDATOR, ahead.VERDICTS_AHEAD, {
        "checkpoint_root": CKPT.hex(), "work_s": 0.1,
        "samplers": {"0": [(b"\x0a" * 32).hex(), True, "checks"], "1": [(b"\x0b" * 32).hex(), False, "bad reward"]}})
    revealed = [(0, b"\x0a" * 32, b"blob0"), (1, b"\x0b" * 32, b"blob1"), (2, b"\x0c" * 32, b"blob2")]
    assert ahead.verdicts_ahead(ctx, task(), 0, revealed) == {0: Judgement(True, "checks"),
                                                              1: Judgement(False, "bad reward")}
    assert ahead.verdicts_ahead(ctx, task(), 0, [(0, b"\x0d" * 32, b"other")]) == {}  # another root revealed
    assert ahead.verdicts_ahead(ctx, task(OTHER_CKPT), 0, revealed) == {}
    assert ahead.verdicts_ahead(ctx, task(), 1, revealed) == {}


def test_results_cross_the_background_process_intact():
    def sample():
        return b"\x0a" * 32, b"\x00\x01blob\xff", {"steps": 3, "returns": [1.0, 2.5]}

    assert ahead._unpack_shard(ahead._packed_shard(sample)) == (b"\x0a" * 32, b"\x00\x01blob\xff",
                                                                {"steps": 3, "returns": [1.0, 2.5]})

    def verify():
        return {0: Judgement(True, "checks"), 3: Judgement(False, "episode 2 does not replay")}

    assert ahead._unpack_verdicts(ahead._packed_verdicts(verify)) == verify()
