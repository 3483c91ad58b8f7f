"""A cooperative stop for long work: a job sets the time its result stops being of use (its
phase's deadline, on this machine's clock) with `work_until`, and the loops that can run for
minutes (a rollout's steps, a PPO update's gradient steps, a validator's replays) call `check()`,
which raises DeadlinePassed once that time has passed. A bound may carry a `recheck`, asked once
the time has passed for the deadline as it stands now (a protocol pause moves on-chain deadlines
later): a later one extends the bound. Nothing is set outside a job: `check()` then costs one
context-variable read and never raises. Lowest layer: imports nothing of the node."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

Recheck = Callable[[], float | None]
"""The deadline as it stands now (time.time() scale), or None when the work is of no use any more."""


@dataclass
class _Bound:
    until: float
    what: str
    recheck: Recheck | None


_bound: ContextVar[_Bound | None] = ContextVar("decentrl_work_until", default=None)


class DeadlinePassed(Exception):
    """The work's deadline passed: its result could no longer be sent in time, so it stops."""


@contextmanager
def work_until(until: float | None, what: str = "the work", recheck: Recheck | None = None) -> Iterator[None]:
    """Inside, `check()` raises DeadlinePassed after `until` (time.time() scale; None: no bound)
    unless `recheck` then gives a later deadline. Nested bounds keep the earlier one."""
    outer = _bound.get()
    if until is None or (outer is not None and outer.until <= until):
        yield
        return
    token = _bound.set(_Bound(float(until), what, recheck))
    try:
        yield
    finally:
        _bound.reset(token)


def check() -> None:
    """Raise DeadlinePassed if the current work's deadline has passed (and a recheck did not move
    it later)."""
    bound = _bound.get()
    if bound is None or time.time() < bound.until:
        return
    later = bound.recheck() if bound.recheck is not None else None
    if later is not None and later > time.time():
        bound.until = later  # the on-chain deadline moved (a pause): work on
        return
    raise DeadlinePassed(f"{bound.what}: its deadline passed {time.time() - bound.until:.1f} s ago; stopped")


def seconds_left() -> float | None:
    """Seconds to the current work's deadline (negative once past), or None outside a bound."""
    bound = _bound.get()
    return None if bound is None else bound.until - time.time()
