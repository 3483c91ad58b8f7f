"""Start and keep alive a node's processes: the chain watcher, one Celery worker per role and, when
one of its roles claims new work (validators are drawn, not claiming), the claim lane: one worker
serving those roles' claim queues (config.CLAIM_LANE).

Each child is a real process in its own session (so its pool children stop with it), forked from
a fork server that loaded the node's libraries once (workers.node.processes.spawn), with its output in
<node_dir>/logs/<name>.log (JSON lines: workers.node.observe.logs). check() restarts children that died;
stop() sends SIGTERM to each child's process group and SIGKILL after a timeout.

Crash loops: a child that dies within STABLE_S of its start is restarted at once the first time;
if it keeps dying that young (a chain node or Redis it cannot reach as it starts, a bad setting),
each next restart waits twice as long, from 1 s up to RESTART_MAX_S, with one log line each, so a
broken child does not fork, fail and write a traceback every second. A child that lived longer
restarts at once and starts the count again.

Metrics: every child records its Prometheus metrics in <node_dir>/metrics (PROMETHEUS_MULTIPROC_DIR,
emptied at the first start; workers.node.observe.metrics serves their sum); check() also drops the live
gauges of processes that are gone (a Celery pool child included, which the supervisor never sees).

The watcher is given as an import path "module:callable" (the chain layer provides it): it is run
by `python -m workers.node.processes.watcher_runner`, which calls it with one argument, `enqueue(event)`
(tasks.make_enqueue), and the callable runs until the process is stopped.
"""
from __future__ import annotations

import importlib
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import wait as wait_for_sentinels
from multiprocessing.process import BaseProcess
from pathlib import Path

from workers.node.config import CLAIM_LANE, ENV_VAR, ROLE_QUEUES, NodeConfig, claim_queue
from workers.node.observe import logs, metrics
from workers.node.processes import spawn
from workers.node.queues.dispatch import DISPATCH

ROOT = Path(__file__).resolve().parents[3]
STABLE_S = 30.0  # a child that dies younger than this counts towards a crash loop
RESTART_MAX_S = 60.0  # the longest wait before restarting a child in a crash loop
log = logging.getLogger(__name__)


@dataclass
class Child:
    name: str
    argv: list[str]
    log_path: Path
    process: BaseProcess | None = None  # a multiprocessing process: workers.node.processes.spawn.start
    restarts: int = 0
    started_at: float = 0.0
    young_deaths: int = 0
    """Deaths in a row within STABLE_S of a start (a crash loop's length)."""
    restart_at: float | None = None
    """When a dead child found by check() is due to start again (None: not found dead yet)."""
    celery: bool = True
    """A Celery worker (answers pings), or a plain process (the watcher, a service)."""
    _status: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    """Reading a process's exit status consumes it (multiprocessing's sentinel pipe), so threads
    that look at once (LocalNetwork's supervise thread and its caller) take turns."""

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def returncode(self) -> int | None:
        """Its exit status once it ended (-N: killed by signal N), else None."""
        if self.process is None:
            return None
        with self._status:
            return self.process.exitcode

    def alive(self) -> bool:
        if self.process is None:
            return False
        with self._status:
            return self.process.is_alive()

    def wait(self, timeout: float | None = None) -> int | None:
        """Waits up to `timeout` s (None: for ever) for it to end; its returncode."""
        if self.process is not None:
            wait_for_sentinels([self.process.sentinel], timeout)  # without taking the turn meanwhile
        return self.returncode


@dataclass
class Supervisor:
    """A node's processes. roles: subset of sampler, trainer, validator, chain."""

    config: NodeConfig
    node_dir: Path
    roles: tuple[str, ...]
    watcher: str | None = None
    concurrency: int = 1
    pool: str = "prefork"
    log_level: str = "info"
    log_format: str = "json"
    """Children's log lines: "json" (one object a line, workers.node.observe.logs) or "text"."""
    env: dict = field(default_factory=dict)
    """Extra environment for the children (e.g. PYTHONPATH for handler modules)."""
    services: dict = field(default_factory=dict)
    """Further plain processes: name -> module run as `python -m module` (the relay bridge)."""
    children: dict[str, Child] = field(default_factory=dict)

    def __post_init__(self):
        self.node_dir = Path(self.node_dir)
        self.metrics_dir = metrics.metrics_dir(self.node_dir)
        logs.formatter(self.log_format)  # a bad value fails here, not in every child
        unknown = set(self.roles) - set(ROLE_QUEUES)
        if unknown:
            raise ValueError(f"unknown roles {sorted(unknown)}; roles: {sorted(ROLE_QUEUES)}")
        if self.watcher is not None and ":" not in self.watcher:
            raise ValueError(f"watcher must be 'module:callable', got {self.watcher!r}")
        log_dir = self.node_dir / "logs"
        for role in self.roles:
            self.children[role] = Child(role, self._worker_argv(role, ROLE_QUEUES[role], self.concurrency),
                                        log_dir / f"{role}.log")
        claiming = [role for role in self.roles if self._claims(role)]
        if claiming:
            # One worker for every role's claims (short chain calls; they share the rate bucket).
            queues = ",".join(claim_queue(role) for role in claiming)
            self.children[CLAIM_LANE] = Child(CLAIM_LANE, self._worker_argv(CLAIM_LANE, queues, self.concurrency),
                                              log_dir / f"{CLAIM_LANE}.log")
        if self.watcher:
            argv = [sys.executable, "-m", "workers.node.processes.watcher_runner", self.watcher,
                    "--roles", ",".join(self.roles)]
            self.children["watcher"] = Child("watcher", argv, log_dir / "watcher.log", celery=False)
        for name, module in self.services.items():
            self.children[name] = Child(name, [sys.executable, "-m", module], log_dir / f"{name}.log", celery=False)

    def _claims(self, role: str) -> bool:
        """Whether the node's handler modules give `role` a claiming handler (importing them is
        cheap: their compute modules load in the workers' warm-up)."""
        for module in self.config.handler_modules:
            importlib.import_module(module)
        return DISPATCH.claims_for(role, self.config.handler_modules)

    def _worker_argv(self, name: str, queues: str, concurrency: int) -> list[str]:
        return [sys.executable, "-m", "celery", "-A", "workers.node.processes.worker", "--quiet", "worker",  # no banner
                "-Q", queues, "-c", str(concurrency), "-P", self.pool,
                "-n", f"{name}@{self.config.node_name}", "-l", self.log_level,
                "--without-gossip", "--without-mingle", "--without-heartbeat"]

    def _child_env(self, child: Child) -> dict:
        env = dict(os.environ)
        env.update(self.env)
        env[ENV_VAR] = self.config.to_json()
        env[metrics.MULTIPROC_ENV] = str(self.metrics_dir)
        env[logs.FORMAT_ENV] = self.log_format
        env[logs.PROCESS_ENV] = child.name
        paths = [str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
        return env

    def _spawn(self, child: Child) -> None:
        child.log_path.parent.mkdir(parents=True, exist_ok=True)
        child.process = spawn.start(f"{self.config.node_name}:{child.name}", child.argv, self._child_env(child),
                                    child.log_path, ROOT)
        child.started_at = time.time()

    def start(self) -> None:
        if not any(c.alive() for c in self.children.values()):
            metrics.reset_dir(self.metrics_dir)  # no file of an earlier run is summed in
        for child in self.children.values():
            if not child.alive():
                self._spawn(child)

    def check(self) -> list[str]:
        """Restart every child that is not running and is due (the module doc's crash loops);
        returns their names."""
        restarted = []
        for child in self.children.values():
            if child.process is None or child.alive():
                continue
            now = time.time()
            if child.restart_at is None:  # found dead now
                lived = now - child.started_at
                child.young_deaths = child.young_deaths + 1 if lived < STABLE_S else 0
                delay = 0.0 if child.young_deaths <= 1 else min(2.0 ** (child.young_deaths - 2), RESTART_MAX_S)
                child.restart_at = now + delay
                if delay:
                    log.warning("%s exited (code %s) %.1f s after its start, %d times in a row; restarting it in "
                                "%g s (its log: %s)", child.name, child.returncode, lived, child.young_deaths,
                                delay, child.log_path)
            if now >= child.restart_at:
                _kill_group(child.pid, signal.SIGKILL)  # its pool children, if any survived
                child.restarts += 1
                child.restart_at = None
                self._spawn(child)
                restarted.append(child.name)
        metrics.reap_dead(self.metrics_dir)
        return restarted

    def restart(self, name: str) -> None:
        """Kill child `name` (its whole process group: a hung worker and its pool) and start it
        again (the health check's answer to a worker that is alive but does not answer)."""
        child = self.children[name]
        if child.process is not None:
            _kill_group(child.pid, signal.SIGKILL)
            child.wait()
        child.restarts += 1
        self._spawn(child)

    def health(self) -> dict[str, dict]:
        return {c.name: {"pid": c.pid, "alive": c.alive(), "restarts": c.restarts,
                         "uptime_s": round(time.time() - c.started_at, 1) if c.alive() else 0.0,
                         "log": str(c.log_path)}
                for c in self.children.values()}

    def run(self, interval: float = 1.0) -> None:
        """Start, then restart dead children every `interval` s until SIGTERM/SIGINT; stop."""
        stopping = []
        handler = lambda *_: stopping.append(True)  # noqa: E731
        old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.start()
            while not stopping:
                time.sleep(interval)
                if not stopping:
                    self.check()
        finally:
            self.stop()
            for s, h in old.items():
                signal.signal(s, h)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM each child's process group (Celery's warm shutdown returns unacknowledged
        messages), then SIGKILL what is left after `timeout` seconds."""
        stop_all([self], timeout)

    def __enter__(self) -> Supervisor:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def stop_all(supervisors, timeout: float = 10.0) -> None:
    """Supervisor.stop for several supervisors at once: every child is sent SIGTERM first, so a
    warm shutdown (a second or two for a Celery worker) overlaps with all the others."""
    children = [c for sup in supervisors for c in sup.children.values()]
    live = [c for c in children if c.alive()]
    for c in live:
        _kill_group(c.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for c in live:
        c.wait(max(0.0, deadline - time.monotonic()))
    for c in children:
        if c.process is not None:
            _kill_group(c.pid, signal.SIGKILL)  # what is left, and any pool process it left behind
            c.wait()


def _kill_group(pid: int, sig: int) -> None:
    """Signal a child's process group (its session, which it leads: pgid == pid)."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
