"""workers/node/handlers/relay_gate.py: the bridge writes only the entry of the slot's holder on
chain, for the task's current round; the chain is read through caches within a read budget, so
neither a flood nor a lagging view costs more than bounded reads (SPECIFICATION.md 5.5.2)."""
import pytest

from workers.node.handlers.relay_gate import REFRESH_S, TTL_S, Holder, RelayGate, TaskState

ALICE, BOB = "0x" + "a1" * 20, "0x" + "b2" * 20
ZERO = "0x" + "00" * 20


class Chain:
    """The reads a gate makes, with what they answer and how many were made."""

    def __init__(self):
        self.count, self.tasks = 2, {1: TaskState(3, 4, True), 2: TaskState(0, 2, False)}
        self.holders = {(1, 0): Holder(ALICE, 0), (1, 1): Holder(BOB, 4), (1, 2): Holder(ZERO, 0)}
        self.reads = 0

    def task_count(self):
        self.reads += 1
        return self.count

    def task(self, task_id):
        self.reads += 1
        return self.tasks.get(task_id, TaskState(0, 0, False))

    def holder(self, task_id, slot):
        self.reads += 1
        return self.holders.get((task_id, slot), Holder(ZERO, 0))


@pytest.fixture
def clock():
    return [100.0]


@pytest.fixture
def chain():
    return Chain()


@pytest.fixture
def gate(chain, clock):
    return RelayGate(chain.task_count, chain.task, chain.holder, clock=lambda: clock[0])


def test_the_holders_entry_for_the_current_round_passes(gate):
    assert gate.check(1, 3, 0, ALICE) is None
    assert gate.check(1, 3, 0, ALICE.upper().replace("0X", "0x")) is None


@pytest.mark.parametrize("task_id,round_,slot,node,why,kind", [
    (1, 3, 0, BOB, "not the slot's holder", "not-holder"),
    (1, 3, 2, ALICE, "not the slot's holder", "not-holder"),  # vacant
    (1, 2, 0, ALICE, "round 2 is not the task's current round 3", "not-current"),  # a replay of an earlier round
    (1, 4, 0, ALICE, "round 4 is not the task's current round 3", "not-current"),
    (1, 3, 4, ALICE, "no validator slot 4", "not-holder"),
    (1, 3, 1, BOB, "took the slot after that round", "not-current"),
    (2, 0, 0, ALICE, "task not active", "not-current"),
    (3, 0, 0, ALICE, "no such task", "not-current"),
])
def test_anything_else_is_dropped(gate, task_id, round_, slot, node, why, kind):
    refused = gate.check(task_id, round_, slot, node)
    assert refused == why and refused.kind == kind  # the log's text, the metric's label


def test_agreeing_entries_cost_no_further_reads(gate, chain):
    gate.check(1, 3, 0, ALICE)
    reads = chain.reads
    for _ in range(100):
        assert gate.check(1, 3, 0, ALICE) is None
    assert chain.reads == reads == 3  # task count, task, holder


def test_a_disagreeing_entry_reads_again_at_most_every_refresh_interval(gate, chain, clock):
    gate.check(1, 3, 0, ALICE)
    chain.holders[(1, 0)] = Holder(BOB, 3)  # Alice left, Bob was drawn
    reads = chain.reads
    for _ in range(50):
        assert gate.check(1, 3, 0, BOB) == "not the slot's holder"  # the cache, younger than REFRESH_S
    assert chain.reads == reads
    clock[0] += REFRESH_S
    assert gate.check(1, 3, 0, BOB) is None and chain.reads == reads + 1
    assert gate.check(1, 3, 0, ALICE) == "not the slot's holder"


def test_a_new_round_is_read_when_an_entry_for_it_comes(gate, chain, clock):
    assert gate.check(1, 3, 0, ALICE) is None
    chain.tasks[1] = TaskState(4, 4, True)
    clock[0] += REFRESH_S
    assert gate.check(1, 4, 0, ALICE) is None
    assert gate.check(1, 3, 0, ALICE) == "round 3 is not the task's current round 4"


def test_cached_reads_expire(gate, chain, clock):
    gate.check(1, 3, 0, ALICE)
    chain.tasks[1] = TaskState(3, 4, False)
    clock[0] += TTL_S
    assert gate.check(1, 3, 0, ALICE) == "task not active"


def test_a_flood_costs_at_most_the_read_budget(chain, clock):
    gate = RelayGate(chain.task_count, chain.task, chain.holder, reads_per_s=5, burst=10, clock=lambda: clock[0])
    chain.count = 10**6  # a flood naming every task there is, none of them active
    whys = [gate.check(t, 0, 0, ALICE) for t in range(1, 1001)]
    assert chain.reads == 10
    assert whys.count("chain read budget spent") == 1000 - 9  # the count, then 9 tasks
    clock[0] += 1.0
    gate.check(5000, 0, 0, ALICE)
    assert chain.reads == 11  # 5 reads a second refilled; the count was cached
