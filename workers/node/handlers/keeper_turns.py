"""Turns for the keeper calls any validator in the pool may send.

A validator draw (`drawValidators`), a juror draw (`drawJurors`), a dispute's `settle()` and the
`advance()` that fails a task nobody filled in time are needed once, and every validator node sees
the event that makes them due (a phase deadline's `advance()`: every validator of the task). Sent
by all at once, one lands and the others revert in the same or the next block, each paying gas
for nothing: with a pool of a hundred validators, ninety-nine failed transactions a draw. So
each node takes a turn. Its place for one call is

    u = keccak(subject || node address) / 2**256,   turn = min(floor(u * poolSize), MAX_TURNS)

(`turn_of`; `subject` names the call and what makes it due, e.g. the draw's seed block, so a
re-armed draw orders the pool afresh). About one node of the pool falls in each turn, so each
turn's sender is expected to be alone; a node whose turn comes checks first whether the call is
still needed, so a node that is down or slow only hands the call to the next turn. A node sends
its call once `turn * turn_blocks` blocks have passed since the call became due (`Turn`).

turn_blocks is 0 for a chain on the node's own machine (a local anvil: a reverted call costs
nothing there and a test or the demo should not wait) and REMOTE_TURN_BLOCKS otherwise; an
operator sets it with `node start --keeper-turn-blocks`. A turn must outlast a transaction's way
into a block, or the next turn sends before it sees the call landed."""
from __future__ import annotations

import time
from dataclasses import dataclass

from workers.hashing import keccak256

MAX_TURNS = 8
"""The latest turn: a node placed beyond it sends then, if no one earlier did (with about one node a
turn, every earlier turn is empty about once in 3,000 calls)."""
LOCAL_TURN_BLOCKS, REMOTE_TURN_BLOCKS = 0, 2
"""Blocks a turn lasts, for a chain on this machine and for any other (two blocks: a transaction
sent when its turn begins is mined in the next one, and the next turn reads it there)."""


def turn_of(subject: bytes, address: str, pool_size: int) -> int:
    """This node's turn (0 first) for the call named by `subject`, in a pool of `pool_size`."""
    u = int.from_bytes(keccak256(subject + bytes.fromhex(address.removeprefix("0x"))), "big")
    return min((u * max(pool_size, 1)) >> 256, MAX_TURNS)


@dataclass(frozen=True)
class Turn:
    """When a node may send a call that became due at block `due_block`."""

    turn: int
    turn_blocks: int
    due_block: int

    @property
    def first_block(self) -> int:
        """The chain's head from which this node sends (its transaction lands in a later block)."""
        return self.due_block + self.turn * self.turn_blocks

    def blocks_to_wait(self, head: int) -> int:
        return max(self.first_block - head, 0)


MAX_DEFERRALS = 4
"""A job defers itself to its turn at most this many times (a run counts as a job's attempt); later
runs send as soon as their turn's first block is mined, waiting in place for it up to WAIT_IN_PLACE_S."""
WAIT_IN_PLACE_S = 3.0
"""How long a keeper waits in place (its worker busy) for a block it needs; longer waits defer."""
INTERVAL_SPAN = 32
"""Blocks over which the chain's block interval is measured (to time a deferral)."""


def block_interval_s(ctx) -> float:
    """The chain's mean block interval over its last INTERVAL_SPAN blocks (measured once a process)."""
    if "block_interval_s" not in ctx._cache:
        head = ctx.w3.eth.get_block("latest")
        span = min(INTERVAL_SPAN, int(head["number"]))
        earlier = ctx.w3.eth.get_block(int(head["number"]) - span) if span else head
        ctx._cache["block_interval_s"] = (head["timestamp"] - earlier["timestamp"]) / span if span else 1.0
    return min(max(ctx._cache["block_interval_s"], 0.05), 60.0)


def my_turn(ctx, subject: bytes, pool_size: int | None = None) -> tuple[int, int]:
    """(this node's turn, the node's keeper_turn_blocks); turn 0 without turns. The pool is every
    validator (StakeManager.validatorCount) unless `pool_size` names a smaller one (a task's
    validators, who alone keep its phase deadlines)."""
    turn_blocks = ctx.settings.keeper_turn_blocks
    if not turn_blocks:
        return 0, 0
    if pool_size is None:
        pool_size = ctx.view.read(ctx.deployment.stakes, "validatorCount")
    return turn_of(subject, ctx.address, pool_size), turn_blocks


def turn_delay_s(ctx, subject: bytes, pool_size: int | None = None) -> float:
    """How long after a call fell due (by the clock, for calls due at a time) this node's turn
    comes: 0 in the first turn or without turns."""
    turn, turn_blocks = my_turn(ctx, subject, pool_size)
    return turn * turn_blocks * block_interval_s(ctx) if turn else 0.0


def wait_for_turn(ctx, ev, subject: bytes, due_block: int) -> None:
    """Returns once this node may send the keeper call named by `subject`, due from `due_block`
    or from when the node saw the event `ev` (its block plus the node's confirmation depth), the
    later of the two (the caller then checks the call is still needed, or lets its estimate decide). With the
    node's keeper_turn_blocks 0 (or in the first turn) that is once `due_block` is mined, waiting
    for it in place up to WAIT_IN_PLACE_S; a later turn more than a moment away defers the job
    (dispatch.Deferred) rather than holding its worker."""
    from workers.chain.stalls import nudge_if_stalled
    from workers.node.queues.dispatch import Deferred  # here: `node start --help` reads this module

    turn, turn_blocks = my_turn(ctx, subject)
    # a node with a confirmation depth sees the event that depth late, as every node of the pool
    # with the same depth does: the turns start from there, or the first few would all send at once
    seen = int(ev.block) + ctx.settings.confirmations if ev.block else 0
    at = Turn(turn, turn_blocks, max(due_block, seen))
    head = ctx.w3.eth.block_number
    in_place_until = time.monotonic() + WAIT_IN_PLACE_S
    still_since = time.monotonic()
    while (left := at.blocks_to_wait(head)) > 0:
        # On a chain that mines only on transactions the block may never come: the first turn
        # mines it (workers.chain.stalls), once the head has stood still for the node's nudge_after_s.
        nudge_after = ctx.settings.nudge_after_s
        if turn == 0 and nudge_after and time.monotonic() - still_since >= nudge_after \
                and nudge_if_stalled(ctx.w3, ctx.sender, nudge_after):
            head, still_since = ctx.w3.eth.block_number, time.monotonic()
            continue
        if left > 1 or time.monotonic() >= in_place_until:
            if turn == 0 or ev.attempt > MAX_DEFERRALS:
                return  # the call's own checks decide (a draw not ready yet retries with backoff)
            raise Deferred(left * block_interval_s(ctx),
                           f"keeper turn {turn}: sends once block {at.first_block} is mined (head {head})")
        time.sleep(0.05)
        if (now_head := ctx.w3.eth.block_number) != head:
            head, still_since = now_head, time.monotonic()


def default_turn_blocks(rpc_url: str) -> int:
    from workers.chain.rpc import is_local_url

    return LOCAL_TURN_BLOCKS if is_local_url(rpc_url) else REMOTE_TURN_BLOCKS
