"""Processes that end with the process that started them.

A node's processes each lead a session of their own (so that a signal to one reaches its pool,
and nothing else), which also means nothing stops them when `decentrl node start` is killed
outright (SIGKILL, the OOM killer): the fork server, the watcher, the workers and the embedded
Redis would run on unsupervised, and the next start would run a second node beside them. Linux
sends a process its parent-death signal (prctl PR_SET_PDEATHSIG) when the thread that forked it
ends, so each of them asks for SIGTERM then: the fork server when `node start` ends, the children
when the fork server ends, an embedded Redis or anvil when the process that started it ends.
Elsewhere (no prctl) nothing changes."""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1

try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _prctl = None


def end_with_parent(parent: int | None = None, sig: int = signal.SIGTERM) -> bool:
    """This process gets `sig` when its parent (the thread that forked it) ends. With the parent's
    pid, also at once if it has ended already (a child that cannot know it, as the fork server's,
    runs a moment unguarded). Safe in a Popen preexec_fn (the libc function is bound beforehand).
    False where the kernel offers no parent-death signal."""
    if _prctl is None or _prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:  # it ended before the request was in place
        os.kill(os.getpid(), sig)
    return True


def ending_with_starter(sig: int = signal.SIGTERM):
    """A Popen preexec_fn by which the child ends (`sig`) when this process ends, when called from
    the main thread; else None: the signal follows the forking thread, and a server started from
    another thread is not tied to that thread's life."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()
    return lambda: end_with_parent(parent, sig)
