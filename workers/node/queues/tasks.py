"""Thin Celery tasks: unpack ids, call the plain logic in dispatch.run_event, declare retries."""
from __future__ import annotations

import importlib
import logging
import os
import time
from collections.abc import Callable

from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded

from workers.node.config import NodeConfig
from workers.node.observe import logs, metrics
from workers.node.queues import dispatch, jobs
from workers.node.queues.celery_app import HANDLE_EVENT, PING, send_event, warm_sending
from workers.node.queues.ratelimit import TokenBucket
from workers.node.queues.transient import redis_client

_state: dict = {}
log = logging.getLogger(__name__)
dispatch.declare_deadline_stop(SoftTimeLimitExceeded)

DEADLINE_GRACE_S = 5.0
"""Seconds past a job's deadline before Celery's soft time limit stops it (the job's own checks stop
it at the deadline; the limit is the backstop for work between checks); the hard limit follows
DEADLINE_KILL_S later."""
DEADLINE_KILL_S = 10.0


def time_limits(config: NodeConfig, until: float | None, now: float | None = None) -> dict:
    """Celery's (soft, hard) time limits for a job that must end at `until` (time.time() scale),
    never longer than the node's own (config.soft_time_limit, config.time_limit); {} without one."""
    if until is None:
        return {}
    left = max(0.0, until - (time.time() if now is None else now))
    soft = min(config.soft_time_limit, left + DEADLINE_GRACE_S)
    return {"soft_time_limit": soft, "time_limit": min(config.time_limit, soft + DEADLINE_KILL_S)}


def node_state(config: NodeConfig) -> tuple[jobs.JobStore, TokenBucket]:
    """This process's Redis client, job store and rate bucket (made after the pool forks). The
    client rides out a Redis outage (transient.redis_client): a job's own bookkeeping waits for
    Redis to come back rather than failing the job."""
    if _state.get("pid") != os.getpid() or _state.get("config") is not config:
        client = redis_client(config.redis_url)
        _state.update(pid=os.getpid(), config=config,
                      store=jobs.JobStore(client, config.key()),
                      bucket=TokenBucket(client, config.key("rate"), config.rate_per_s,
                                         config.burst))
    return _state["store"], _state["bucket"]


def register(app: Celery) -> None:
    config: NodeConfig = app.node_config

    # shared=False: Celery otherwise hands a task made for one app (one NodeConfig) to every app
    # created later in the process, with the first app's retry settings. ignore_result: the job
    # record says what became of the event (celery_app.send_event).
    @app.task(name=HANDLE_EVENT, bind=True, shared=False, ignore_result=True,
              autoretry_for=(dispatch.RetryableError,),
              retry_backoff=config.retry_backoff, retry_backoff_max=config.retry_backoff_max,
              retry_jitter=config.retry_jitter, max_retries=config.max_retries)
    def handle_event(self, event_key: str, event_name: str, args: dict, block: int, role: str,
                     reserved: float | None = None, sent_at: float | None = None, until: float | None = None):
        # sent_at: when the watcher enqueued the event, for the dispatch latency of its first run (a
        # retry carries the same kwargs after its backoff; a rate-limited rerun has none)
        store, bucket = node_state(config)
        first_run = sent_at if self.request.retries == 0 else None
        # the outcome is counted once the run is over (running gauge down, handler time observed),
        # so a scrape that sees a job done also sees it no longer running
        with logs.event_context(event_name, args, role):
            try:
                with metrics.handler_running(role, event_name, first_run):
                    outcome = dispatch.run_event(
                        store, bucket.reserve, role, event_key, event_name, args, block,
                        final_attempt=self.request.retries >= self.max_retries, lease_s=config.lease_s,
                        max_attempts=config.max_retries + 3, worker=self.request.hostname or "", reserved=reserved,
                        until=until)
            except dispatch.Deferred as later:
                # Not a retry (no retry is used): the same event again at its reserved start (rate
                # limited: the rerun starts then, unasked) or when its handler asked, so this worker
                # is free meanwhile for the tasks the node already holds. A handler's wait is capped
                # as schedule_check caps its own: a message held unacknowledged past the visibility
                # timeout would be delivered again meanwhile (a longer wait defers once more).
                if isinstance(later, dispatch.RateLimited):
                    start, countdown = later.start, later.wait
                else:
                    start, countdown = reserved, min(later.wait, config.visibility_timeout / 2)
                if isinstance(later, dispatch.Extended):
                    until = later.until
                self.apply_async(kwargs=dict(event_key=event_key, event_name=event_name, args=args, block=block,
                                             role=role, reserved=start, until=until), countdown=countdown,
                                 priority=dispatch.DISPATCH.priority(event_name, role, args),
                                 **time_limits(config, until, time.time() + countdown))
                metrics.task_outcome(role, event_name, "deferred")
                log.info("%s %s: %s", event_name, event_key, later)
                return "deferred"
            except dispatch.RetryableError as exc:
                metrics.task_outcome(role, event_name, "retry")
                log.warning("%s %s: will retry (%s)", event_name, event_key, exc)
                raise
            except Exception as exc:
                metrics.task_outcome(role, event_name, "failed")
                log.error("%s %s: failed: %s: %s", event_name, event_key, type(exc).__name__, exc)
                raise
            metrics.task_outcome(role, event_name, outcome)
            log.info("%s %s: %s", event_name, event_key, outcome)
            return outcome

    @app.task(name=PING, bind=True, shared=False)
    def ping(self, queue: str, sent_at: float):
        return {"queue": queue, "worker": self.request.hostname, "latency_s": time.time() - sent_at}


def load_handlers(config: NodeConfig) -> None:
    for module in config.handler_modules:
        importlib.import_module(module)


def make_enqueue(app: Celery, roles=None,
                 table: dispatch.DispatchTable = dispatch.DISPATCH) -> Callable:
    """enqueue(event) -> queues, for the watcher: one handle_event per role handling the event.
    Its `events` attribute names the events it can queue at all (the watcher skips the rest);
    its `requeue_stale()` sends again every job that its calls found lost for lease_s in a row
    (jobs.JobStore.stale: left running with no lease, its handler dead or its outcome lost with
    Redis; or left queued with its message nowhere in Redis, `pending_messages`) and returns their
    "role event-key" names: the watcher calls it every lease_s/2."""
    config: NodeConfig = app.node_config
    load_handlers(config)
    try:
        warm_sending(app)
        node_state(config)[0].client.ping()  # the job records' connection, before the first event
    except Exception as exc:  # noqa: BLE001 - the first enqueue then pays it, or reports the broker down
        log.warning("could not prepare sending to the node's Redis: %s: %s", type(exc).__name__, exc)

    def send(role: str, kwargs: dict) -> None:
        send_event(app, {**kwargs, "sent_at": time.time()},
                   priority=table.priority(kwargs["event_name"], role, kwargs["args"]),
                   **time_limits(config, kwargs.get("until")))

    def enqueue(event, until: float | None = None) -> list[str]:
        """`until`: the event's deadline on this machine's clock (dispatch.enqueue)."""
        store, _ = node_state(config)
        return dispatch.enqueue(event, send, store, table, roles, until=until)

    def bounded(event) -> bool:
        """Whether a job of this node's roles for `event` ends at the event's deadline (so the
        watcher reads the chain's clock for it: one call per such event, none for the others)."""
        return any(table.bounded(event.name, role, event.args) for role in table.roles_for(event.name, event.args)
                   if roles is None or role in roles)

    suspects: dict[tuple[str, str], float] = {}  # (role, event key): when a sweep first found it lost

    def requeue_stale() -> list[str]:
        # A job is sent again only when the sweeps found it lost for lease_s in a row: a live
        # handler's lease is renewed every lease_s/3 (one that outlived a Redis outage takes its
        # lapsed lease again at its first renewal after it: jobs.Lease), and a queued job's message
        # may be on its way (enqueue records the job, then sends it).
        store, _ = node_state(config)
        now = time.monotonic()
        found = store.stale(older_than_s=config.lease_s)
        waiting = pending_messages(store.client) if any(r.status == jobs.QUEUED for _, _, r in found) else set()
        lost = {(role, key): record for role, key, record in found
                if record.status == jobs.RUNNING or (role, key) not in waiting}
        sent = []
        for (role, key), record in lost.items():
            if now - suspects.setdefault((role, key), now) < config.lease_s:
                continue
            del suspects[(role, key)]
            # marked first, then sent: a run that took the job meanwhile keeps it (no second send),
            # and a worker that takes the new message at once finds the record queued, not stale
            if not store.requeued(role, key, record.status):
                continue
            again = {"event_key": key, "event_name": record.event, "args": record.run["args"],
                     "block": record.run["block"], "role": role}
            if record.run.get("until") is not None:  # a bounded job keeps its deadline (and time limits)
                again["until"] = record.run["until"]
            send(role, again)
            why = ("no lease (its worker died, or Redis went down as it ended)" if record.status == jobs.RUNNING
                   else "no message (a worker took it as Redis went down)")
            log.warning("%s %s (%s) was left %s with %s: queued again", record.event, key, role, record.status, why)
            sent.append(f"{role} {key}")
        for gone in set(suspects) - set(lost):
            del suspects[gone]
        return sent

    enqueue.events = table.events_for(roles)
    enqueue.bounded = bounded
    enqueue.requeue_stale = requeue_stale
    return enqueue


def pending_messages(client) -> set[tuple[str, str]]:
    """(role, event key) of every handle_event message in the node's Redis: waiting in a queue (each
    priority's list: kombu names a list `queue` + SEP + priority, the first priority's plain
    `queue`) or taken by a worker and not acknowledged yet (kombu's `unacked` hash, which also holds
    the retries and checks a worker keeps until their time)."""
    import base64
    import json

    from workers.node.config import QUEUES

    lists = [q for queue in QUEUES for q in (queue, *(f"{queue}{KOMBU_PRIORITY_SEP}{p}" for p in (dispatch.LATER,)))]
    pipe = client.pipeline(transaction=False)
    for name in lists:
        pipe.lrange(name, 0, -1)
    pipe.hvals("unacked")
    *queued, unacked = pipe.execute()
    bodies = [m for messages in queued for m in messages] + [json.loads(v)[0] for v in unacked]
    found = set()
    for raw in bodies:
        message = json.loads(raw) if isinstance(raw, (bytes, str)) else raw
        if message.get("headers", {}).get("task") != HANDLE_EVENT:
            continue
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        _, kwargs, _ = json.loads(body)
        found.add((kwargs["role"], kwargs["event_key"]))
    return found


KOMBU_PRIORITY_SEP = "\x06\x16"
"""kombu's Redis transport: a queue's list for a priority other than the first is named queue + this + priority."""
