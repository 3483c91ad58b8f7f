"""A task's round trip through a real worker process, and routing to each role's queue."""
import statistics
import time

from node_support import Event, notes

from tests.waiting import wait_for
from workers.node.queues import jobs
from workers.node.queues.celery_app import PING


def test_ping_round_trip_through_each_queue(app, node):
    latencies = []
    for i in range(30):
        queue = ("sample", "train", "validate")[i % 3]
        t0 = time.perf_counter()
        out = app.send_task(PING, kwargs={"queue": queue, "sent_at": time.time()}).get(
            timeout=10, interval=0.001)
        latencies.append(time.perf_counter() - t0)
        assert out["queue"] == queue
        assert out["worker"].split("@")[0] == {"sample": "sampler", "train": "trainer",
                                               "validate": "validator"}[queue]
    p50 = statistics.median(latencies) * 1000
    print(f"\nping round trip (send -> worker -> result): p50 {p50:.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms")
    # not a speed target (bench/ has those): a worker that polled its queue, or a result fetched
    # by polling, would take a second or more; a blocking round trip takes milliseconds
    assert p50 < 500


def test_event_round_trip_and_routing(enqueue, rclient, config):
    time.sleep(config.burst / config.rate_per_s)  # a full bucket: measure transport, not the limit
    latencies = []
    for _ in range(4):
        ev = Event("Ping", {"n": 1})
        t0 = time.time()
        assert sorted(enqueue(ev)) == ["sample", "validate"]
        ran = wait_for(lambda ev=ev: len(notes(rclient, "ran", ev.key)) == 2 and
                       notes(rclient, "ran", ev.key), timeout=10, interval=0.001)
        latencies += [n["t"] - t0 for n in ran]
        assert {(n["role"], n["worker"]) for n in ran} == {
            ("sampler", "sampler@testnode"), ("validator", "validator@testnode")}
        store_key = f"decentrl:testnode:job:sampler:{ev.key}"
        wait_for(lambda store_key=store_key: rclient.hget(store_key, "status") == jobs.DONE.encode(), timeout=5)
    p50 = statistics.median(latencies) * 1000
    print(f"\nevent round trip (enqueue -> handler running): p50 {p50:.1f} ms")
    assert p50 < 500  # as above: catches a polling transport, not a slow host


def test_an_event_keeps_no_celery_result(enqueue, rclient, config):
    # What became of an event is its job record; a Celery result would cost the sender a
    # SUBSCRIBE and the worker a read and a write on Redis for every event.
    time.sleep(config.burst / config.rate_per_s)
    subscribes = rclient.info("commandstats").get("cmdstat_subscribe", {}).get("calls", 0)
    results_before = set(rclient.scan_iter("celery-task-meta-*"))
    ev = Event("Ping", {"n": 2})
    assert sorted(enqueue(ev)) == ["sample", "validate"]
    wait_for(lambda: len(notes(rclient, "ran", ev.key)) == 2, timeout=10, interval=0.001)
    for role in ("sampler", "validator"):
        wait_for(lambda role=role: rclient.hget(f"decentrl:testnode:job:{role}:{ev.key}", "status")
                 == jobs.DONE.encode(), timeout=5)
    assert rclient.info("commandstats").get("cmdstat_subscribe", {}).get("calls", 0) == subscribes
    assert set(rclient.scan_iter("celery-task-meta-*")) == results_before
