"""<node_dir>/node.json: the record of a running node that `decentrl node status` reads (its pid,
roles, Redis, rate limit, fee cap, metrics port and children, with their restarts). Written by
whoever runs the node's Supervisor — `decentrl node start`, or a local network (the demo) — and
removed when it stops. <node_dir>/node.lock: held by `node start` while it runs, so that a folder
runs one node (two would share its account's nonces and its Redis files)."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

NODE_STATE = "node.json"
NODE_LOCK = "node.lock"


class NodeRunning(RuntimeError):
    """The folder's node is running already (or its processes are still stopping)."""


def node_state_path(node_dir: Path | str) -> Path:
    return Path(node_dir) / NODE_STATE


def write_json_atomically(path: Path, doc: dict) -> Path:
    """`doc` as JSON at `path`, replaced in one step: a reader (`node status`, a health scrape)
    never sees half a file."""
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    # the node's user alone: node.json names the node's Redis, whose URL may carry a password
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
        out.write(json.dumps(doc, indent=2, default=str))
    os.replace(tmp, path)
    return path


def write_node_state(node_dir: Path | str, supervisor, roles, metrics_port: int | None = None) -> None:
    """Records the running `supervisor` (this process is the node's pid)."""
    config = supervisor.config
    state = {"pid": os.getpid(), "roles": list(roles), "redis": config.redis_url, "node_name": config.node_name,
             "rate": {"per_s": config.rate_per_s, "burst": config.burst}, "metrics_port": metrics_port or None,
             "max_fee_per_gas": None if config.settings is None else config.settings.max_fee_per_gas,
             "children": {n: {"pid": h["pid"], "log": h["log"], "restarts": h["restarts"]}
                          for n, h in supervisor.health().items()}}
    write_json_atomically(node_state_path(node_dir), state)


def read_node_state(node_dir: Path | str) -> dict | None:
    path = node_state_path(node_dir)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def clear_node_state(node_dir: Path | str) -> None:
    node_state_path(node_dir).unlink(missing_ok=True)


def pid_alive(pid: int | None) -> bool:
    """Whether process `pid` runs (a zombie does not: it answers kill(0) but /proc says it is gone)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def claim_node_dir(node_dir: Path | str) -> int:
    """Locks the folder for this process's node (the lock's fd: keep it open while the node runs;
    the kernel releases it when the process ends, however it ends). NodeRunning when another
    process holds it, or when processes of an earlier run are alive still (its supervisor was
    killed: they end within moments, workers.node.processes.lifetime)."""
    node_dir = Path(node_dir)
    node_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(node_dir / NODE_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        pid = (read_node_state(node_dir) or {}).get("pid", "?")
        raise NodeRunning(f"a node is already running in {node_dir} (pid {pid}): stop it first (Ctrl-C, or "
                          "SIGTERM to that pid), or give this one a folder of its own") from None
    left = leftover_children(node_dir)
    if left:
        os.close(fd)
        shown = ", ".join(f"{name} {pid}" for name, pid in left)
        raise NodeRunning(f"processes of this node's last run are still running ({shown}) although the node "
                          "that started them is gone: they stop by themselves within moments; if they do "
                          "not, stop them (kill PID)")
    return fd


def leftover_children(node_dir: Path | str) -> list[tuple[str, int]]:
    """(name, pid) of the children node.json records that still run while the node's own process
    does not (a supervisor killed outright)."""
    state = read_node_state(node_dir)
    if not state or pid_alive(state.get("pid")):
        return []
    return [(name, child["pid"]) for name, child in sorted(state.get("children", {}).items())
            if _is_node_process(child.get("pid"))]


def _is_node_process(pid: int | None) -> bool:
    """A live process titled as one of a node's children, not a reused pid: workers.node.processes.spawn
    titles each "decentrl ...", and a Celery worker retitles itself "[celeryd: ...]"."""
    if not pid_alive(pid):
        return False
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().startswith((b"decentrl ", b"[celeryd: "))
    except OSError:
        return True
