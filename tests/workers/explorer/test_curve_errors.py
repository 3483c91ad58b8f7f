"""The learning curve names what it cannot read instead of failing: a spec missing from the store,
a shard whose bytes are not a shard (or not the revealed root's), a checkpoint that does not
verify; rounds with nothing readable are left out. (Readable shards and checkpoints: test_real_run.py.)"""
from workers.explorer.curve import learning_curve
from workers.explorer.history import Round, Submission, TaskHistory
from workers.protocol import Phase, Role, Status, Verdict
from workers.spec import DEMO_CARTPOLE
from workers.storage import EmbeddedStore


def history(spec_cid, digest, rounds):
    return TaskHistory(1, "0x" + "c" * 40, spec_cid, digest, 100, 1, 1, 2, 1, Status.ACTIVE, Phase.ATTEST, 1, "", True,
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


def test_a_copied_or_misrooted_shard_is_not_counted(tmp_path):
    """A sampler may reveal another slot's or round's shard, or a real shard's CID with another
    root: the trainer leaves those out, and so does the curve (its cache once skipped the root
    check for a CID it had read before)."""
    import dataclasses

    from workers.roles.sampler import sample_shard

    spec = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=64)
    store = EmbeddedStore(tmp_path)
    spec_cid = store.put(spec.to_bytes())
    shard = sample_shard(spec, 1, 0, 0, None)  # task 1, round 0, slot 0
    cid = store.put(shard.blob)

    def sampler(slot, root):
        return Submission(Role.SAMPLER, slot, "0x" + "a" * 40, root=root, cid=cid, revealed=True,
                          verdict=Verdict.NONE)

    rounds = [Round(0, submissions=[sampler(0, shard.root), sampler(1, shard.root), sampler(2, b"\x01" * 32)]),
              Round(1, submissions=[sampler(0, shard.root)])]
    curve = learning_curve(history(spec_cid, spec.digest(), rounds), store, eval_episodes=0)
    assert [(p.round, p.env_steps) for p in curve.points] == [(1, 64)]  # round 2's only shard is round 1's
    assert [e.split(": ", 1) for e in curve.errors] == [
        [f"round 1 sampler 1 shard {cid}", "the shard is task 1 round 1 slot 0's, not task 1 round 1 slot 1's"],
        [f"round 1 sampler 2 shard {cid}", curve.errors[1].split(": ", 1)[1]],
        [f"round 2 sampler 0 shard {cid}", "the shard is task 1 round 1 slot 0's, not task 1 round 2 slot 0's"]]
    assert "root" in curve.errors[1]


def test_report_cells_keep_chain_strings_on_one_line(tmp_path):
    """A requester chooses its spec CID freely: with line breaks it would start a raw HTML block
    in report.md, and with escape codes drive the terminal of whoever prints it."""
    from workers.explorer.curve import Curve
    from workers.explorer.report import markdown, one_line

    cid = "x`\n\n<img src=x onerror=alert(1)>\n\n| injected | row |\x1b[2J"
    page = markdown(history(cid, b"\x00" * 32, []), Curve(1, None, None, 0, errors=[f"spec {cid}: not found"]))
    assert "\n<img" not in page and "\x1b" not in page
    assert [line for line in page.splitlines() if "onerror" in line] == [
        "| spec | `x'\\n\\n<img src=x onerror=alert(1)>\\n\\n\\| injected \\| row \\|\\x1b[2J` |",
        "- could not read: `spec x'\\n\\n<img src=x onerror=alert(1)>\\n\\n\\| injected \\| row \\|\\x1b[2J: "
        "not found`"]
    assert one_line("tab\there") == "tab\\there"


def test_a_blob_the_store_lacks_is_not_asked_for_again_for_a_while(tmp_path):
    """An IPFS node takes its whole timeout to say it lacks a blob, and the page asks every 3 s,
    with every other request of the explorer waiting behind the answer."""
    from workers.explorer.curve import FAILED_FETCH_TTL_S, CurveCache
    from workers.storage import ContentNotFound

    store = EmbeddedStore(tmp_path)
    spec_cid = store.put(DEMO_CARTPOLE.to_bytes())
    gone = store.put(b"a shard the store will lose")
    store.delete(gone)
    asked = []
    real_get = store.get
    store.get = lambda cid, *a, **k: asked.append(cid) or real_get(cid, *a, **k)
    now = [1000.0]
    cache = CurveCache(clock=lambda: now[0])
    rounds = [Round(0, submissions=[Submission(Role.SAMPLER, 0, "0x" + "a" * 40, root=b"\x01" * 32, cid=gone,
                                               revealed=True, verdict=Verdict.NONE)])]
    for _ in range(3):
        curve = learning_curve(history(spec_cid, DEMO_CARTPOLE.digest(), rounds), store, 0, cache)
        assert curve.errors[0].startswith(f"round 1 sampler 0 shard {gone}: ")
    assert asked.count(gone) == 1 and isinstance(cache.failed[gone][1], ContentNotFound)
    now[0] += FAILED_FETCH_TTL_S
    learning_curve(history(spec_cid, DEMO_CARTPOLE.digest(), rounds), store, 0, cache)
    assert asked.count(gone) == 2
