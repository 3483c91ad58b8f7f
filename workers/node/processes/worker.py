"""`celery -A workers.node.processes.worker worker -Q <queue>`: the app built from DECENTRL_NODE_CONFIG."""
import importlib
import logging
import os
import time

from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    worker_init,
    worker_process_shutdown,
    worker_ready,
)

from workers.node.config import CLAIM_LANE, COMPUTE_NICENESS, NodeConfig
from workers.node.observe import logs
from workers.node.processes.priority import yield_cpu
from workers.node.queues.celery_app import create_app, warm_sending

config = NodeConfig.from_env()
app = create_app(config)
niceness = COMPUTE_NICENESS.get(os.environ.get(logs.PROCESS_ENV), 0)  # this process's role, if it computes
if niceness:
    yield_cpu(niceness)  # inherited by the pool processes


@after_setup_logger.connect
@after_setup_task_logger.connect
def structured_logs(logger=None, **_) -> None:
    """Celery's log handlers get the node's formatter (JSON lines with task id, round, role), and
    Python warnings go through them too."""
    from billiard.util import get_logger as pool_logger  # the pool's own ("process exited" lines)

    logs.use_on(logger)
    logs.use_on(pool_logger())
    logging.captureWarnings(True)


WARM_UP: list[tuple[int, str]] = []
"""What the worker's warm-up did, as (logging level, message): it runs before Celery sets up
logging, so `report_warm_up` logs it once the worker is ready."""


@worker_init.connect
def warm(**_) -> None:
    """Before the worker takes its first message, let each handler module load what it computes
    with (its `warm()`: torch, gymnasium, the node's context), so that the first event a node
    handles is not seconds late; the claim lane, which computes nothing, calls `warm_claims()`
    instead (the node's context only). A failure here is only reported: the handler raises it."""
    hook = "warm_claims" if os.environ.get(logs.PROCESS_ENV) == CLAIM_LANE else "warm"
    try:
        warm_sending(app)  # handlers schedule checks and follow-ups with send_task
    except Exception as exc:  # noqa: BLE001 - see the docstring
        WARM_UP.append((logging.WARNING, f"preparing send_task failed: {type(exc).__name__}: {exc}"))
    found = [(name, getattr(importlib.import_module(name), hook, None)) for name in config.handler_modules]
    found = [(name, fn) for name, fn in found if fn is not None]
    if not found:  # said, so that handler modules that lose their hook cannot go unnoticed
        WARM_UP.append((logging.INFO, f"warm-up: no handler module defines {hook}()"))
    for name, fn in found:
        started = time.perf_counter()
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - see the docstring
            WARM_UP.append((logging.WARNING, f"warming {name} failed: {type(exc).__name__}: {exc}"))
        else:
            WARM_UP.append((logging.INFO, f"warm-up: {name}.{hook}() in {time.perf_counter() - started:.2f} s"))


@worker_ready.connect
def report_warm_up(**_) -> None:
    log = logging.getLogger(__name__)
    for level, message in WARM_UP:
        log.log(level, "%s", message)


@worker_process_shutdown.connect
def forget_live_gauges(pid=None, **_) -> None:
    """A pool process that exits takes its live gauges (tasks running) with it; its counters stay.
    (The supervisor also reaps processes that died without this hook: metrics.reap_dead.)"""
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        from prometheus_client import multiprocess

        try:
            multiprocess.mark_process_dead(pid or os.getpid(), path)
        except OSError:
            pass
