"""The learning curve names what it cannot read instead of failing: a spec missing from the store,
a shard whose bytes are not a shard (or not the revealed root's), a checkpoint that does not
verify; rounds with nothing readable are left out. (Readable shards and checkpoints: test_real_run.py.)"""
from workers.explorer.curve import learning_curve
from workers.explorer.history import Round, Submission, TaskHistory
from workers.protocol import Phase, Role, Status, Verdict
from workers.spec import DEMO_CARTPOLE
from workers.storage import EmbeddedStore


def history(spec_cid, digest, rounds):
    return TaskHistory(1, "0x" + "c" * 40, spec_cid, digest, 100, 1, 1, 2, 1, Status.ACTIVE, Phase.ATTEST, 1, "",
                       rounds=rounds)


def test_missing_spec(tmp_path):
    store = EmbeddedStore(tmp_path)
    missing = store.put(b"not stored here")
    store.delete(missing)
    curve = learning_curve(history(missing, b"\x00" * 32, []), store)
    assert curve.points == [] and curve.errors[0].startswith(f"spec {missing}: ")


def test_bad_shard_and_checkpoint_are_named(tmp_path):
    store = EmbeddedStore(tmp_path)
    spec_cid = store.put(DEMO_CARTPOLE.to_bytes())
    junk = store.put(b"junk, not a shard")
    rounds = [Round(0, submissions=[Submission(Role.SAMPLER, 0, "0x" + "a" * 40, root=b"\x01" * 32, cid=junk,
                                               revealed=True, verdict=Verdict.ACCEPTED)],
                    finalized=True, checkpoint_root=b"\x02" * 32, checkpoint_cid=junk),
              Round(1)]  # nothing revealed, not finalized: no point
    curve = learning_curve(history(spec_cid, DEMO_CARTPOLE.digest(), rounds), store, eval_episodes=2)
    assert [(p.round, p.env_steps, p.rollout_return, p.eval_return) for p in curve.points] == [(1, 0, None, None)]
    assert [e.split(":")[0] for e in curve.errors] == [f"round 1 sampler 0 shard {junk}",
                                                       f"round 1 checkpoint {junk}"]
