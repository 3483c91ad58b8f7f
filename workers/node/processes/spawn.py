"""Start a node's child processes from one preloaded fork server.

A child used to be a fresh interpreter (`python -m celery ...`), and each paid the same imports
and first-use costs again: torch, gymnasium, web3, Celery, and the optimizer's first step (~1.5 s
alone: workers.roles.warmup): the demo's 15 node processes spent ~50 s of CPU starting. Here a
child is forked from multiprocessing's fork server, which pays them once (workers.node.processes.preload),
per supervising process; the child then runs the same argv (`python -m <module> ...`) in that
interpreter, with its own session, environment, working directory and log file.

What stays per child: everything that reads the environment or per-node settings when it is
imported (the node's config, its metrics directory, its log format) is imported after the fork,
so the preload holds only third-party libraries and the compute stack (workers.node.processes.preload)."""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import runpy
import sys
import threading
import time
import types
from pathlib import Path

PRELOAD = "workers.node.processes.preload"
ENDS_WITH_PARENT_ENV = "DECENTRL_FORKSERVER_ENDS_WITH_PARENT"
"""Set for the fork server when it is started from its parent's main thread: it then ends with
that process (workers.node.processes.lifetime: the parent-death signal follows the thread that forked)."""

_context = None
_main_lock = threading.Lock()


def context():
    """The fork-server context (one server per process, started on the first child)."""
    global _context
    if _context is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([PRELOAD])
        _context = ctx
    return _context


def start(name: str, argv: list[str], env: dict, log_path: Path, cwd: Path):
    """Runs `argv` (`<python> -m <module> [args]`) as a child forked from the fork server; returns
    its multiprocessing.Process (pid, is_alive(), join(), exitcode) once the child leads its own
    session (or has ended), so that killpg(pid) reaches it from the first moment, as with
    subprocess's start_new_session."""
    if len(argv) < 3 or argv[1] != "-m":
        raise ValueError(f"expected [python, '-m', module, ...], got {argv!r}")
    # the first start starts the fork server, which inherits this process's environment
    os.environ.setdefault(ENDS_WITH_PARENT_ENV, "1" if threading.current_thread() is threading.main_thread() else "0")
    process = context().Process(target=_child, args=(name, argv[2], argv[3:], env, str(log_path), str(cwd)),
                                name=name)
    with _without_main():
        process.start()
    while process.is_alive() and _pgid(process.pid) != process.pid:
        time.sleep(0.001)  # its first step (_child): milliseconds after the fork
    return process


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


@contextlib.contextmanager
def _without_main():
    """multiprocessing re-imports the parent's __main__ script in each child it starts (for
    targets defined there). Ours is in this module, and the script's imports would run before the
    child's environment is set (prometheus_client would miss its multiprocess directory), so the
    child is started while __main__ is a module with no file (multiprocessing.spawn then records
    none)."""
    with _main_lock:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = main


def _child(name: str, module: str, args: list[str], env: dict, log_path: str, cwd: str) -> None:
    """In the forked child: a session of its own (its pool stops with it, and the scheduler's
    autogroup sees it apart: workers.node.processes.priority), stdin from /dev/null, stdout and stderr to
    `log_path`, then `python -m module args` as the supervisor asked. Its title in ps names it
    (the command line would be the fork server's). It ends with the fork server (SIGTERM), which
    ends with the supervising process."""
    from setproctitle import setproctitle

    from workers.node.processes.lifetime import end_with_parent

    end_with_parent()
    os.setsid()
    setproctitle(f"decentrl {name}: python -m {' '.join([module, *args])}")
    null = os.open(os.devnull, os.O_RDONLY)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    # PYTHONPATH is read when an interpreter starts; this one started long ago
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:0] = [p for p in paths if p not in sys.path]
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
