"""The node's Celery app: broker and results on the node's Redis, a queue per role.

Queues: sample, train, validate (one per role, so an operator runs trainers on GPU hosts and
samplers on CPU hosts), chain (chain-facing housekeeping) and a claim queue per role
(`sample.claim`, ...; config.claim_queue). Routing is by task name: handle_event goes to its
role's claim queue when its handler takes on new work (a claim: dispatch.DispatchTable.
takes_new_task) and to its role's queue otherwise, `decentrl.<queue>.*` tasks to that queue,
anything else to chain. JSON only (a node never unpickles what arrives over the network). Tasks are acknowledged
after they finish (acks_late) and requeued when their process dies (reject_on_worker_lost), so
every task must be idempotent (see dispatch.py); each worker reserves one message at a time.
Within a queue, the jobs a task waits on (a role's own phase work, a draw) are taken before the
others (records, pay), which wait in a second list (DispatchTable.priority).
handle_event keeps no Celery result: what became of an event is its job record (jobs.py), and a
result would cost every event a subscription by its sender and a read and a write by its worker
on the node's Redis (`send_event`). Only ping's result is read.

Rate limit: Celery's `rate_limit` is per worker process, which would let a node with N workers
start N times the design's 10 new tasks/s; a claim (a new-task handler, dispatch.py) reserves its
start from one Redis bucket per node instead (ratelimit.py) and is deferred to it. Several nodes
may share one Redis server only on different db numbers (queue names are not namespaced; job
records and the bucket are).
"""
from __future__ import annotations

from celery import Celery
from kombu import Queue

from workers.node.config import QUEUES, ROLE_QUEUES, NodeConfig, claim_queue
from workers.node.queues.dispatch import DISPATCH, LATER, URGENT
from workers.node.queues.transient import OUTAGE_S, PROBE_S

HANDLE_EVENT = "decentrl.node.handle_event"
PING = "decentrl.node.ping"


def route_task(name, args, kwargs, options, task=None, **kw):
    """Celery router: the queue for a task, from its name (and role/queue argument)."""
    kwargs = kwargs or {}
    if name == HANDLE_EVENT:
        role = kwargs["role"]
        if DISPATCH.takes_new_task(kwargs.get("event_name"), role):
            return {"queue": claim_queue(role)}
        return {"queue": ROLE_QUEUES[role]}
    if name == PING:
        return {"queue": kwargs.get("queue", "chain")}
    parts = name.split(".")
    if len(parts) > 2 and parts[0] == "decentrl" and parts[1] in QUEUES:
        return {"queue": parts[1]}
    return {"queue": "chain"}


def send_event(app: Celery, kwargs: dict, **options):
    """Queue a handle_event with `kwargs`; no result is kept, so none is subscribed to."""
    return app.send_task(HANDLE_EVENT, kwargs=kwargs, ignore_result=True, **options)


def create_app(config: NodeConfig) -> Celery:
    app = Celery(f"decentrl-{config.node_name}", broker=config.redis_url,
                 backend=config.redis_url, set_as_current=False)
    transport = {
        "priority_steps": [URGENT, LATER],  # a list each on Redis; BRPOP takes URGENT's first
        "visibility_timeout": config.visibility_timeout,
        "unacked_restore_interval": config.restore_interval,
        "unacked_restore_throttle": 1,
    }
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_queues=[Queue(q, routing_key=q) for q in QUEUES],
        task_default_queue="chain",
        task_routes=(route_task,),
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=config.soft_time_limit,
        task_time_limit=config.time_limit,
        broker_transport_options=transport,
        result_backend_transport_options={"visibility_timeout": config.visibility_timeout},
        broker_connection_retry_on_startup=True,
        # Redis down (restarting): a worker probes it every PROBE_S for as long as it takes, and a
        # message sent meanwhile (a retry, a scheduled check) waits for it as the node's Redis
        # clients do, rather than failing after kombu's default 0.6 s (transient.py)
        broker_connection_max_retries=None,
        worker_cancel_long_running_tasks_on_connection_loss=False,  # a running job waits Redis out (transient.py)
        worker_consumer="workers.node.queues.reconnect:QuickReconnect",
        task_publish_retry_policy={"max_retries": int(OUTAGE_S / PROBE_S), "interval_start": 0,
                                   "interval_step": PROBE_S / 4, "interval_max": PROBE_S},
        result_expires=24 * 3600,
        imports=list(config.handler_modules),
        enable_utc=True,
        worker_send_task_events=False,
    )
    app.node_config = config
    from workers.node.queues import tasks

    tasks.register(app)
    return app


def warm_sending(app: Celery) -> None:
    """What a process's first send_task would load, loaded now: the result backend (Celery finds
    its class through every installed package's entry points: tens of ms), a broker connection
    from the producer pool (redis-py reads its own version from the package metadata for every
    new connection) and the node's queues declared on it. The watcher and each worker call it
    before their first event, which otherwise pays it in every node at once, for a new task."""
    app.backend  # noqa: B018 - the property loads it (per thread: call it in the sending thread)
    with app.producer_pool.acquire(block=True) as producer:
        producer.connection.ensure_connection(max_retries=1)
        for queue in app.amqp.queues.values():
            producer.maybe_declare(queue)
