"""CPU priority of a node's processes: its compute workers yield to its chain-facing work.

Linux's autogroup scheduler first shares the CPU between sessions and applies nice values only
within one. The supervisor starts each worker in a session of its own, so lowering a process's
priority means raising its session's nice value too (/proc/self/autogroup; a process may always
lower its own priority): os.nice alone does not make a compute worker yield to a watcher."""

from __future__ import annotations

import os


def yield_cpu(niceness: int) -> None:
    """Lower this process's priority by `niceness` and give its session the same nice value (its
    pool processes inherit both)."""
    lowered = os.nice(niceness)
    try:
        with open("/proc/self/autogroup", "w") as autogroup:
            autogroup.write(str(lowered))
    except OSError:  # no autogroup here (not Linux, or a kernel without it): the nice value counts
        pass
