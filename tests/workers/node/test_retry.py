"""Retryable errors retry with exponential backoff (here 1 s, 2 s, capped at 2 s, no jitter);
other errors fail the job at once."""
import time
from itertools import pairwise

from node_support import Event, notes

from tests.waiting import wait_for
from workers.node.queues import jobs
from workers.node.queues.tasks import node_state


def _gaps(ran):
    ts = [n["t"] for n in ran]
    return [b - a for a, b in pairwise(ts)]


def test_timeout_retries_with_backoff_then_succeeds(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("Flaky", {"fail": 2})
    assert enqueue(ev) == ["sample"]
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.DONE, timeout=15)
    ran = notes(rclient, "ran", ev.key)
    assert [n["attempt"] for n in ran] == [1, 2, 3]
    gaps = _gaps(ran)
    print(f"\nretry gaps {[round(g, 2) for g in gaps]} s (backoff 1, 2)")
    # each gap short of the next wrong value (2 s first, 4 s second): the rest is a loaded host's delay
    assert 0.9 < gaps[0] < 1.9 and 1.9 < gaps[1] < 3.9
    rec = store.get("sampler", ev.key)
    assert rec.attempts == 3 and rec.last_error.startswith("TimeoutError: chain call timed out")


def test_retries_exhausted_marks_failed(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("Flaky", {"fail": 99})
    enqueue(ev)
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.FAILED, timeout=20)
    ran = notes(rclient, "ran", ev.key)
    assert len(ran) == 1 + config.max_retries
    gaps = _gaps(ran)
    # capped at 2 s: an uncapped third gap would be 4 s
    assert all(lo < g < hi for lo, hi, g in zip((0.9, 1.9, 1.9), (1.9, 3.9, 3.9), gaps, strict=True)), gaps
    time.sleep(2.5)
    assert len(notes(rclient, "ran", ev.key)) == 4


def test_non_retryable_error_fails_once(enqueue, rclient, config):
    store, _ = node_state(config)
    ev = Event("Broken", {})
    enqueue(ev)
    wait_for(lambda: store.get("sampler", ev.key).status == jobs.FAILED, timeout=10)
    time.sleep(1.5)
    rec = store.get("sampler", ev.key)
    assert (rec.attempts, rec.last_error) == (1, "ValueError: bad input")
    assert len(notes(rclient, "ran", ev.key)) == 1


def test_a_deferred_job_runs_again_after_its_wait_without_a_retry(enqueue, rclient, config):
    """A handler that is not due yet (a keeper before its turn) raises Deferred: the job stays
    queued, its worker is free meanwhile, and it runs again after the wait it asked for, not
    after the retry backoff (which would be 1 s here), and keeps its urgency."""
    store, _ = node_state(config)
    ev = Event("Later", {"wait": 2.5})
    assert enqueue(ev) == ["validate"]
    wait_for(lambda: len(notes(rclient, "ran", ev.key)) == 1, timeout=10)
    assert store.get("validator", ev.key).status == jobs.QUEUED
    ping = Event("Ping", {})
    enqueue(ping)  # the worker is free while the deferred job waits
    wait_for(lambda: store.get("validator", ping.key).status == jobs.DONE, timeout=5)
    assert store.get("validator", ev.key).status == jobs.QUEUED
    wait_for(lambda: store.get("validator", ev.key).status == jobs.DONE, timeout=10)
    ran = notes(rclient, "ran", ev.key)
    assert [n["attempt"] for n in ran] == [1, 2]
    gap = _gaps(ran)[0]
    print(f"\ndeferred for {gap:.2f} s (asked 2.5 s)")
    assert 2.45 < gap < 4.0, gap
    assert store.get("validator", ev.key).last_error == ""  # a deferral is not an error
