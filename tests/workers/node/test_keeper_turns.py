"""The validator pool's turns at keeper calls (workers.node.handlers.keeper_turns): about one node a turn,
a fresh order per call, and a keeper that defers itself until its turn's block is mined."""
import time
from types import SimpleNamespace

import pytest
from eth_account import Account

from workers.node.handlers import keeper_turns
from workers.node.handlers.keeper_turns import MAX_TURNS, Turn, turn_of, wait_for_turn
from workers.node.queues import dispatch

POOL = [Account.from_key(bytes([1 + i % 250, 1 + i // 250] + [7] * 30)).address for i in range(60)]


def subject(n: int) -> bytes:
    return b"drawValidators" + n.to_bytes(32, "big") + (1000 + n).to_bytes(32, "big")


def test_a_turn_is_the_nodes_place_in_the_pool_and_about_one_node_takes_each():
    turns = {n: [turn_of(subject(n), a, len(POOL)) for a in POOL] for n in range(400)}
    assert all(0 <= t <= MAX_TURNS for ts in turns.values() for t in ts)
    assert turns[3] == [turn_of(subject(3), a, len(POOL)) for a in POOL]  # the same call, the same order
    first = [ts.count(0) for ts in turns.values()]
    # the first turn's senders: Poisson-like with mean 1 (pool * 1/pool); all at once would be 60
    assert 0.85 < sum(first) / len(first) < 1.15 and max(first) <= 6
    # the first turn that anyone holds: the call waits ~0.6 turns on average, never past MAX_TURNS
    waits = [min(ts) for ts in turns.values()]
    assert 0.3 < sum(waits) / len(waits) < 1.0
    # another call (a re-armed draw) orders the pool afresh
    assert len({ts.index(min(ts)) for ts in turns.values()}) > 40


def test_a_pool_of_one_always_has_the_first_turn():
    assert {turn_of(subject(n), POOL[0], 1) for n in range(50)} == {0}
    assert {turn_of(subject(n), POOL[0], 0) for n in range(50)} == {0}  # an empty pool: nobody to wait for


def test_a_turn_starts_turn_blocks_after_the_call_fell_due():
    assert Turn(0, 2, 100).first_block == 100 and Turn(3, 2, 100).first_block == 106
    assert Turn(3, 2, 100).blocks_to_wait(101) == 5 and Turn(3, 2, 100).blocks_to_wait(107) == 0
    assert Turn(5, 0, 100).first_block == 100  # no turns


class Chain:
    """A node's context as wait_for_turn reads it: its turn setting, the pool, the head."""

    def __init__(self, address: str, turn_blocks: int, head: int, pool: int = len(POOL), interval_s: float = 2.0):
        self.address, self.head, self.pool, self.reads = address, head, pool, 0
        self.settings = SimpleNamespace(keeper_turn_blocks=turn_blocks, confirmations=0, nudge_after_s=0.0)
        self._cache = {"block_interval_s": interval_s}
        self.deployment = SimpleNamespace(stakes="stakes")
        self.view = SimpleNamespace(read=self._read)
        self.w3 = SimpleNamespace(eth=self)

    def _read(self, contract, name):
        assert (contract, name) == ("stakes", "validatorCount")
        self.reads += 1
        return self.pool

    @property
    def block_number(self):
        return self.head


def event(attempt: int = 1, block: int = 0):
    return dispatch.HandledEvent("0xab:1", "DrawArmed", {}, block, "validator", attempt)


def late_node(n_min: int = 3):
    """(subject, address, turn) of a pool member whose turn is at least n_min."""
    for n in range(100):
        for address in POOL:
            turn = turn_of(subject(n), address, len(POOL))
            if turn >= n_min:
                return subject(n), address, turn
    raise AssertionError("no late turn in the pool")


def test_a_node_in_a_later_turn_defers_until_its_first_block():
    call, address, turn = late_node()
    chain = Chain(address, turn_blocks=2, head=500)
    with pytest.raises(dispatch.Deferred, match=f"keeper turn {turn}: sends once block {500 + 2 * turn}") as later:
        wait_for_turn(chain, event(), call, due_block=500)
    assert later.value.wait == pytest.approx(2 * turn * 2.0)  # blocks to wait x the chain's block interval
    chain.head = 500 + 2 * turn
    wait_for_turn(chain, event(attempt=2), call, due_block=500)  # its turn: returns, the caller sends


def test_a_node_in_the_first_turn_or_without_turns_goes_when_the_call_is_due():
    call, address, _ = late_node()
    chain = Chain(address, turn_blocks=0, head=500)
    wait_for_turn(chain, event(), call, due_block=500)
    assert chain.reads == 0  # no turns: the pool is not even read
    first = next((s, a) for n in range(100) for a in POOL if turn_of(s := subject(n), a, len(POOL)) == 0)
    wait_for_turn(Chain(first[1], turn_blocks=2, head=500), event(), first[0], due_block=500)


def test_a_keeper_that_deferred_enough_goes_and_lets_the_call_decide(monkeypatch):
    monkeypatch.setattr(keeper_turns, "WAIT_IN_PLACE_S", 0.05)
    call, address, _ = late_node()
    chain = Chain(address, turn_blocks=2, head=500)
    for attempt in range(1, keeper_turns.MAX_DEFERRALS + 1):
        with pytest.raises(dispatch.Deferred):
            wait_for_turn(chain, event(attempt), call, due_block=500)
    wait_for_turn(chain, event(keeper_turns.MAX_DEFERRALS + 1), call, due_block=500)  # no more deferrals


def test_the_block_interval_is_measured_once_from_the_chain():
    blocks = {100: {"number": 100, "timestamp": 10_000 + 100 * 12}, 68: {"number": 68, "timestamp": 10_000 + 68 * 12}}
    asked = []

    def get_block(which):
        asked.append(which)
        return blocks[100 if which == "latest" else which]

    ctx = SimpleNamespace(_cache={}, w3=SimpleNamespace(eth=SimpleNamespace(get_block=get_block)))
    assert keeper_turns.block_interval_s(ctx) == 12.0 and keeper_turns.block_interval_s(ctx) == 12.0
    assert asked == ["latest", 68]


def test_a_time_keepers_delay_is_its_turn_in_block_intervals_among_the_pool_it_names():
    call, address, turn = late_node()
    chain = Chain(address, turn_blocks=2, head=500, interval_s=3.0)
    assert keeper_turns.turn_delay_s(chain, call) == pytest.approx(turn * 2 * 3.0) and chain.reads == 1
    # a task's own validators (its phase deadlines): that pool, not the chain's
    assert keeper_turns.turn_delay_s(chain, call, pool_size=1) == 0.0 and chain.reads == 1
    assert keeper_turns.turn_delay_s(chain, call, pool_size=len(POOL)) == pytest.approx(turn * 2 * 3.0)
    assert keeper_turns.turn_delay_s(Chain(address, turn_blocks=0, head=500), call) == 0.0


def test_with_a_confirmation_depth_the_turns_start_when_the_pool_sees_the_event():
    """DrawArmed mined at block 499 (seed block 500), delivered 3 confirmations later (head 502):
    the first turn sends at once, the second two blocks later, not at once beside it."""
    call, address, turn = late_node(n_min=2)
    chain = Chain(address, turn_blocks=2, head=502)
    chain.settings.confirmations = 3
    with pytest.raises(dispatch.Deferred, match=f"sends once block {502 + 2 * turn} is mined"):
        wait_for_turn(chain, event(block=499), call, due_block=500)
    chain.settings.confirmations = 0  # seen at once: the seed block decides
    with pytest.raises(dispatch.Deferred, match=f"sends once block {500 + 2 * turn} is mined"):
        wait_for_turn(chain, event(block=499), call, due_block=500)


class StalledChain(Chain):
    """A chain that mines only on transactions: its head stands still (its timestamp with it) until
    the node sends one; `sent` counts them."""

    def __init__(self, address: str, head: int):
        super().__init__(address, turn_blocks=0, head=head)
        self.settings.nudge_after_s = 0.1
        self.sent, self.mined_at, self.started = 0, 1_000, time.monotonic()
        self.sender = SimpleNamespace(address=address, send=self._send)

    def get_block(self, which):
        now = 1_000 + int((time.monotonic() - self.started) * 100)  # the chain's clock, 100x fast
        return {"timestamp": now if which == "pending" else self.mined_at}

    def _send(self, to, value):
        assert (to, value) == (self.address, 0)  # an empty transaction to itself
        self.sent += 1
        self.head += 1
        self.mined_at = self.get_block("pending")["timestamp"]
        return {"blockNumber": self.head}


def test_a_first_turn_keeper_mines_the_block_it_waits_for_on_a_chain_that_mines_only_on_transactions(monkeypatch):
    monkeypatch.setattr(keeper_turns, "WAIT_IN_PLACE_S", 0.5)
    chain = StalledChain(POOL[0], head=499)  # DrawArmed mined at 499: seed block 500 comes from nobody
    wait_for_turn(chain, event(block=499), subject(1), due_block=500)
    assert chain.sent == 1 and chain.head == 500
    chain.settings.nudge_after_s = 0.0  # nudging off (a remote chain's default): it waits, then lets the call decide
    chain.head = 499
    wait_for_turn(chain, event(block=499), subject(1), due_block=500)
    assert chain.sent == 1 and chain.head == 499
