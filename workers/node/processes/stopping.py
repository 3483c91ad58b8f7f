"""Stopping a node that `decentrl node start` runs in the background, from another shell
(`decentrl node stop`): SIGTERM to the node's process (its Supervisor stops its children, Celery
workers with a warm shutdown), then SIGKILL to it and to any child still alive after a timeout.

The node is found by its folder: `node start` holds <node_dir>/node.lock while it runs and records
its pid in node.json (workers.node.processes.state). A folder whose lock nobody holds runs no
`node start` (a demo's nodes live in the demo's own process and are not stopped this way)."""

from __future__ import annotations

import fcntl
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from workers.node.processes.state import NODE_LOCK, leftover_children, pid_alive, read_node_state


class NotRunning(RuntimeError):
    """No node started by `node start` runs in the folder."""


@dataclass(frozen=True)
class Stopped:
    pid: int
    forced: bool
    """SIGKILL was needed: the node (or a child) had not ended within the timeout."""
    killed_children: tuple[tuple[str, int], ...]


def lock_held(node_dir: Path) -> bool:
    """Whether a process holds the folder's node.lock (a running `node start`)."""
    path = Path(node_dir) / NODE_LOCK
    if not path.exists():
        return False
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases a lock this call took
    return False


def stop_node(node_dir: Path, timeout: float = 30.0, poll: float = 0.2) -> Stopped:
    """SIGTERM to the folder's node, then SIGKILL after `timeout` s; then SIGKILL to any child of
    it still alive (a supervisor killed outright cannot stop them)."""
    state = read_node_state(node_dir)
    pid = (state or {}).get("pid")
    if not lock_held(node_dir) or not pid_alive(pid):
        left = leftover_children(node_dir)
        if not left:
            raise NotRunning(f"no node started by `decentrl node start` is running in {node_dir}")
        _kill_children(left)
        return Stopped(pid or 0, True, tuple(left))
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(poll)
    forced = pid_alive(pid)
    if forced:
        os.kill(pid, signal.SIGKILL)
        while pid_alive(pid):
            time.sleep(poll)
    left = leftover_children(node_dir)
    _kill_children(left)
    return Stopped(pid, forced or bool(left), tuple(left))


def _kill_children(children) -> None:
    for _, child in children:
        try:
            os.killpg(child, signal.SIGKILL)  # each child leads its own session (its pool with it)
        except ProcessLookupError:
            pass
