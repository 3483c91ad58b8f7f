"""A node's watcher SIGKILLed mid-task (and kept down while events go on) and restarted by its
Supervisor loses no event and repeats none: every TaskRegistry event the node has an interest in
(workers.node.queues.interest, replayed here over the whole log) has exactly one job record per role on
that node, done after a single handler run, and there is no other job."""
from network import registry_events

from workers.node.queues.dispatch import DISPATCH
from workers.node.queues.interest import Interest
from workers.node.queues.jobs import DONE
from workers.protocol import Phase


def test_watcher_was_killed_and_restarted(run):
    assert getattr(run, "watcher_killed", None) is not None
    watcher = run.health["sampler1"]["watcher"]  # when the task was done
    assert (watcher["restarts"], watcher["alive"]) == (1, True)


def test_restarted_watcher_lost_no_event_and_repeated_none(run, tmp_path):
    node = run.net.node("sampler1")
    jobs = node.jobs()
    interest = Interest(tmp_path / "replay.sqlite", node.address)
    events = [e for e in registry_events(run.net)
              if interest.wants(e.name, e.args) and "sampler" in DISPATCH.roles_for(e.name, e.args)]
    assert {e.name for e in events} >= {"TaskCreated", "SlotAssigned", "PhaseStarted"}
    # a sampler's worker is queued its own two phases of every round, Attest (it rolls out the
    # next round's shard then) and AttestReveal (it opens its draw), and no other phase
    phases = sorted((e.args["round"], e.args["phase"]) for e in events if e.name == "PhaseStarted")
    assert phases == [(r, p) for r in range(run.params.num_rounds)
                      for p in (Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL, Phase.ATTEST, Phase.ATTEST_REVEAL)]
    records = {e.key: jobs.get("sampler", e.key) for e in events}
    assert {k: (r.status, r.attempts) for k, r in records.items()} == {k: (DONE, 1) for k in records}
    client = node.redis()
    prefix = node.config.key("job", "sampler", "")
    all_jobs = [k.decode()[len(prefix):] for k in client.scan_iter(match=node.config.key("job", "sampler", "*"))]
    assert set(records) <= set(all_jobs)
    # and nothing else was enqueued but the checks that release its held pay after each round's
    # dispute window (PayReleaseDue "release:task:round:hop", scheduled at its RewardEarned:
    # disputes are on, as deployed), only for rounds it was paid for (a check's job is recorded
    # when it first runs, up to half the visibility timeout later: the last round's may not be yet)
    others = [k.split(":") for k in all_jobs if k not in records]
    assert all(k[0] == "release" and len(k) == 4 for k in others), others
    paid = {(e.args["taskId"], e.args["round"]) for e in registry_events(run.net)
            if e.name == "RewardEarned" and e.args["node"] == node.address}
    assert {(int(k[1]), int(k[2])) for k in others} <= paid and len(paid) == run.params.num_rounds
