"""A real prefork Celery worker of concurrency 2 does real work (CartPole steps, store writes);
one scrape of the node's metrics endpoint sums what both pool processes recorded; the logs of
the work are JSON lines with its task id, round and role; a pool process that dies loses its
live gauges, not its counters."""
import json
import os
import re
import signal
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from observe_support import HERE, STORE_ENV, json_lines, scrape, serve_metrics, total

from tests.waiting import wait_for, wait_ready
from workers.node.config import NodeConfig
from workers.node.processes.supervisor import Supervisor
from workers.node.queues.celery_app import create_app
from workers.node.queues.tasks import make_enqueue

EVENTS = 8
STEPS = 300


@dataclass
class Event:
    name: str
    args: dict
    block: int = 5
    key: str = ""

    def __post_init__(self):
        self.key = self.key or f"0x{uuid.uuid4().hex * 2}:0"


@pytest.fixture(scope="module")
def prefork_node(redis_server, tmp_path_factory):
    node_dir = tmp_path_factory.mktemp("prefork-node")
    config = NodeConfig(redis_url=redis_server.url.rsplit("/", 1)[0] + "/1", node_name="observe-prefork",
                        handler_modules=("observe_handlers",), retry_backoff=1, retry_backoff_max=2,
                        retry_jitter=False, max_retries=1, soft_time_limit=20, time_limit=25,
                        visibility_timeout=60, restore_interval=1)
    app = create_app(config)
    sup = Supervisor(config, node_dir, ("sampler",), concurrency=2, pool="prefork",
                     env={"PYTHONPATH": str(HERE), STORE_ENV: str(node_dir / "store")})
    sup.start()
    server, port = serve_metrics(node_dir)
    try:
        wait_ready(app, "sample", timeout=90)
        yield sup, app, port
    finally:
        server.shutdown()
        server.server_close()
        sup.stop()


def ran(rclient, key):
    return [json.loads(x) for x in rclient.lrange(f"obs:ran:{key}", 0, -1)]


def test_one_scrape_sums_both_pool_processes(prefork_node, redis_server):
    sup, app, port = prefork_node
    rclient = redis.Redis.from_url(sup.config.redis_url)
    enqueue = make_enqueue(app, roles=["sampler"])
    events = [Event("Rollout", {"taskId": 40 + i, "round": i % 3, "seed": i, "steps": STEPS, "hold": 0.4})
              for i in range(EVENTS)]
    for ev in events:
        assert enqueue(ev) == ["sample"]
    runs = wait_for(lambda: all(ran(rclient, ev.key) for ev in events) and
                    [ran(rclient, ev.key)[0] for ev in events], timeout=120)
    pids = {r["pid"] for r in runs}
    assert len(pids) == 2, f"both pool processes must have worked: {pids}"
    # each process keeps its own files; the scrape is their sum
    files = {p.name for p in (Path(sup.node_dir) / "metrics").iterdir()}
    assert {f"counter_{pid}.db" for pid in pids} <= files

    # a scrape reads each process's files one after another, so a run that ends during it may
    # show in one family and not yet in another: wait for one that has all the runs everywhere
    samples = wait_for(lambda: (s := scrape(port)) and
                       total(s, "decentrl_tasks_total", state="done") == EVENTS and
                       total(s, "decentrl_handler_seconds_count", role="sampler", event="Rollout") == EVENTS and
                       total(s, "decentrl_tasks_running", role="sampler") == 0 and s, timeout=20)
    assert total(samples, "decentrl_tasks_total", role="sampler", event="Rollout", state="done") == EVENTS
    assert total(samples, "decentrl_env_steps_total", role="sampler") == EVENTS * STEPS == sum(r["steps"] for r in runs)
    assert total(samples, "decentrl_env_seconds_total", role="sampler") > 0
    assert total(samples, "decentrl_episode_return_count", env="CartPole-v1") == sum(r["episodes"] for r in runs)
    assert total(samples, "decentrl_store_bytes_total", op="put") == sum(r["bytes"] for r in runs)
    assert total(samples, "decentrl_dispatch_latency_seconds_count", role="sampler") == EVENTS
    assert total(samples, "decentrl_handler_seconds_count", role="sampler", event="Rollout") == EVENTS
    assert total(samples, "decentrl_tasks_running", role="sampler") == 0
    # CPU, not wall: each run also sleeps its 0.4 s hold
    wall = total(samples, "decentrl_handler_seconds_sum", role="sampler", event="Rollout")
    cpu = total(samples, "decentrl_handler_cpu_seconds_total", role="sampler", event="Rollout")
    assert 0 < cpu < wall - 0.3 * EVENTS


def test_work_logs_are_json_lines_with_task_round_and_role(prefork_node, redis_server):
    sup, app, port = prefork_node
    rclient = redis.Redis.from_url(sup.config.redis_url)
    ev = Event("Rollout", {"taskId": 77, "round": 4, "seed": 1, "steps": 50})
    make_enqueue(app, roles=["sampler"])(ev)
    wait_for(lambda: ran(rclient, ev.key), timeout=60)
    lines = wait_for(lambda: [x for x in json_lines(sup.children["sampler"].log_path)
                              if x["msg"] == "rolled out 50 steps, 1 episodes"
                              or (x["msg"].startswith("rolled out 50 steps") and x["task_id"] == 77)], timeout=10)
    line = lines[-1]
    assert (line["task_id"], line["round"], line["role"], line["event"]) == (77, 4, "sampler", "Rollout")
    assert line["process"] == "sampler" and line["level"] == "INFO" and line["logger"] == "observe_handlers"
    # every logging record is a JSON line (keys present, null where unknown); what is not JSON
    # is only what Celery prints itself before its logging is set up (the root-user warning)
    text = sup.children["sampler"].log_path.read_text().splitlines()
    every = json_lines(sup.children["sampler"].log_path)
    assert all({"ts", "level", "logger", "task_id", "round", "role", "msg"} <= set(x) for x in every)
    assert any(x["task_id"] is None and x["msg"] == "sampler@observe-prefork ready." for x in every)
    assert not [x for x in text if re.match(r"^\[\d{4}-\d\d-\d\d [^]]*: (DEBUG|INFO|WARNING|ERROR)/", x)]
    assert not [x for x in text if "-------------- [queues]" in x]  # no banner


def test_a_failed_handler_is_counted_by_state(prefork_node, redis_server):
    sup, app, port = prefork_node
    before = total(scrape(port), "decentrl_tasks_total", state="failed")
    make_enqueue(app, roles=["sampler"])(Event("BrokenObserved", {"taskId": 5}))
    wait_for(lambda: total(scrape(port), "decentrl_tasks_total", event="BrokenObserved", state="failed") == before + 1,
             timeout=30)
    error = wait_for(lambda: [x for x in json_lines(sup.children["sampler"].log_path)
                              if x["msg"] == "cannot handle this event"], timeout=10)[-1]
    assert (error["task_id"], error["round"], error["role"], error["level"]) == (5, None, "sampler", "ERROR")


def test_a_retried_handler_counts_a_retry_then_done_and_one_dispatch(prefork_node):
    sup, app, port = prefork_node
    before = scrape(port)
    make_enqueue(app, roles=["sampler"])(Event("FlakyObserved", {"taskId": 9, "round": 0}))
    after = wait_for(lambda: (s := scrape(port))
                     and total(s, "decentrl_tasks_total", event="FlakyObserved", state="done")
                     and total(s, "decentrl_handler_seconds_count", event="FlakyObserved") == 2  # both runs timed
                     and s, timeout=30)  # (a scrape that straddles the second run's end may see one)
    assert total(after, "decentrl_tasks_total", event="FlakyObserved", state="retry") == 1
    dispatched = "decentrl_dispatch_latency_seconds_count"
    assert total(after, dispatched) == total(before, dispatched) + 1  # the retry's backoff is no dispatch


def test_a_dead_pool_process_loses_its_live_gauges_not_its_counters(prefork_node):
    sup, app, port = prefork_node
    mdir = Path(sup.node_dir) / "metrics"
    live = {int(p.name.split("_")[-1][:-3]) for p in mdir.glob("gauge_livesum_*.db")}
    assert len(live) == 2  # the running-tasks gauge of each pool process
    steps = total(scrape(port), "decentrl_env_steps_total")
    victim = sorted(live)[0]
    os.kill(victim, signal.SIGKILL)

    def reaped():
        assert sup.check() == []  # the worker itself is alive: nothing to restart, only to reap
        return not (mdir / f"gauge_livesum_{victim}.db").exists()

    wait_for(reaped, timeout=10)
    assert (mdir / f"counter_{victim}.db").exists()
    assert total(scrape(port), "decentrl_env_steps_total") == steps
    assert sup.children["sampler"].alive()  # Celery replaced its pool process; the worker lives on
    exited = wait_for(lambda: [x for x in json_lines(sup.children["sampler"].log_path)
                               if f"pid:{victim} exited" in x["msg"]], timeout=10)
    assert exited[0]["level"] == "ERROR"  # the pool's own logger writes JSON too
