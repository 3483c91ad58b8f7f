"""<node_dir>/node.json: the record of a running node that `decentrl node status` reads (its pid,
roles, Redis, rate limit, fee cap, metrics port and children). Written by whoever runs the node's
Supervisor — `decentrl node start`, or a local network (the demo) — and removed when it stops."""

from __future__ import annotations

import json
import os
from pathlib import Path

NODE_STATE = "node.json"


def node_state_path(node_dir: Path | str) -> Path:
    return Path(node_dir) / NODE_STATE


def write_json_atomically(path: Path, doc: dict) -> Path:
    """`doc` as JSON at `path`, replaced in one step: a reader (`node status`, a health scrape)
    never sees half a file."""
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(doc, indent=2, default=str))
    os.replace(tmp, path)
    return path


def write_node_state(node_dir: Path | str, supervisor, roles, metrics_port: int | None = None) -> None:
    """Records the running `supervisor` (this process is the node's pid)."""
    config = supervisor.config
    state = {"pid": os.getpid(), "roles": list(roles), "redis": config.redis_url, "node_name": config.node_name,
             "rate": {"per_s": config.rate_per_s, "burst": config.burst}, "metrics_port": metrics_port or None,
             "max_fee_per_gas": (config.extra or {}).get("max_fee_per_gas"),
             "children": {n: {"pid": h["pid"], "log": h["log"]} for n, h in supervisor.health().items()}}
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
