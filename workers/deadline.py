"""A cooperative stop for long work: a job sets the time its result stops being of use (its
phase's deadline, on this machine's clock) with `work_until`, and the loops that can run for
minutes (a rollout's steps, a PPO update's gradient steps, a validator's replays) call `check()`,
which raises DeadlinePassed once that time has passed. Nothing is set outside a job: `check()`
then costs one context-variable read and never raises. Lowest layer: imports nothing of the node."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_until: ContextVar[tuple[float, str] | None] = ContextVar("decentrl_work_until", default=None)


class DeadlinePassed(Exception):
    """The work's deadline passed: its result could no longer be sent in time, so it stops."""


@contextmanager
def work_until(until: float | None, what: str = "the work") -> Iterator[None]:
    """Inside, `check()` raises DeadlinePassed after `until` (time.time() scale; None: no bound).
    Nested bounds keep the earlier one."""
    outer = _until.get()
    if until is None or (outer is not None and outer[0] <= until):
        yield
        return
    token = _until.set((float(until), what))
    try:
        yield
    finally:
        _until.reset(token)


def check() -> None:
    """Raise DeadlinePassed if the current work's deadline has passed."""
    bound = _until.get()
    if bound is not None and time.time() >= bound[0]:
        raise DeadlinePassed(f"{bound[1]}: its deadline passed {time.time() - bound[0]:.1f} s ago; stopped")


def seconds_left() -> float | None:
    """Seconds to the current work's deadline (negative once past), or None outside a bound."""
    bound = _until.get()
    return None if bound is None else bound[0] - time.time()
