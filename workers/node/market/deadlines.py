"""A phase's work stops at the phase's on-chain deadline (workers.deadline): `within_phase` turns
the task's `phase_deadline` (protocol time) into this machine's clock and bounds the work inside it,
and refuses to start work whose deadline has passed. A job stopped so is done, not failed
(workers.node.queues.dispatch, DEADLINES)."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from workers.deadline import DeadlinePassed, work_until


def local_time(ctx, protocol_deadline: int) -> float:
    """`protocol_deadline` (the registry's protocol time) on this machine's clock (time.time())."""
    return time.time() + int(protocol_deadline) - int(ctx.view.protocol_time())


@contextmanager
def within_phase(ctx, task, what: str, extra_s: float = 0.0) -> Iterator[float]:
    """Work on `task`'s current phase, stopped at its deadline (+ `extra_s`: work that may run
    into the next phases, such as a rollout ahead), re-read from the chain once it passes (a pause
    moves it later). Yields the local deadline; raises DeadlinePassed at once when it has passed."""
    def recheck() -> float | None:
        now = ctx.view.task(task.task_id)
        if (now.status, now.round, now.phase) != (task.status, task.round, task.phase):
            return None  # the phase is over
        return local_time(ctx, now.phase_deadline) + extra_s

    until = local_time(ctx, task.phase_deadline) + extra_s
    if time.time() >= until and ((later := recheck()) is None or later <= time.time()):
        raise DeadlinePassed(f"task {task.task_id} {what}: its deadline passed {time.time() - until:.1f} s ago; "
                             "not started")
    with work_until(until, f"task {task.task_id} {what}", recheck):
        yield until
