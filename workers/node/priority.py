"""CPU priority of a node's processes: compute yields to the chain-facing work, and work done ahead
of its phase yields to everything.

Linux's autogroup scheduler first shares the CPU between sessions and applies nice values only
within one. The supervisor starts each worker in a session of its own, so lowering a process's
priority means raising its session's nice value too (/proc/self/autogroup; a process may always
lower its own priority); os.nice alone would not make a compute worker yield to a watcher."""

from __future__ import annotations

import os
import select
import signal
import time
import traceback
from typing import Callable

LOWEST = 19
"""nice(2) value of work done ahead."""


class BackgroundFailed(RuntimeError):
    """A computation in a background process failed or ran out of time."""


def lower_priority_to(niceness: int) -> None:
    """Set this process's nice value, and its session's where sessions are scheduled apart."""
    os.setpriority(os.PRIO_PROCESS, 0, max(niceness, os.getpriority(os.PRIO_PROCESS, 0)))
    try:
        with open("/proc/self/autogroup", "w") as autogroup:
            autogroup.write(str(os.getpriority(os.PRIO_PROCESS, 0)))
    except OSError:  # no autogroup here (not Linux, or a kernel without it): the nice value counts
        pass


def yield_cpu(niceness: int) -> None:
    """Lower this process's priority by `niceness` (its pool processes inherit it)."""
    lower_priority_to(os.getpriority(os.PRIO_PROCESS, 0) + niceness)


def _die_with(parent: int) -> None:
    """Linux: this process gets SIGKILL when its parent dies, so a worker that is stopped or killed
    leaves no computation behind (in its own session, it is out of the worker's process group)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux
        return
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)


def in_background(compute: Callable[..., bytes], *args, timeout: float = 300.0) -> bytes:
    """compute(*args) run in a forked child process in a session of its own at the LOWEST
    priority, so that it takes only CPU nothing else on the host wants; its bytes come back
    through a pipe. `compute` must use nothing but its arguments (no connection or file the
    parent holds). BackgroundFailed if it raises (its traceback goes to stderr) or runs longer
    than `timeout` seconds (it is killed); it dies with this process. Where there is no fork, it
    runs in this process."""
    if not hasattr(os, "fork"):
        return compute(*args)
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        status = 1
        try:
            os.close(read_fd)
            os.setsid()
            _die_with(parent)
            lower_priority_to(LOWEST)
            data = compute(*args)
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
            status = 0
        except BaseException:  # noqa: BLE001 - reported through the exit status
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(write_fd)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise BackgroundFailed(f"{compute.__name__} ran over {timeout:g} s in the background; killed")
            chunk = pipe.read(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise BackgroundFailed(f"{compute.__name__} failed in the background (wait status {status}; "
                               "traceback on the worker's stderr)")
    return b"".join(chunks)
