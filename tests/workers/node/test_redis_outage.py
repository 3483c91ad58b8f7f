"""The node's own Redis killed (SIGKILL) and restarted on its port, as its health check does: a job
that meets the outage mid-handler waits and goes on within about a second of Redis's return, and
ends done after one run (its lease, lapsed meanwhile, taken again); an idle worker takes a job
again within about a second; a job left running with no lease and no message anywhere (its worker
died, and the message went with it) is sent again by the stale-job sweep (the watcher's, called
here by hand) and done; a message a worker held for later when Redis died is put back when it
returns.

Its own Redis and node (a trainer worker, prefork as `node start` runs it): the folder's shared
Redis must not go down under the other tests."""
import json
import os
import signal
import time

import pytest
from node_support import HERE, PORTS, Event

from tests.waiting import wait_for, wait_ready
from workers.node.config import NodeConfig
from workers.node.processes import redis_service
from workers.node.processes.supervisor import Supervisor
from workers.node.queues import jobs
from workers.node.queues.celery_app import create_app, send_event
from workers.node.queues.tasks import make_enqueue

OUTAGE_S = 6.0
RESUMED_WITHIN_S = 2.5
"""Outage end to the job's next write: the node's clients probe every second at most (jittered)."""


class Outage:
    """The node's embedded Redis: kill it, bring it back on its port with its append-only file."""

    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.service = redis_service.start_embedded(data_dir, ports=PORTS)
        self.port = int(self.service.url.rsplit(":", 1)[1].split("/")[0])

    def kill(self) -> None:
        os.kill(self.service.pid, signal.SIGKILL)
        self.service.process.wait()

    def restart(self) -> float:
        self.service = redis_service.start_embedded(self.data_dir, ports=[self.port])
        return time.time()

    def client(self):
        return self.service.client()


@pytest.fixture(scope="module")
def outage(tmp_path_factory):
    o = Outage(tmp_path_factory.mktemp("outage-redis"))
    yield o
    o.service.stop()


@pytest.fixture(scope="module")
def outage_node(outage, tmp_path_factory):
    config = NodeConfig(redis_url=outage.service.url, node_name="outagenode", handler_modules=("node_handlers",),
                        retry_backoff=1, retry_backoff_max=2, retry_jitter=False, max_retries=3, soft_time_limit=40,
                        time_limit=45, lease_s=1.5, visibility_timeout=60, restore_interval=1)
    app = create_app(config)
    sup = Supervisor(config, tmp_path_factory.mktemp("outage-node"), ("trainer",), env={"PYTHONPATH": str(HERE)})
    sup.start()
    try:
        wait_ready(app, "train")
        yield sup, config, make_enqueue(app), app
    finally:
        sup.stop()


def steps(client, key) -> list[dict]:
    return [json.loads(x) for x in client.lrange(f"test:steps:{key}", 0, -1)]


def test_job_in_flight_waits_out_the_outage_and_goes_on(outage, outage_node):
    sup, config, enqueue, _ = outage_node
    store = jobs.JobStore(outage.client(), config.key())
    ev = Event("Steady", {"steps": 30, "every": 0.1})
    assert enqueue(ev) == ["train"]
    wait_for(lambda: len(steps(outage.client(), ev.key)) >= 3, timeout=15)
    outage.kill()
    time.sleep(OUTAGE_S)
    back = outage.restart()
    store = jobs.JobStore(outage.client(), config.key())
    # Redis came back without the job's lease (it lapsed while down): the handler takes it again,
    # so the stale-job sweep leaves it alone rather than sending it again beside itself
    wait_for(lambda: outage.client().exists(store.lease_key("trainer", ev.key)), timeout=5, interval=0.05)
    assert enqueue.requeue_stale() == [] and enqueue.requeue_stale() == []
    wait_for(lambda: store.get("trainer", ev.key).status == jobs.DONE, timeout=30, interval=0.1)
    done = steps(outage.client(), ev.key)
    resumed = min(s["t"] for s in done if s["t"] >= back) - back
    print(f"\nRedis down {OUTAGE_S:g} s mid-job: the job wrote again {resumed:.2f} s after Redis was back")
    assert resumed < RESUMED_WITHIN_S
    assert sorted({s["step"] for s in done}) == list(range(30))  # every step, in one run:
    assert {s["attempt"] for s in done} == {1}
    record = store.get("trainer", ev.key)
    assert (record.status, record.attempts, record.requeued) == (jobs.DONE, 1, 0)
    assert sup.children["trainer"].restarts == 0


def test_idle_worker_takes_a_job_soon_after_the_outage(outage, outage_node):
    sup, config, enqueue, _ = outage_node
    outage.kill()
    time.sleep(OUTAGE_S)
    back = outage.restart()
    ev = Event("Steady", {"steps": 1, "every": 0})
    assert enqueue(ev) == ["train"]
    client = outage.client()
    started = wait_for(lambda: steps(client, ev.key), timeout=30, interval=0.02)[0]["t"] - back
    print(f"\nRedis down {OUTAGE_S:g} s while idle: a job queued at its return started {started:.2f} s later")
    assert started < RESUMED_WITHIN_S
    assert sup.children["trainer"].restarts == 0


def test_job_left_running_without_its_message_is_sent_again(outage, outage_node):
    """The worker SIGKILLed mid-job and its unacknowledged message lost (a Redis that kept no
    append-only file): without the sweep nothing would ever run the job again."""
    sup, config, enqueue, _ = outage_node
    client = outage.client()
    store = jobs.JobStore(client, config.key())
    ev = Event("Steady", {"steps": 20, "every": 0.1})
    enqueue(ev)
    wait_for(lambda: len(steps(client, ev.key)) >= 2, timeout=15)
    trainer = sup.children["trainer"]
    os.killpg(trainer.pid, signal.SIGKILL)
    trainer.wait()
    client.delete("unacked", "unacked_index")  # kombu's Redis transport: the messages taken, not acknowledged
    assert sup.check() == ["trainer"]
    assert enqueue.requeue_stale() == []  # its lease (1.5 s) has not lapsed yet: it may still be running
    time.sleep(config.lease_s + 0.5)
    assert store.get("trainer", ev.key).status == jobs.RUNNING
    assert enqueue.requeue_stale() == []  # found now: a live handler may yet take its lapsed lease again
    time.sleep(config.lease_s)
    assert enqueue.requeue_stale() == [f"trainer {ev.key}"]  # no lease for lease_s in a row
    assert enqueue.requeue_stale() == []  # queued now, not sent twice
    wait_for(lambda: store.get("trainer", ev.key).status == jobs.DONE, timeout=30, interval=0.1)
    record = store.get("trainer", ev.key)
    assert (record.attempts, record.requeued) == (2, 1)
    assert {s["attempt"] for s in steps(client, ev.key)} == {1, 2}


def test_a_message_held_for_later_is_put_back_when_redis_returns(outage, outage_node):
    """A job the worker holds until its time (a retry's countdown, a scheduled check) when Redis
    dies is back in its queue once Redis is: it runs at its time, not after the visibility timeout,
    and the worker is not restarted on the way."""
    sup, config, _, app = outage_node
    worker = sup.children["trainer"]
    pid, restarts = worker.pid, worker.restarts
    ev = Event("Steady", {"steps": 1, "every": 0})
    client = outage.client()
    send_event(app, {"event_key": ev.key, "event_name": ev.name, "args": ev.args, "block": 1, "role": "trainer"},
               countdown=8)
    wait_for(lambda: client.hlen("unacked") == 1, timeout=10)  # the worker holds it, unacknowledged
    outage.kill()
    time.sleep(3)
    back = outage.restart()
    client = outage.client()
    ran = wait_for(lambda: steps(client, ev.key), timeout=30, interval=0.05)[0]["t"] - back
    print(f"\nheld message: ran {ran:.2f} s after Redis returned (due 8 s after it was sent)")
    assert ran < config.visibility_timeout / 2
    assert (worker.pid, worker.restarts, worker.alive()) == (pid, restarts, True)


def test_a_queued_job_whose_message_is_gone_is_sent_again(outage, outage_node):
    """A job recorded queued whose message is nowhere in Redis (a worker took it from its queue as
    Redis died, before it was recorded as taken) is sent again by the sweep; a job whose message
    waits in a queue (no sampler worker here) or is held by a worker for later is left alone."""
    sup, config, enqueue, app = outage_node
    client = outage.client()
    store = jobs.JobStore(client, config.key())
    waiting, held, lost = (Event("Steady", {"steps": 1, "every": 0}) for _ in range(3))
    assert enqueue(Event("Ping", {}, key=waiting.key)) == ["sample", "validate"]  # nobody serves them here
    send_event(app, {"event_key": held.key, "event_name": "Steady", "args": held.args, "block": 1, "role": "trainer"},
               countdown=30)
    store.mark_queued("trainer", held.key, "Steady", held.args, 1)
    until = time.time() + 600  # a bounded job's deadline: sent again, it keeps it
    store.mark_queued("trainer", lost.key, "Steady", lost.args, 1, until)
    wait_for(lambda: client.hlen("unacked") >= 1, timeout=10)
    time.sleep(config.lease_s + 0.1)
    assert enqueue.requeue_stale() == []  # found now; sent only if still lost a lease later
    time.sleep(config.lease_s)
    assert enqueue.requeue_stale() == [f"trainer {lost.key}"]
    wait_for(lambda: store.get("trainer", lost.key).status == jobs.DONE, timeout=30, interval=0.1)
    assert store.get("sampler", waiting.key).status == jobs.QUEUED
    assert (store.get("trainer", held.key).status, store.get("trainer", held.key).requeued) == (jobs.QUEUED, 0)
    assert store.get("trainer", lost.key).requeued == 1
    assert store.get("trainer", lost.key).run["until"] == until  # the run it was sent again for had it
