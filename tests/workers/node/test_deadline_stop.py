"""A phase job whose deadline passed is dropped when it starts, and one running past its deadline
stops at its next check; both free the worker and end as done (not failed): the protocol already
vacates a node that misses a phase (workers.node.queues.dispatch, DEADLINES)."""
import time

from node_support import Event, notes

from tests.waiting import wait_for
from workers.node.queues import jobs
from workers.node.queues.tasks import node_state, time_limits


def test_job_past_its_deadline_is_dropped_at_once(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("LongRollout", {"sleep": 30})
    sent = time.time()
    assert enqueue(ev, until=sent - 1) == ["sample"]
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=10)
    record = store.get("sampler", ev.key)
    assert record.last_error.startswith("dropped: its deadline passed")
    assert notes(rclient, "started", ev.key) == []  # the handler never ran
    assert time.time() - sent < 5


def test_long_rollout_stops_cooperatively_at_its_deadline(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("LongRollout", {"sleep": 30})
    until = time.time() + 1.0
    enqueue(ev, until=until)
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=10)
    stopped = time.time()
    record = store.get("sampler", ev.key)
    assert record.last_error.startswith("stopped at its deadline: DeadlinePassed")
    assert len(notes(rclient, "started", ev.key)) == 1 and notes(rclient, "completed", ev.key) == []
    assert stopped - until < 3  # at its next check, not after the 30 s of work
    # the worker is free again: the next job runs at once
    after = Event("Ping", {})
    enqueue(after)
    wait_for(lambda: store.get("sampler", after.key).status == jobs.DONE, timeout=5)


def test_a_job_without_a_deadline_is_not_bounded(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("LongRollout", {"sleep": 0.3})
    enqueue(ev)  # no until: the handler's checks never stop it
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=10)
    assert len(notes(rclient, "completed", ev.key)) == 1


def test_time_limits_follow_the_deadline_within_the_nodes_own(config):
    now = 1000.0
    assert time_limits(config, None, now) == {}
    short = time_limits(config, now + 0.5, now)  # the node's own limits (4 s, 5 s) are shorter
    assert short == {"soft_time_limit": config.soft_time_limit, "time_limit": config.time_limit}
    from dataclasses import replace

    roomy = replace(config, soft_time_limit=300, time_limit=330, visibility_timeout=900)
    limits = time_limits(roomy, now + 120, now)
    assert limits == {"soft_time_limit": 125.0, "time_limit": 135.0}
    assert time_limits(roomy, now - 10, now) == {"soft_time_limit": 5.0, "time_limit": 15.0}


def test_a_deadline_moved_later_by_a_pause_is_honoured(enqueue, rclient, config):
    """The watcher's deadline passed before the job started, but the chain's moved later (a pause):
    the job runs, and stops at the moved deadline."""
    store, _ = node_state(config)
    ev = Event("PausedRollout", {"sleep": 30, "id": "p1"})
    moved = time.time() + 2.0
    rclient.set("test:deadline:p1", repr(moved))
    enqueue(ev, until=time.time() - 1)
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=10)
    assert len(notes(rclient, "started", ev.key)) == 1
    assert store.get("sampler", ev.key).last_error.startswith("stopped at its deadline")
    assert time.time() >= moved


def test_only_bounded_jobs_of_the_nodes_roles_get_the_deadline(config, rclient):
    from workers.node.queues import dispatch
    from workers.node.queues.celery_app import create_app
    from workers.node.queues.tasks import make_enqueue

    table = dispatch.DispatchTable()
    table.register("PhaseStarted", "sampler", print, bounded=lambda args: args["phase"] == 0)
    table.register("PhaseStarted", "validator", print)
    sent = []
    store = jobs.JobStore(rclient, config.key())
    commit, attest = Event("PhaseStarted", {"phase": 0}), Event("PhaseStarted", {"phase": 3})
    dispatch.enqueue(commit, lambda role, kwargs: sent.append(kwargs), store, table, until=123.0)
    assert {k["role"]: k.get("until") for k in sent} == {"sampler": 123.0, "validator": None}
    # the watcher reads the chain's clock only for events a bounded job of the node's roles takes
    enqueue = make_enqueue(create_app(config), roles=["sampler"], table=table)
    assert enqueue.bounded(commit) and not enqueue.bounded(attest)
    assert not make_enqueue(create_app(config), roles=["validator"], table=table).bounded(commit)


def test_celerys_time_limit_is_the_backstop_for_work_that_does_not_check(enqueue, rclient, config):
    """The soft limit (here the node's own 4 s, shorter than deadline + grace) stops it; done, not failed."""
    store, _ = node_state(config)
    ev = Event("StuckRollout", {"sleep": 30, "id": "stuck"})
    started = time.time()
    enqueue(ev, until=started + 0.5)
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=15)
    assert store.get("sampler", ev.key).last_error.startswith("stopped at its deadline: SoftTimeLimitExceeded")
    assert notes(rclient, "completed", ev.key) == [] and time.time() - started < 10


def test_a_job_celery_stopped_whose_deadline_moved_runs_again(enqueue, rclient, config):
    """A pause moved the deadline while the job ran: the time limit set from the old one stops it,
    and it is queued again at once with the new deadline (and runs to completion)."""
    store, _ = node_state(config)
    ev = Event("StuckRollout", {"sleep": 30, "id": "moved"})
    rclient.set("test:deadline:moved", repr(time.time() + 60))
    enqueue(ev, until=time.time() + 0.5)
    wait_for(lambda: len(notes(rclient, "completed", ev.key)) == 1, timeout=20)
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=5)
    assert len(notes(rclient, "started", ev.key)) == 2
    assert store.get("sampler", ev.key).last_error in (None, "")
