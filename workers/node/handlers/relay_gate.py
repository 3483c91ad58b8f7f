"""Which signed relay entries received from the pubsub topic a node writes into its own relay
(SPECIFICATION.md 5.5.2): only the entry of a slot's holder on chain, for the task's current
round. Any peer can publish on the topic under as many accounts as it likes; without this gate
it could fill a round's slots first with entries of its own accounts (a validator's entry is keyed
by its slot, so the holder's would be refused or overwritten) or fill the node's Redis with rounds
that never happen.

The chain is read through small caches, and at most `reads_per_s` reads a second (a token
bucket): a flood of entries for real tasks costs the node a bounded number of eth_calls, and
when the budget is spent entries are dropped (their poster publishes again: relay_gossip)."""
from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


class Refusal(str):
    """Why an entry is dropped: the text (for the log, and equal to it) with its `kind`, the label
    the node's metric counts it under (workers.node.observe.metrics.relay_entry)."""

    kind: str

    def __new__(cls, kind: str, text: str):
        refusal = super().__new__(cls, text)
        refusal.kind = kind
        return refusal


BUDGET, NOT_CURRENT, NOT_HOLDER = "read-budget", "not-current", "not-holder"
"""The kinds of the gate's refusals."""

REFRESH_S = 1.0
"""The soonest a cached read is read again because an entry disagreed with it."""
TTL_S = 30.0
"""A cached read is read again after this long even when entries agree with it."""
READS_PER_S, BURST = 20.0, 40
MAX_CACHED = 4096


@dataclass(frozen=True)
class TaskState:
    round: int
    num_validators: int
    active: bool


@dataclass(frozen=True)
class Holder:
    node: str  # the zero address when vacant
    since_round: int


class _Cache:
    """An LRU of (value, read at) with a size cap."""

    def __init__(self, cap: int = MAX_CACHED):
        self.cap, self.items = cap, OrderedDict()

    def get(self, key):
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        return None

    def put(self, key, value, at: float) -> None:
        self.items[key] = (value, at)
        self.items.move_to_end(key)
        while len(self.items) > self.cap:
            self.items.popitem(last=False)


class RelayGate:
    """`check(task, round, slot, node)`: None when the entry may be written, else why not.
    `task_count()`, `task(task_id) -> TaskState` and `holder(task_id, slot) -> Holder` read the chain."""

    def __init__(self, task_count: Callable[[], int], task: Callable[[int], TaskState],
                 holder: Callable[[int, int], Holder], *, reads_per_s: float = READS_PER_S, burst: int = BURST,
                 clock: Callable[[], float] = time.monotonic):
        self._read_count, self._read_task, self._read_holder = task_count, task, holder
        self.reads_per_s, self.burst, self.clock = reads_per_s, burst, clock
        self._tokens, self._filled_at = float(burst), clock()
        self._count: tuple[int, float] | None = None
        self._tasks, self._holders = _Cache(), _Cache()
        self.reads = 0

    def _take(self) -> bool:
        now = self.clock()
        self._tokens = min(self.burst, self._tokens + (now - self._filled_at) * self.reads_per_s)
        self._filled_at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        self.reads += 1
        return True

    def _cached(self, cached, read: Callable, disagrees: Callable):
        """The cached value, read again when missing, older than TTL_S, or disagreeing with the
        entry and older than REFRESH_S, as the read budget allows; None when it could not be read."""
        now = self.clock()
        if cached is not None:
            value, at = cached
            stale = now - at >= TTL_S or (disagrees(value) and now - at >= REFRESH_S)
            if not stale or not self._take():
                return value
        elif not self._take():
            return None
        return read(now)

    def check(self, task_id: int, round_: int, slot: int, node: str) -> Refusal | None:
        count = self._cached(self._count, self._fresh_count, lambda n: task_id > n)
        if count is None:
            return Refusal(BUDGET, "chain read budget spent")
        if not 0 < task_id <= count:
            return Refusal(NOT_CURRENT, "no such task")
        task = self._cached(self._tasks.get(task_id), lambda now: self._fresh_task(task_id, now),
                            lambda t: round_ > t.round)
        if task is None:
            return Refusal(BUDGET, "chain read budget spent")
        if not task.active:
            return Refusal(NOT_CURRENT, "task not active")
        if round_ != task.round:
            return Refusal(NOT_CURRENT, f"round {round_} is not the task's current round {task.round}")
        if slot >= task.num_validators:
            return Refusal(NOT_HOLDER, f"no validator slot {slot}")
        holder = self._cached(self._holders.get((task_id, slot)), lambda now: self._fresh_holder(task_id, slot, now),
                              lambda h: h.node.lower() != node.lower())
        if holder is None:
            return Refusal(BUDGET, "chain read budget spent")
        if holder.node.lower() != node.lower():
            return Refusal(NOT_HOLDER, "not the slot's holder")
        if holder.since_round > round_:
            return Refusal(NOT_CURRENT, "took the slot after that round")
        return None

    def _fresh_count(self, now: float) -> int:
        self._count = (int(self._read_count()), now)
        return self._count[0]

    def _fresh_task(self, task_id: int, now: float) -> TaskState:
        task = self._read_task(task_id)
        self._tasks.put(task_id, task, now)
        return task

    def _fresh_holder(self, task_id: int, slot: int, now: float) -> Holder:
        holder = self._read_holder(task_id, slot)
        self._holders.put((task_id, slot), holder, now)
        return holder


def chain_gate(view, **kwargs) -> RelayGate:
    """A RelayGate reading through a workers.chain.view.ChainView."""
    from workers.protocol import Role, Status

    state = view.deployment.state

    def task(task_id: int) -> TaskState:
        raw = view.read(state, "taskOf", task_id)
        return TaskState(int(raw.round), int(raw.numValidators), raw.status == Status.ACTIVE)

    def holder(task_id: int, slot: int) -> Holder:
        raw = view.read(state, "slotOf", task_id, Role.VALIDATOR, slot)
        return Holder(raw.node, int(raw.sinceRound))

    return RelayGate(view.task_count, task, holder, **kwargs)
