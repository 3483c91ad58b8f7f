"""The watcher process's body (`watch`, run by workers.node.processes.watcher_runner under the
Supervisor): follow the protocol's events and queue each one this node has an interest in
(workers.node.queues.interest) for its roles; meanwhile run the store's retention GC and the sweep
that queues again the jobs left running with no lease (tasks.make_enqueue's requeue_stale)."""
from __future__ import annotations

import logging
import time

from workers.node.config import NodeConfig, NodeSettings
from workers.node.observe import logs, metrics

log = logging.getLogger(__name__)


def _start_store_gc(settings: NodeSettings) -> None:
    """The node's store lifecycle: drop unpinned results older than retention_s, every
    gc_interval_s, in a thread of the watcher (one per node)."""
    import threading

    from workers.storage.store import gc_forever, open_store

    store = open_store(settings.ipfs_api, settings.store_dir, retention=settings.retention_s, observer=metrics.OBSERVER)
    threading.Thread(target=gc_forever, args=(store, settings.gc_interval_s, threading.Event()), daemon=True,
                     name="store-gc").start()


def _start_job_sweep(requeue_stale, every_s: float) -> None:
    """Every `every_s`, send again the jobs left running with no lease (a worker that died, an
    outcome lost with Redis), in a thread of the watcher (one per node). Redis being down only
    delays the sweep to the next turn."""
    import threading

    from workers.node.queues.transient import TRANSIENT

    def sweep() -> None:
        while True:
            time.sleep(every_s)
            try:
                requeue_stale()
            except TRANSIENT as exc:
                log.warning("stale-job sweep: %s: %s; trying again in %g s", type(exc).__name__, exc, every_s)

    threading.Thread(target=sweep, daemon=True, name="job-sweep").start()


def watch(enqueue) -> None:
    """Follow TaskRegistry's and DisputeManager's events with a cursor in node_dir/watcher.sqlite
    and enqueue each one this node has an interest in for its roles; meanwhile run the store's
    retention GC (_start_store_gc). Runs until killed."""
    from workers.chain.deployment import load_deployment
    from workers.chain.keystore import find_keystore, keystore_address
    from workers.chain.rpc import http_w3
    from workers.chain.watcher import EventWatcher, SqliteCursor
    from workers.node.queues.interest import Interest

    settings = NodeConfig.from_env().settings
    w3 = http_w3(settings.rpc_url)
    deployment = load_deployment(w3, path=settings.deployment)
    cursor = SqliteCursor(settings.node_dir / "watcher.sqlite", "registry")
    address = keystore_address(find_keystore(settings.node_dir, settings.address))
    interest = Interest(settings.node_dir / "watcher.sqlite", address)
    _start_store_gc(settings)
    if hasattr(enqueue, "requeue_stale"):
        _start_job_sweep(enqueue.requeue_stale, NodeConfig.from_env().lease_s / 2)
    ws = settings.ws_url

    block_time = _block_timestamps(w3)
    local_deadline = _local_deadlines(deployment)
    bounded = getattr(enqueue, "bounded", lambda event: False)

    def deliver(event):
        if not interest.wants(event.name, event.args):
            return []
        with logs.event_context(event.name, event.args):
            queues = enqueue(event, until=local_deadline(event)) if bounded(event) else enqueue(event)
            stamp = event.timestamp if event.timestamp is not None else block_time(event.block)
            metrics.event_delivered(event.name, stamp)
            log.info("%s at block %d (%s) queued for %s", event.name, event.block, event.key,
                     ", ".join(queues) or "no role (done before)")
            return queues

    # the rest of the events (most of a round's: commits, reveals, votes, verdicts) no handler of
    # this node takes: the watcher passes them over undecoded
    events = getattr(enqueue, "events", None)
    watcher = EventWatcher(deployment, deliver, cursor, contracts=("TaskRegistry", "DisputeManager"),
                           names=None if events is None else events | Interest.FOLLOWS,
                           ws_url=ws, mode="ws" if ws else "poll",
                           confirmations=settings.confirmations, poll_interval=settings.poll_interval,
                           observer=metrics.OBSERVER)
    log.info("following the protocol's events from block %d: %s; confirmation depth %d", watcher.position()[0],
             f"websocket {ws} (polling every {watcher.poll_interval:g} s while it is down)" if ws
             else f"polling {settings.rpc_url} every {watcher.poll_interval:g} s", watcher.confirmations)
    watcher.run()


def _local_deadlines(deployment):
    """event -> its `deadline` arg (protocol time) on this machine's clock, or None when the chain
    cannot be read: protocol time stops while the protocol is paused, so it is read from the
    registry (ChainView.protocol_time: one call per such event) rather than taken from the block's
    timestamp."""
    from workers.chain.view import ChainView

    view = ChainView(deployment)

    def local(event) -> float | None:
        try:
            now = view.protocol_time()
        except Exception as exc:  # noqa: BLE001 - the job then runs without a deadline, as before
            log.warning("protocolTime unreadable (%s: %s): %s queued without its deadline", type(exc).__name__,
                        exc, event.name)
            return None
        return time.time() + int(event.args["deadline"]) - int(now)

    return local


def _block_timestamps(w3):
    """block number -> its timestamp (the last few cached), or None when it cannot be read: the
    watcher's sync latency is measured from it and must never stop the watcher. Only for a node
    whose logs lack blockTimestamp (ChainEvent.timestamp)."""
    cache: dict[int, float] = {}

    def timestamp(number: int) -> float | None:
        if number not in cache:
            try:
                cache[number] = float(w3.eth.get_block(number)["timestamp"])
            except Exception as exc:  # noqa: BLE001 - a metric's input; the event still goes out
                log.debug("block %d timestamp unavailable: %s", number, exc)
                return None
            while len(cache) > 64:
                cache.pop(min(cache))
        return cache[number]

    return timestamp
