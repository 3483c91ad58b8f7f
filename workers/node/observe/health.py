"""The node's health check: every minute the supervisor's loop checks the chain (RPC reachable,
chain id matches the deployment), Redis, the content store and each process (Celery control ping
for the workers, process alive for the watcher), restarts what it can, refreshes its own account's
figures (reputation, claimable rewards, stake and eligibility per role) and writes it all to
<node_dir>/health.json, which `decentrl node status` shows and HealthCollector exports as metrics.

Why the supervisor's loop and not Celery beat: the check must work exactly when Celery cannot.
Beat sends its task through the broker, so with Redis down no check would run at all; the task
would run inside a worker, which can neither see the supervisor's processes nor restart the
worker it runs in; and beat is one more process to keep alive. The supervisor already owns the
processes (check() restarts dead ones every second), so it runs the health check too.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from workers.node.processes.redis_service import redacted
from workers.node.processes.state import write_json_atomically

HEALTH_FILE = "health.json"
TOKEN = 10**18
DEFAULT_INTERVAL_S = 60.0
STARTING_RECHECK_S = 5.0
"""A worker still starting (within its grace) is checked again this soon."""


def health_path(node_dir) -> Path:
    return Path(node_dir) / HEALTH_FILE


def read_health(node_dir) -> dict | None:
    try:
        return json.loads(health_path(node_dir).read_text())
    except (OSError, ValueError):
        return None


def _result(ok: bool, detail: str, started: float, **more) -> dict:
    return {"ok": ok, "detail": detail, "checked_at": time.time(), "took_s": round(time.time() - started, 3), **more}


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def check_chain(rpc_url: str, deployment_path, known=None) -> tuple[dict, object | None]:
    """(result, Deployment or None): RPC reachable, chain id as the deployment's, registry code.
    `known`: the Deployment the previous check returned, reused while its record is unchanged."""
    from workers.chain.deployment import DeploymentError, load_deployment, recheck_deployment
    from workers.chain.rpc import http_w3

    started = time.time()
    try:
        if known is not None:
            deployment = recheck_deployment(known, deployment_path)
        else:
            deployment = load_deployment(http_w3(rpc_url, timeout=5.0), path=deployment_path)
        head = deployment.w3.eth.block_number
    except DeploymentError as exc:  # wrong chain id, chain reset
        return _result(False, str(exc), started), None
    except Exception as exc:  # noqa: BLE001 - unreachable RPC: requests' errors and friends
        return _result(False, f"RPC at {rpc_url} unreachable: {_error(exc)}", started), None
    return _result(True, f"chain {deployment.chain_id}, head block {head}", started,
                   chain_id=deployment.chain_id, head=head), deployment


def check_redis(url: str) -> dict:
    import redis

    started = time.time()
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        return _result(False, f"Redis at {redacted(url)}: {_error(exc)}", started)
    return _result(True, f"Redis at {redacted(url)} answers PING", started)


PROBE = b"decentrl health probe\n"


def check_store(ipfs_api: str | None, store_dir) -> dict:
    """A put and a get of a small fixed object (its CID never changes; the retention GC drops it)."""
    from workers.node.observe.metrics import OBSERVER
    from workers.storage.store import open_store

    started = time.time()
    where = f"IPFS node at {ipfs_api}" if ipfs_api else f"embedded store at {store_dir}"
    try:
        store = open_store(ipfs_api, store_dir, observer=OBSERVER, **({"timeout": 5.0} if ipfs_api else {}))
        try:
            cid = store.put(PROBE)
            if store.get(cid, timeout=5.0) != PROBE:
                return _result(False, f"{where} gave back other bytes for {cid}", started)
        finally:
            getattr(store, "close", lambda: None)()
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        return _result(False, f"{where}: {_error(exc)}", started)
    return _result(True, f"{where}: put and get of a probe", started)


def restart_note(child) -> str:
    """What a dead child in a crash loop waits for (the supervisor's backoff), else ""."""
    if child.restart_at is None or child.alive():
        return ""
    wait = max(0.0, child.restart_at - time.time())
    return (f"; exited {child.young_deaths} times in a row soon after starting, next start in {wait:.0f} s "
            f"(its log: {child.log_path})")


def watcher_block(node_dir) -> int | None:
    """The last block the node's watcher processed (its cursor), or None before it has one."""
    from workers.chain.watcher import SqliteCursor

    path = Path(node_dir) / "watcher.sqlite"
    if not path.exists():
        return None
    try:
        return SqliteCursor(path, "registry").last_processed_block()
    except Exception:  # noqa: BLE001 - a locked or half-made file: unknown this time
        return None


def ping_workers(app, hostnames: list[str], timeout: float) -> set[str]:
    """The Celery worker host names (role@node) that answer a control ping within `timeout`."""
    if not hostnames:
        return set()
    answers = app.control.ping(destination=hostnames, timeout=timeout) or []
    return {name for answer in answers for name in answer}


def holds_lease(config, role: str) -> bool:
    """Whether a `role` handler of this node holds a job lease now (workers.node.queues.jobs): its
    worker is busy with a job. A worker in Celery's solo pool (workers.localnet's nodes) runs the
    handler in the process that answers pings, so it answers none until the job ends."""
    import redis

    client = redis.Redis.from_url(config.redis_url, socket_connect_timeout=2, socket_timeout=2)
    try:
        return next(client.scan_iter(match=config.key("lease", role, "*"), count=1000), None) is not None
    finally:
        client.close()


def account_figures(view, address: str, roles) -> dict:
    """Reputation, claimable rewards, and stake/eligibility for each of the node's roles."""
    from workers.protocol import Role

    figures = {"address": address, "reputation": view.score(address),
               "threshold": view.reputation.functions.threshold().call(),
               "claimable_wei": view.claimable(address),
               "paused": view.stakes.functions.isNodePaused(address).call(), "roles": {}}
    for name in roles:
        e = view.eligibility(address, Role[name.upper()])
        figures["roles"][name] = {"eligible": e.eligible, "reason": e.reason, "available_wei": e.available_stake,
                                  "required_wei": e.required_stake}
    return figures


@dataclass
class HealthChecker:
    """Runs the checks for one node's Supervisor (see the module doc). `check()` once; the
    supervisor loop calls `due()`/`check()`.

    startup_grace_s: a worker younger than this is not restarted for not answering a ping (it may
    still be importing torch). restart_redis: called when Redis is down (it restarts an embedded
    server and returns its new URL; None for an external one, which the node cannot restart)."""

    supervisor: object
    rpc_url: str
    deployment_path: str
    address: str
    store_dir: str
    ipfs_api: str | None = None
    interval_s: float = DEFAULT_INTERVAL_S
    ping_timeout_s: float = 2.0
    startup_grace_s: float = 60.0
    metrics_port: int | None = None
    restart_redis: Callable[[], bool] | None = None
    last_run: float = field(default=0.0, init=False)
    _app: object = field(default=None, init=False, repr=False)
    _deployment: object = field(default=None, init=False, repr=False)  # the last check's, for the next
    _view: object = field(default=None, init=False, repr=False)  # a ChainView of it (its calls bound once)

    @property
    def node_dir(self) -> Path:
        return Path(self.supervisor.node_dir)

    def due(self, now: float | None = None) -> bool:
        return (now or time.time()) - self.last_run >= self.interval_s

    def _celery(self):
        if self._app is None:
            from workers.node.queues.celery_app import create_app

            self._app = create_app(self.supervisor.config)
        return self._app

    def check(self) -> dict:
        self.last_run = time.time()
        sup = self.supervisor
        services: dict[str, dict] = {}
        actions: list[str] = []

        chain, deployment = check_chain(self.rpc_url, self.deployment_path, self._deployment)
        self._deployment = deployment
        services["chain"] = chain
        services["redis"] = check_redis(sup.config.redis_url)
        if not services["redis"]["ok"] and self.restart_redis is not None:
            if self.restart_redis():
                actions.append("restarted redis")
                services["redis"] = check_redis(sup.config.redis_url)
        services["store"] = check_store(self.ipfs_api, self.store_dir)

        actions += [f"restarted {name} (process had exited)" for name in sup.check()]
        workers = {name: c for name, c in sup.children.items() if c.celery}
        hostnames = {name: f"{name}@{sup.config.node_name}" for name in workers}
        started = time.time()
        try:
            answered = ping_workers(self._celery(), list(hostnames.values()), self.ping_timeout_s) \
                if services["redis"]["ok"] else set()
            ping_error = None if services["redis"]["ok"] else "Redis is down"
        except Exception as exc:  # noqa: BLE001 - the broker failing mid-check
            answered, ping_error = set(), _error(exc)
        starting = False
        for name, child in sup.children.items():
            if not child.celery:
                ok = child.alive()
                block = watcher_block(self.node_dir) if name == "watcher" else None
                at = "" if block is None else f", processed up to block {block}"
                services[name] = _result(ok, (f"pid {child.pid} alive" if ok else "not running") + at
                                         + restart_note(child), started, block=block)
                continue
            if hostnames[name] in answered:
                services[name] = _result(True, f"pid {child.pid}, answers Celery ping", started)
                continue
            detail = f"pid {child.pid} does not answer Celery ping within {self.ping_timeout_s:g} s" + \
                (f" ({ping_error})" if ping_error else "") + restart_note(child)
            young = time.time() - child.started_at < self.startup_grace_s
            if child.alive() and ping_error is None and holds_lease(sup.config, name):  # busy, not hung
                services[name] = _result(True, f"pid {child.pid} busy: a {name} job holds its lease (the worker "
                                               "answers pings between jobs)" + restart_note(child), started)
                continue
            if child.alive() and not young and ping_error is None:
                sup.restart(name)
                actions.append(f"restarted {name} (no answer to ping)")
                detail += "; restarted"
            elif young:
                detail += "; starting"
                starting = True
            services[name] = _result(False, detail, started)
        if starting:  # look again soon rather than show a starting worker as down for a whole interval
            self.last_run -= max(0.0, self.interval_s - STARTING_RECHECK_S)

        doc = {"checked_at": self.last_run, "interval_s": self.interval_s, "metrics_port": self.metrics_port,
               "node_name": sup.config.node_name, "redis_url": sup.config.redis_url,
               "roles": [r for r in sup.roles if r != "chain"], "services": services, "actions": actions,
               "processes": sup.health(), "account": None}
        if deployment is not None:
            from workers.chain.view import ChainView

            if getattr(self._view, "deployment", None) is not deployment:
                self._view = ChainView(deployment)
            try:
                doc["account"] = account_figures(self._view, self.address, doc["roles"])
            except Exception as exc:  # noqa: BLE001 - reported, and tried again next minute
                doc["account_error"] = _error(exc)
        write_health(self.node_dir, doc)
        return doc


def write_health(node_dir, doc: dict) -> Path:
    return write_json_atomically(health_path(node_dir), doc)


class HealthCollector:
    """Exports <node_dir>/health.json as metrics at each scrape (see health_families)."""

    def __init__(self, node_dir):
        self.node_dir = Path(node_dir)

    @staticmethod
    def describe_static():
        return [f for f in health_families(None)]

    def describe(self):
        return self.describe_static()

    def collect(self):
        return health_families(read_health(self.node_dir))


def health_families(doc: dict | None) -> list:
    """The health check's metric families, from a health.json document (empty ones for None)."""
    up = GaugeMetricFamily("decentrl_up", "1 if the service or process passed the last health check, else 0",
                           labels=["service"])
    checked = GaugeMetricFamily("decentrl_health_checked_timestamp_seconds",
                                "Unix time of the last health check")
    restarts = CounterMetricFamily("decentrl_process_restarts", "Restarts of each of the node's processes",
                                   labels=["process"])
    reputation = GaugeMetricFamily("decentrl_reputation_score", "The node's reputation score (0-100)")
    threshold = GaugeMetricFamily("decentrl_reputation_threshold", "Reputation below which no new work is given")
    claimable = GaugeMetricFamily("decentrl_claimable_drl", "Rewards the node can claim from the RewardVault (DRL)")
    eligible = GaugeMetricFamily("decentrl_eligible", "1 if the node may claim or be drawn for the role now",
                                 labels=["role"])
    stake = GaugeMetricFamily("decentrl_stake_available_drl", "Stake available (not locked) for the role, DRL",
                              labels=["role"])
    head = GaugeMetricFamily("decentrl_chain_head_block", "Latest block of the chain at the last health check")
    watched = GaugeMetricFamily("decentrl_watcher_block", "Last block the node's watcher processed (its cursor) "
                                "at the last health check; head minus this is its lag")
    families = [up, checked, restarts, reputation, threshold, claimable, eligible, stake, head, watched]
    if not doc:
        return families
    checked.add_metric([], float(doc["checked_at"]))
    for name, result in sorted(doc.get("services", {}).items()):
        up.add_metric([name], 1.0 if result.get("ok") else 0.0)
    for name, proc in sorted(doc.get("processes", {}).items()):
        restarts.add_metric([name], float(proc.get("restarts", 0)))
    chain = doc.get("services", {}).get("chain", {})
    if chain.get("head") is not None:
        head.add_metric([], float(chain["head"]))
    watcher = doc.get("services", {}).get("watcher", {})
    if watcher.get("block") is not None:
        watched.add_metric([], float(watcher["block"]))
    account = doc.get("account")
    if account:
        reputation.add_metric([], float(account["reputation"]))
        threshold.add_metric([], float(account["threshold"]))
        claimable.add_metric([], account["claimable_wei"] / TOKEN)
        for role, fig in sorted(account.get("roles", {}).items()):
            eligible.add_metric([role], 1.0 if fig["eligible"] else 0.0)
            stake.add_metric([role], fig["available_wei"] / TOKEN)
    return families
