"""Test-only handlers, imported by the worker subprocesses (NodeConfig.handler_modules) with this
folder on their PYTHONPATH. Each records what it did in Redis under test:* keys."""
import json
import os
import time

import redis

from workers.node.config import NodeConfig
from workers.node.queues.dispatch import DISPATCH, HandledEvent

_client = {}


def r() -> redis.Redis:
    if _client.get("pid") != os.getpid():
        _client.update(pid=os.getpid(), c=redis.Redis.from_url(NodeConfig.from_env().redis_url))
    return _client["c"]


def _note(ev: HandledEvent, kind: str) -> None:
    r().rpush(f"test:{kind}:{ev.key}", json.dumps(
        {"role": ev.role, "worker": ev.worker, "pid": os.getpid(), "t": time.time(),
         "attempt": ev.attempt}))


@DISPATCH.on("Ping", "sampler")
@DISPATCH.on("Ping", "validator")
def ping(ev: HandledEvent) -> None:
    _note(ev, "ran")


@DISPATCH.on("Count", "sampler", new_task=True)
@DISPATCH.on("Count", "validator", new_task=True)
def count(ev: HandledEvent) -> None:
    _note(ev, "ran")
    r().rpush("test:starts:" + ev.args["batch"], json.dumps({"t": time.time(), "reserved": ev.reserved_start,
                                                            "worker": ev.worker, "pid": os.getpid()}))
    time.sleep(ev.args.get("sleep", 0))


@DISPATCH.on("Slow", "trainer")
def slow(ev: HandledEvent) -> None:
    _note(ev, "started")
    time.sleep(ev.args["sleep"])
    _note(ev, "completed")


@DISPATCH.on("Busy", "sampler")
def busy(ev: HandledEvent) -> None:
    """Held work that computes for a while (a rollout): it occupies a sampler pool process."""
    _note(ev, "started")
    time.sleep(ev.args["sleep"])
    _note(ev, "completed")


@DISPATCH.on("Hold", "validator")
def hold(ev: HandledEvent) -> None:
    """Held work of a validator (an early check): it occupies a validator pool process."""
    _note(ev, "started")
    time.sleep(ev.args["sleep"])
    _note(ev, "completed")


@DISPATCH.on("Vote", "validator", urgent=lambda args: True)
def vote(ev: HandledEvent) -> None:
    """Work a round waits on (a validator's vote at Attest)."""
    _note(ev, "ran")


@DISPATCH.on("Flaky", "sampler")
def flaky(ev: HandledEvent) -> None:
    _note(ev, "ran")
    if r().llen(f"test:ran:{ev.key}") <= ev.args["fail"]:
        raise TimeoutError(f"chain call timed out (attempt {ev.attempt})")


@DISPATCH.on("Broken", "sampler")
def broken(ev: HandledEvent) -> None:
    _note(ev, "ran")
    raise ValueError("bad input")


def watch(enqueue) -> None:
    """A stand-in for the chain layer's watcher entry point: delivers one event, then idles."""
    from types import SimpleNamespace

    key = os.environ["TEST_WATCHER_EVENT_KEY"]
    queues = enqueue(SimpleNamespace(name="Ping", args={"from": "watcher"}, block=7, key=key))
    r().rpush(f"test:watcher:{key}", json.dumps(queues))
    while True:
        time.sleep(1)


@DISPATCH.on("Later", "validator", urgent=lambda args: True)
def later(ev: HandledEvent) -> None:
    """A keeper whose turn has not come (workers.node.handlers.keeper_turns): it defers itself once."""
    from workers.node.queues.dispatch import Deferred

    _note(ev, "ran")
    if r().llen(f"test:ran:{ev.key}") == 1:
        raise Deferred(ev.args["wait"], "not my turn yet")


@DISPATCH.on("LongRollout", "sampler", bounded=lambda args: True)
def long_rollout(ev: HandledEvent) -> None:
    """Phase work that ends at its deadline (a rollout): checks it between steps (workers.deadline)."""
    from workers import deadline

    _note(ev, "started")
    until = time.time() + ev.args["sleep"]
    while time.time() < until:
        deadline.check()
        time.sleep(0.02)
    _note(ev, "completed")


def _moved_deadline(args: dict) -> float | None:
    """The deadline as "the chain" says now (a test key; a protocol pause moves it later)."""
    value = r().get(f"test:deadline:{args['id']}")
    return None if value is None else float(value)


DISPATCH.on("PausedRollout", "sampler", bounded=lambda args: True, recheck=_moved_deadline)(long_rollout)


@DISPATCH.on("StuckRollout", "sampler", bounded=lambda args: True, recheck=_moved_deadline)
def stuck_rollout(ev: HandledEvent) -> None:
    """Phase work that never checks its deadline (stuck in a library call): only Celery's time limit
    stops it. Its second run is quick."""
    _note(ev, "started")
    if len(r().lrange(f"test:started:{ev.key}", 0, -1)) == 1:
        time.sleep(ev.args["sleep"])
    _note(ev, "completed")


@DISPATCH.on("Steady", "trainer")
def steady(ev: HandledEvent) -> None:
    """Work that writes to the node's Redis as it goes (as a sender stores its nonce): `steps` stamped
    writes, `every` s apart, through the client the node's job records use (tasks.node_state)."""
    from celery import current_task

    from workers.node.queues.tasks import node_state

    client = node_state(current_task.app.node_config)[0].client
    for step in range(ev.args["steps"]):
        client.rpush(f"test:steps:{ev.key}", json.dumps({"t": time.time(), "step": step, "attempt": ev.attempt,
                                                        "pid": os.getpid()}))
        time.sleep(ev.args["every"])
