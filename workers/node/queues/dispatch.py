"""Which handler runs for which chain event, and the plain (Celery-free) logic of running one.

Role modules register handlers per (event name, role):

    from workers.node.queues.dispatch import DISPATCH, declare_retryable

    @DISPATCH.on("RoundStarted", "sampler")
    def sample_round(event: HandledEvent) -> None: ...

    @DISPATCH.on("TaskCreated", "sampler", new_task=True)   # takes on new work: rate limited
    def claim(event: HandledEvent) -> None: ...

    declare_retryable(ipfshttpclient.exceptions.TimeoutError)

and are listed in NodeConfig.handler_modules, which every worker imports at start. The protocol's
handlers register through workers.node.handlers.common.on, which gives each its NodeContext.

HANDLER CONTRACT. A handler may run more than once for one event and role: a worker can die after
the handler's side effects and before the task is acknowledged (acks_late), and a retryable error
reruns it. So a handler must be idempotent: derive everything from the event and the chain/store
state, check before it acts (e.g. "already committed for this round?"), write content-addressed
artifacts, and let a transaction that the chain refuses as a duplicate count as done. A handler
that returns normally marks the job done; a retryable error (declare_retryable, RetryableError)
reruns it with backoff; any other exception marks the job failed and propagates.

DEADLINES. A handler registered with `bounded` (a predicate on the event's args) does work whose
result is of no use after the event's on-chain deadline (a role's own phase work): the watcher gives
its job that deadline on this machine's clock (`until`), the job gets Celery time limits from it,
is dropped when it starts after it, and runs inside workers.deadline.work_until, so that a long
rollout or update stops at its next check. Before it drops or stops a job, its handler's `recheck`
(if registered) is asked for the deadline as it stands now: a protocol pause moves on-chain
deadlines later, and nobody misses one because of a pause. A job stopped for its deadline is done
("deadline passed"), not failed: the protocol already vacates a node that misses a phase; the
point is to free the worker for the node's other tasks.

RATE LIMIT. Handlers registered with new_task=True take on new training tasks (claims); each run
reserves a start from the node's token bucket (ratelimit.py) and, when that start is in the
future, is deferred to it (RateLimited) rather than holding its worker: work on tasks the node
already holds is never throttled (a delayed commit would miss its deadline and be penalised).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from workers.deadline import DeadlinePassed, work_until
from workers.node.config import ROLE_QUEUES
from workers.node.queues import jobs
from workers.node.queues.transient import TRANSIENT

log = logging.getLogger(__name__)


class RetryableError(Exception):
    """A transient failure (chain or IPFS timeout): the task is retried with backoff. So are the
    infrastructure errors of transient.TRANSIENT (Redis's own ConnectionError included) and the
    types handler modules declare (declare_retryable)."""


class JobInProgress(RetryableError):
    """Another delivery of the same job holds its lease; retry until it is done or lapses."""


class UnknownHandler(LookupError):
    pass


class Deferred(Exception):
    """Run this job again `wait` seconds from now (a keeper waiting for its turn,
    workers.node.handlers.keeper_turns): its worker is free meanwhile, and the job stays queued. Not a
    retry: no backoff, no retry counted (the run itself counts as an attempt)."""

    def __init__(self, wait: float, why: str = "deferred"):
        super().__init__(f"{why}: run again in {wait:.3f} s")
        self.wait = wait


class Extended(Deferred):
    """A job Celery's time limit stopped while its deadline moved later (a protocol pause): run it
    again at once with the new deadline `until` (and time limits from it)."""

    def __init__(self, until: float):
        super().__init__(0.0, "its deadline moved later (a pause)")
        self.until = until


class RateLimited(Deferred):
    """A new-task handler's reserved start is `wait` seconds away (at `start`, time.time()
    scale): run it again then, without reserving again."""

    def __init__(self, wait: float, start: float):
        super().__init__(wait, "rate limited: reserved start")
        self.start = start


_RETRYABLE: list[type[BaseException]] = [RetryableError, *TRANSIENT]


def declare_retryable(*types: type[BaseException]) -> None:
    """Declare exception types (e.g. a client's timeout) that make a handler's task retry."""
    for t in types:
        if not (isinstance(t, type) and issubclass(t, BaseException)):
            raise TypeError(f"{t!r} is not an exception type")
        if t not in _RETRYABLE:
            _RETRYABLE.append(t)


def retryable_errors() -> tuple[type[BaseException], ...]:
    return tuple(_RETRYABLE)


_DEADLINE_STOPS: list[type[BaseException]] = [DeadlinePassed]


def declare_deadline_stop(*types: type[BaseException]) -> None:
    """Exception types that mean "stopped at the job's deadline" when a job with a deadline raises
    them (Celery's SoftTimeLimitExceeded: workers.node.queues.tasks declares it)."""
    for t in types:
        if t not in _DEADLINE_STOPS:
            _DEADLINE_STOPS.append(t)


DEADLINE_PASSED = "deadline-passed"
"""run_event's outcome for a job dropped or stopped at its deadline (its record: done)."""


def _moved(recheck: Callable[[], float | None] | None) -> float | None:
    """The rechecked deadline of a job Celery's limit stopped, or None (none, or it cannot be read
    now: the job is past the deadline it was given, and stops as it would have)."""
    if recheck is None:
        return None
    try:
        return recheck()
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log.warning("could not recheck a stopped job's deadline: %s: %s", type(exc).__name__, exc)
        return None


@dataclass(frozen=True)
class HandledEvent:
    """What a handler gets: the event and where it runs."""

    key: str
    """txHash:logIndex of the log."""
    name: str
    args: dict
    block: int
    role: str
    attempt: int
    """1 on the first run; higher after retries or a redelivery."""
    worker: str = ""
    """Celery host name of the worker running it (e.g. sampler@node1)."""
    reserved_start: float | None = None
    """A new-task handler's start as the node's token bucket reserved it (time.time() scale):
    the run starts then, or later when its worker is busy; None for other handlers."""


Handler = Callable[[HandledEvent], Any]


class ChainEventLike(Protocol):
    """What the watcher delivers (workers.chain's ChainEvent has these fields)."""

    name: str
    args: dict
    block: int
    key: str


URGENT, LATER = 0, 3
"""Job priorities on the node's Redis (kombu's Redis transport keeps a list per priority and takes
the lower number first): what a task's round waits on goes ahead of the node's other jobs."""


class DispatchTable:
    def __init__(self):
        self._handlers: dict[tuple[str, str], Handler] = {}
        self._new_task: set[tuple[str, str]] = set()
        self._when: dict[tuple[str, str], Callable[[dict], bool]] = {}
        self._urgent: dict[tuple[str, str], Callable[[dict], bool]] = {}
        self._bounded: dict[tuple[str, str], Callable[[dict], bool]] = {}
        self._recheck: dict[tuple[str, str], Callable[[dict], float | None]] = {}

    def register(self, event_name: str, role: str, handler: Handler, new_task: bool = False,
                 when: Callable[[dict], bool] | None = None,
                 urgent: Callable[[dict], bool] | None = None,
                 bounded: Callable[[dict], bool] | None = None,
                 recheck: Callable[[dict], float | None] | None = None) -> None:
        """new_task: the handler takes on new work (a claim), so it is rate limited. when: a
        predicate on the event's args; an event it refuses is not queued for this role at all
        (the handler would have nothing to do: e.g. a sampler and another role's phase).
        urgent: a predicate on the args for the jobs a task's round waits on (a role's own phase
        work), which a worker takes before its other queued jobs (`priority`). bounded: a predicate
        on the args for the jobs whose work ends at the event's `deadline` arg (module doc, DEADLINES);
        recheck(args): that deadline as it stands now on this machine's clock, None when the work is
        of no use any more."""
        if role not in ROLE_QUEUES:
            raise ValueError(f"unknown role {role!r}; roles: {sorted(ROLE_QUEUES)}")
        old = self._handlers.get((event_name, role))
        if old is not None and old is not handler:
            raise ValueError(f"a handler for ({event_name!r}, {role!r}) is already registered: "
                             f"{old.__module__}.{old.__qualname__}")
        self._handlers[(event_name, role)] = handler
        if new_task:
            self._new_task.add((event_name, role))
        if when is not None:
            self._when[(event_name, role)] = when
        if urgent is not None:
            self._urgent[(event_name, role)] = urgent
        if bounded is not None:
            self._bounded[(event_name, role)] = bounded
        if recheck is not None:
            self._recheck[(event_name, role)] = recheck

    def on(self, event_name: str, role: str, new_task: bool = False,
           when: Callable[[dict], bool] | None = None,
           urgent: Callable[[dict], bool] | None = None,
           bounded: Callable[[dict], bool] | None = None,
           recheck: Callable[[dict], float | None] | None = None) -> Callable[[Handler], Handler]:
        def decorate(fn: Handler) -> Handler:
            self.register(event_name, role, fn, new_task, when, urgent, bounded, recheck)
            return fn
        return decorate

    def recheck(self, event_name: str, role: str, args: dict) -> Callable[[], float | None] | None:
        """The job's deadline recheck (register's), bound to its args, or None."""
        fn = self._recheck.get((event_name, role))
        return None if fn is None else lambda: fn(args)

    def bounded(self, event_name: str, role: str, args: dict) -> bool:
        """Whether the job's work ends at the event's deadline (module doc, DEADLINES)."""
        return self._bounded.get((event_name, role), _never)(args)

    def priority(self, event_name: str, role: str, args: dict) -> int:
        """URGENT for a claim (alone on its claim queue) and for a job its handler's `urgent`
        takes; LATER for the rest: under a burst of tasks a validator's queue holds every task's
        records, and its early checks and votes, which quorums and next rounds wait on, go first."""
        key = (event_name, role)
        return URGENT if key in self._new_task or self._urgent.get(key, _never)(args) else LATER

    def takes_new_task(self, event_name: str, role: str) -> bool:
        return (event_name, role) in self._new_task

    def claims_for(self, role: str, modules: Iterable[str] | None = None) -> bool:
        """Whether `role` has a handler that takes on new work (so its node runs a claim lane),
        counting only handlers defined in `modules` when given (a node's handler modules: the
        table is per process, and a process may hold other nodes' handlers too)."""
        wanted = None if modules is None else set(modules)
        return any(r == role and (wanted is None or self._handlers[(e, r)].__module__ in wanted)
                   for e, r in self._new_task)

    def handler(self, event_name: str, role: str) -> Handler:
        try:
            return self._handlers[(event_name, role)]
        except KeyError:
            raise UnknownHandler(f"no handler for event {event_name!r} and role {role!r}: is its "
                                 "module in NodeConfig.handler_modules?") from None

    def events_for(self, roles: Iterable[str] | None = None) -> frozenset[str]:
        """The events some handler of `roles` (every role when None) takes."""
        wanted = None if roles is None else set(roles)
        return frozenset(e for (e, r) in self._handlers if wanted is None or r in wanted)

    def roles_for(self, event_name: str, args: dict | None = None) -> list[str]:
        """The roles with a handler for the event; given its args, only those whose `when`
        (if any) takes them."""
        return sorted(r for (e, r) in self._handlers if e == event_name
                      and (args is None or self._when.get((e, r), _always)(args)))


def _always(args: dict) -> bool:
    return True


def _never(args: dict) -> bool:
    return False


DISPATCH = DispatchTable()


def jsonable(value: Any) -> Any:
    """Event args as JSON (the only serializer the node accepts): bytes become 0x-hex."""
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"event arg {value!r} ({type(value).__name__}) is not JSON-serializable")


def enqueue(event: ChainEventLike, send: Callable[[str, dict], None], store: jobs.JobStore,
            table: DispatchTable = DISPATCH, roles: Iterable[str] | None = None,
            until: float | None = None) -> list[str]:
    """Send one handle_event task per role that handles this event (restricted to `roles`, the
    node's roles) and return their queues. A job already done for this key is not sent again;
    any other state is sent (a lost message must not strand an event; tasks are idempotent).
    `until`: the event's deadline on this machine's clock, given to the jobs whose handler is
    `bounded` (module doc, DEADLINES)."""
    wanted = set(roles) if roles is not None else None
    queues = []
    args = jsonable(dict(event.args))
    for role in table.roles_for(event.name, event.args):
        if wanted is not None and role not in wanted:
            continue
        bound = float(until) if until is not None and table.bounded(event.name, role, event.args) else None
        store.mark_queued(role, event.key, event.name, args, int(event.block), bound)
        if store.get(role, event.key).status == jobs.DONE:
            continue
        kwargs = {"event_key": event.key, "event_name": event.name, "args": args, "block": int(event.block),
                  "role": role}
        if bound is not None:
            kwargs["until"] = bound
        send(role, kwargs)
        queues.append(ROLE_QUEUES[role])
    return queues


def run_event(store: jobs.JobStore, reserve_token: Callable[[], float], role: str, event_key: str,
              event_name: str, args: dict, block: int, *, final_attempt: bool, lease_s: float,
              max_attempts: int, worker: str = "", reserved: float | None = None,
              until: float | None = None, table: DispatchTable = DISPATCH) -> str:
    """Run the handler for (event, role) at most once to completion; returns what happened:
    "done", "already-done", "gave-up" (too many deliveries, e.g. a handler that kills its
    process) or DEADLINE_PASSED (`until`, the job's deadline, passed before or while it ran).
    Raises RetryableError for a transient failure, RateLimited when a new-task
    handler's start is reserved for later (`reserved`: this run is that start, reserved for that
    time), Deferred when the handler asks to run later, the handler's error otherwise."""
    handler = table.handler(event_name, role)
    try:
        record, lease = store.acquire(role, event_key, lease_s)  # one round trip
    except jobs.LeaseHeld as exc:
        raise JobInProgress(str(exc)) from exc
    if lease is None:
        return "already-done"
    outcome: tuple[str | None, str | None] = (None, None)  # (status, error) recorded as the lease goes
    try:
        if record.attempts >= max_attempts:
            outcome = (jobs.FAILED, f"gave up after {record.attempts} attempts ({record.last_error})")
            return "gave-up"
        recheck = table.recheck(event_name, role, args) if until is not None else None
        if reserved is None and table.takes_new_task(event_name, role):
            asked = time.time()
            wait = reserve_token()
            if wait > 0:
                raise RateLimited(wait, asked + wait)
            reserved = asked
        attempt = store.start_attempt(role, event_key, event_name, args, block, until)
        event = HandledEvent(event_key, event_name, args, block, role, attempt, worker, reserved)
        dropped = False
        try:
            if until is not None and time.time() >= until:  # queued past its deadline: drop it, unless it moved
                later = recheck() if recheck is not None else None
                if later is None or later <= time.time():
                    dropped = True
                    raise DeadlinePassed(f"dropped: its deadline passed {time.time() - until:.1f} s before it started")
                until = later
            with work_until(until, f"{event_name} ({role})", recheck):
                handler(event)
        except tuple(_DEADLINE_STOPS) as exc:
            if until is None and not isinstance(exc, DeadlinePassed):
                outcome = (jobs.FAILED, f"{type(exc).__name__}: {exc}")
                raise
            later = None if isinstance(exc, DeadlinePassed) else _moved(recheck)
            if later is not None and later > time.time():  # Celery's limit, set from the old deadline
                outcome = (jobs.QUEUED, None)
                raise Extended(later) from exc
            outcome = (jobs.DONE, str(exc) if dropped else f"stopped at its deadline: {type(exc).__name__}: {exc}")
            return DEADLINE_PASSED
        except Deferred:
            outcome = (jobs.QUEUED, None)
            raise
        except retryable_errors() as exc:
            error = f"{type(exc).__name__}: {exc}"
            outcome = (jobs.FAILED if final_attempt else jobs.QUEUED, error)
            if isinstance(exc, RetryableError):
                raise
            raise RetryableError(error) from exc
        except Exception as exc:
            outcome = (jobs.FAILED, f"{type(exc).__name__}: {exc}")
            raise
        outcome = (jobs.DONE, None)
        return "done"
    finally:
        lease.release(store.job_key(role, event_key), *outcome)
