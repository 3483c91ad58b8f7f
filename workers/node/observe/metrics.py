"""The node's Prometheus metrics: what every process of a node records, and the one registry that
serves them all.

Celery's prefork pool runs a node's work in several processes, so the metrics use
prometheus_client's multiprocess mode: the supervisor gives its children one folder,
PROMETHEUS_MULTIPROC_DIR = <node_dir>/metrics (emptied when the node starts), where each process
keeps its values in files of its own; `registry(node_dir)` sums them at scrape time
(MultiProcessCollector) and adds the health check's results (reputation, claimable rewards,
services up) from <node_dir>/health.json (health.HealthCollector). The supervisor removes the live
gauges of processes that died (`reap_dead`).

The node's own call sites use the one-line helpers below (`task_outcome(...)`, `rolled_out(...)`,
...); the chain layer and the store report to OBSERVER, which the node passes to the senders,
watchers and stores it builds (they import nothing of the node). A metrics failure never breaks
the node's work: every helper logs it once and carries on.
"""
from __future__ import annotations

import glob
import logging
import os
import re
import resource
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Summary

from workers.chain.observer import ChainObserver
from workers.node.processes.state import pid_alive
from workers.storage.store import StoreObserver

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
METRICS_DIR = "metrics"
log = logging.getLogger(__name__)

# Only these metrics are declared here (the worker and watcher side); health.HealthCollector
# declares the gauges it exports. Every metric has labels, so that importing this module creates
# no value file (a process that records nothing leaves nothing behind).
DECLARED = CollectorRegistry(auto_describe=True)

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

TASKS = Counter("decentrl_tasks", "Handled chain events (Celery handle_event tasks) by role, event and "
                "outcome: done, already-done, gave-up, deferred (rate limited), retry, failed, deadline-passed "
                "(dropped or stopped at its phase's deadline)",
                ["role", "event", "state"], registry=DECLARED)
TASKS_RUNNING = Gauge("decentrl_tasks_running", "Handlers running now, by role", ["role"],
                      multiprocess_mode="livesum", registry=DECLARED)
HANDLER_SECONDS = Histogram("decentrl_handler_seconds", "Wall time of one handler run, by role and event",
                            ["role", "event"], buckets=LATENCY_BUCKETS, registry=DECLARED)
HANDLER_CPU_SECONDS = Counter("decentrl_handler_cpu_seconds", "CPU time (user + system, every thread of the worker "
                              "process) of handler runs, by role and event: a prefork worker runs one at a time",
                              ["role", "event"], registry=DECLARED)
DISPATCH_LATENCY = Histogram("decentrl_dispatch_latency_seconds", "From the watcher enqueuing an event to a "
                             "worker starting its handler, by role", ["role"], buckets=LATENCY_BUCKETS,
                             registry=DECLARED)
SYNC_LATENCY = Histogram("decentrl_sync_latency_seconds", "From the block holding an event (its timestamp) to "
                         "the watcher enqueuing it, by event", ["event"], buckets=LATENCY_BUCKETS,
                         registry=DECLARED)
REORGS = Counter("decentrl_chain_reorgs", "Reorganisations that replaced blocks whose events the watcher had "
                 "delivered (deeper than its confirmations)", ["watcher"], registry=DECLARED)
REORG_BLOCKS = Counter("decentrl_chain_reorg_blocks", "Delivered blocks those reorganisations replaced", ["watcher"],
                       registry=DECLARED)
EVENTS = Counter("decentrl_events", "Chain events the watcher delivered to this node's queues, by event",
                 ["event"], registry=DECLARED)
ENV_STEPS = Counter("decentrl_env_steps", "Environment steps rolled out, by role", ["role"], registry=DECLARED)
ENV_SECONDS = Counter("decentrl_env_seconds", "Seconds spent rolling out (steps/s = rate(steps)/rate(seconds))",
                      ["role"], registry=DECLARED)
TRAIN_SAMPLES = Counter("decentrl_train_samples", "Samples (env steps) trained on, by role", ["role"],
                        registry=DECLARED)
TRAIN_SECONDS = Counter("decentrl_train_seconds", "Seconds spent training (samples/s = rate(samples)/"
                        "rate(seconds))", ["role"], registry=DECLARED)
EPISODE_RETURN = Summary("decentrl_episode_return", "Return of each finished episode the node rolled out, by "
                         "environment (mean = rate(sum)/rate(count))", ["env"], registry=DECLARED)
PASSED_OVER = Counter("decentrl_tasks_passed_over", "Slots the node did not take, by role and reason: priced-out "
                      "(its share of the bounty is below the node's price), infeasible (the work would not finish "
                      "inside the window with the node's margin); a validator's drawn-... are draws it could not "
                      "decline", ["role", "reason"], registry=DECLARED)
TX_SENT = Counter("decentrl_tx_sent", "Transactions sent, by contract function", ["fn"], registry=DECLARED)
TX_GAS = Counter("decentrl_tx_gas_used", "Gas used by mined transactions, by contract function", ["fn"],
                 registry=DECLARED)
TX_FAILURES = Counter("decentrl_tx_failures", "Transactions that failed, by function, reason (the decoded "
                      "custom error, OutOfGas, Dropped, or the RPC error's type) and stage: estimate (reverted "
                      "before sending), send (refused by the RPC), mined (reverted on chain or dropped)",
                      ["fn", "reason", "stage"], registry=DECLARED)
STORE_BYTES = Counter("decentrl_store_bytes", "Bytes written to (put) and read from (get) the content store",
                      ["op"], registry=DECLARED)
RELAY_ENTRIES = Counter("decentrl_relay_entries", "Entries the relay bridge received on the pubsub topic, by "
                        "outcome: written into the node's relay, or the kind of drop (repeat, unsigned, read-budget, "
                        "not-current, not-holder, unavailable)", ["outcome"], registry=DECLARED)
STORE_ERRORS = Counter("decentrl_store_errors", "Content store errors, by operation and error type",
                       ["op", "error"], registry=DECLARED)

_failed_once: set[str] = set()


@contextmanager
def _safe(what: str):
    """Run a metrics update; a failure is logged (once per kind) and swallowed."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - metrics must never break the node's work
        if what not in _failed_once:
            _failed_once.add(what)
            log.warning("metrics: %s failed (%s: %s); the node carries on without it", what,
                        type(exc).__name__, exc)


# -- one-line helpers for the call sites ---------------------------------------------------------

def task_outcome(role: str, event: str, state: str) -> None:
    with _safe("task_outcome"):
        TASKS.labels(role, event, state).inc()


@contextmanager
def handler_running(role: str, event: str, sent_at: float | None):
    """Around a handler run: dispatch latency (when the enqueue time is known), running gauge,
    handler time."""
    started, cpu_started = time.time(), _process_cpu_s()
    with _safe("handler_running"):
        if sent_at is not None:
            DISPATCH_LATENCY.labels(role).observe(max(0.0, started - float(sent_at)))
        TASKS_RUNNING.labels(role).inc()
    try:
        yield
    finally:
        with _safe("handler_done"):
            TASKS_RUNNING.labels(role).dec()
            HANDLER_SECONDS.labels(role, event).observe(time.time() - started)
            HANDLER_CPU_SECONDS.labels(role, event).inc(max(0.0, _process_cpu_s() - cpu_started))


def _process_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def event_delivered(event: str, block_timestamp: float | None) -> None:
    with _safe("event_delivered"):
        EVENTS.labels(event).inc()
        if block_timestamp is not None:
            SYNC_LATENCY.labels(event).observe(max(0.0, time.time() - block_timestamp))


def rolled_out(role: str, env: str, steps: int, seconds: float, returns) -> None:
    with _safe("rolled_out"):
        ENV_STEPS.labels(role).inc(steps)
        ENV_SECONDS.labels(role).inc(seconds)
        for value in returns:
            EPISODE_RETURN.labels(env).observe(float(value))


def passed_over(role: str, reason: str) -> None:
    with _safe("passed_over"):
        PASSED_OVER.labels(role, reason).inc()


def relay_entry(outcome: str) -> None:
    with _safe("relay_entry"):
        RELAY_ENTRIES.labels(outcome).inc()


def trained(role: str, samples: int, seconds: float) -> None:
    with _safe("trained"):
        TRAIN_SAMPLES.labels(role).inc(samples)
        TRAIN_SECONDS.labels(role).inc(seconds)


class Observer(ChainObserver, StoreObserver):
    """What the chain layer (TxSender, EventWatcher) and the store report, recorded as this
    process's metrics: the node passes OBSERVER to the senders, watchers and stores it builds."""

    def tx_sent(self, fn: str) -> None:
        with _safe("tx_sent"):
            TX_SENT.labels(fn).inc()

    def tx_mined(self, fn: str, gas_used: int) -> None:
        with _safe("tx_mined"):
            TX_GAS.labels(fn).inc(int(gas_used))

    def tx_failed(self, fn: str, reason: str, stage: str) -> None:
        with _safe("tx_failed"):
            TX_FAILURES.labels(fn, reason, stage).inc()

    def chain_reorg(self, watcher: str, blocks: int) -> None:
        with _safe("chain_reorg"):
            REORGS.labels(watcher).inc()
            REORG_BLOCKS.labels(watcher).inc(blocks)

    def stored(self, op: str, nbytes: int) -> None:
        with _safe("stored"):
            STORE_BYTES.labels(op).inc(nbytes)

    def store_error(self, op: str, error: BaseException) -> None:
        with _safe("store_error"):
            STORE_ERRORS.labels(op, type(error).__name__).inc()


OBSERVER = Observer()


# -- the node side: folder, dead processes, the registry it serves -------------------------------

def metrics_dir(node_dir: str | os.PathLike) -> Path:
    return Path(node_dir) / METRICS_DIR


def reset_dir(path: str | os.PathLike) -> Path:
    """Empty (or create) a node's multiprocess folder: done when the node starts, before any child,
    so that no file of an earlier run is summed in."""
    path = Path(path)
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


_PID = re.compile(r"_(\d+)\.db$")


def reap_dead(path: str | os.PathLike) -> list[int]:
    """mark_process_dead for every process with files in `path` that is gone (a pool child
    recycled or killed, a restarted worker): its live gauges stop counting; its counters stay
    (they are totals). Returns the pids reaped."""
    from prometheus_client import multiprocess

    reaped = set()
    for name in glob.glob(os.path.join(path, "gauge_live*_*.db")):
        match = _PID.search(name)
        if match and not pid_alive(int(match.group(1))):
            reaped.add(int(match.group(1)))
    for pid in sorted(reaped):
        multiprocess.mark_process_dead(pid, str(path))
    return sorted(reaped)


def registry(node_dir: str | os.PathLike) -> CollectorRegistry:
    """What the node serves: every process's metrics summed, plus the health check's gauges."""
    from prometheus_client import multiprocess

    from workers.node.observe.health import HealthCollector

    path = metrics_dir(node_dir)
    path.mkdir(parents=True, exist_ok=True)  # the supervisor empties it when it starts its children
    reg = CollectorRegistry()
    multiprocess.MultiProcessCollector(reg, path=str(path))
    reg.register(HealthCollector(node_dir))
    return reg


def serve(node_dir: str | os.PathLike, port: int, addr: str = "127.0.0.1"):
    """Serve registry(node_dir) on http://addr:port/metrics from a thread; returns (server, thread)."""
    from prometheus_client import start_http_server

    return start_http_server(port, addr=addr, registry=registry(node_dir))


def exported_families() -> dict[str, str]:
    """Name -> type of every metric family the node exports (what the dashboard may use)."""
    from workers.node.observe.health import HealthCollector

    families = {m.name: m.type for m in DECLARED.collect()}
    families.update({m.name: m.type for m in HealthCollector.describe_static()})
    return families


def snapshot(node_dir: str | os.PathLike) -> dict[str, float]:
    """Every sample of the node's processes (histogram buckets left out) summed over all labels,
    by sample name ("decentrl_tx_sent_total"), and summed over all labels but one, by name and that
    label ("decentrl_tasks_total{state=done}"); read straight from the multiprocess folder, for
    `node status`."""
    from prometheus_client import multiprocess

    path = metrics_dir(node_dir)
    if not path.is_dir():
        return {}
    reg = CollectorRegistry()
    multiprocess.MultiProcessCollector(reg, path=str(path))
    out: dict[str, float] = {}
    for family in reg.collect():
        for sample in family.samples:
            if "le" in sample.labels:
                continue
            out[sample.name] = out.get(sample.name, 0.0) + sample.value
            for label, value in sample.labels.items():
                key = f"{sample.name}{{{label}={value}}}"
                out[key] = out.get(key, 0.0) + sample.value
    return out
