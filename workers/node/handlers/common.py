"""What the node's handler modules share (workers.node.handlers.table lists them): how a handler is
registered (`on`: it gets its NodeContext passed in), sending a protocol transaction, the task's
spec and current checkpoint, this node's slot, the round's submissions and votes, whether an event
is still current, a fetch that turns into missing data after a few deliveries, the key of what a
process holds for a later job, and a synthetic check scheduled on the node's own queue."""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from workers.chain.errors import DroppedTransaction, FeeCapExceeded, TxReverted
from workers.node.handlers.context import NodeContext
from workers.node.queues.dispatch import DISPATCH, HandledEvent, RetryableError, declare_retryable
from workers.protocol import Phase, Role, Status
from workers.storage.store import RETRYABLE as STORE_RETRYABLE

log = logging.getLogger(__name__)

ZERO32 = b"\x00" * 32

declare_retryable(*STORE_RETRYABLE, DroppedTransaction, FeeCapExceeded)
try:  # web3's HTTP transport
    import requests

    declare_retryable(requests.exceptions.ConnectionError, requests.exceptions.Timeout)
except ImportError:  # pragma: no cover
    pass


def on(event_name: str, role: str, **options) -> Callable:
    """Registers `handler(ctx, ev)` in DISPATCH for (event_name, role) (options: DispatchTable.on's).
    The worker runs it with this process's NodeContext (NodeContext.current), so a handler is a
    plain function of its context and its event: a test or an in-process driver calls it with
    the context of the node it plays. A `bounded` PhaseStarted handler rechecks its deadline on the
    chain (phase_deadline_now)."""
    def decorate(handler: Callable[[NodeContext, HandledEvent], Any]) -> Callable:
        @functools.wraps(handler)
        def with_context(ev: HandledEvent):
            return handler(NodeContext.current(), ev)

        if options.get("bounded") is not None:
            options.setdefault("recheck", phase_deadline_now)
        DISPATCH.register(event_name, role, with_context, **options)
        return handler
    return decorate


def phase_deadline_now(args: dict) -> float | None:
    """A PhaseStarted's deadline as it stands on the chain now, on this machine's clock (a pause
    moves it later); None once the task left that round's phase."""
    from workers.node.market.deadlines import local_time

    ctx = NodeContext.current()
    task = current(ctx, int(args["taskId"]), int(args["round"]), Phase(int(args["phase"])))
    return None if task is None else local_time(ctx, task.phase_deadline)


GAS_FLOOR = 5_000_000
"""Least gas of a protocol transaction. Its estimate is taken before it is mined; if another
node's transaction lands first, ours may be the one that ends the phase (the last attestation
finalizes the round and may settle the task), which costs far more than estimated: the
RoundLogic delegatecall then runs out of gas and the transaction reverts without data. Only the
gas used is paid."""


def or_task_ended(*errors: str) -> tuple[str, ...]:
    """`errors` and WrongStatus, for `send`'s `done`: a worker's or validator's transaction for a
    round reverts WrongStatus once the task has ended (its other nodes' votes completed it, or it
    failed) between the handler's check and the send; nothing is owed then, so it is not a failure."""
    return (*errors, "WrongStatus")


def send(ctx: NodeContext, call, done: tuple[str, ...] = (), estimate_at: str | None = None):
    """Send `call` with at least GAS_FLOOR gas; a revert named in `done` means someone (maybe we,
    earlier) already did it: returns None. A "not yet" revert becomes RetryableError; anything
    else propagates. `estimate_at`: TxSender.build's."""
    try:
        tx = ctx.sender.build(call, estimate_at=estimate_at)  # a revert is raised here, before anything is sent
        tx["gas"] = max(tx["gas"], GAS_FLOOR)
        return ctx.sender.wait(ctx.sender.send_built(tx, f"{call.fn_name}{tuple(call.args)}"))
    except TxReverted as exc:
        if exc.error.name in done:
            log.info("%s: %s (already done)", call.fn_name, exc.error.name)
            return None
        if exc.error.retryable:
            raise RetryableError(str(exc)) from exc
        raise


def spec_of(ctx: NodeContext, task):
    """The task's TaskSpec, fetched by CID and checked against specDigest (cached per process)."""
    return spec_by(ctx, task.spec_cid, bytes(task.spec_digest))


def spec_by(ctx: NodeContext, cid: str, digest: bytes):
    """The TaskSpec stored at `cid`, checked against `digest` (cached per process)."""
    from workers.spec_fetch import fetch_spec

    key = (cid, digest)
    if key not in ctx._specs:
        ctx._specs[key] = fetch_spec(ctx.store, cid, digest)
    return ctx._specs[key]


def checkpoint_bundle(ctx: NodeContext, task) -> bytes | None:
    """The task's current checkpoint bundle (checked against checkpointRoot): one this process
    already found hashing to that root (a validator's check of the round that made it, an earlier
    job of this round: workers.roles.trainer.known_bundle), else fetched by checkpointCid and
    checked. Before any: the initial bundle of its encrypted inputs
    (workers.node.handlers.encrypted_inputs), else None."""
    from workers.node.handlers.encrypted_inputs import initial_bundle
    from workers.roles.trainer import known_bundle, verify_checkpoint

    if not task.checkpoint_cid:
        return initial_bundle(ctx, task, spec_of(ctx, task))
    bundle = known_bundle(task.checkpoint_root)
    if bundle is None:
        bundle = ctx.store.get(task.checkpoint_cid)
        verify_checkpoint(bundle, task.checkpoint_root)
    return bundle


def my_slot(ctx: NodeContext, task_id: int, role: Role, round_: int):
    """This node's slot of `role` in the task if it works in `round_`, else None."""
    m = ctx.view.membership(task_id, ctx.address)
    if not m.assigned or m.role != role:
        return None
    slot = ctx.view.read(ctx.deployment.state, "slotOf", task_id, role, m.slot)
    return m.slot if slot.sinceRound <= round_ else None


def submission(ctx: NodeContext, task_id: int, round_: int, role: Role, slot: int):
    return ctx.view.read(ctx.deployment.state, "submissionOf", task_id, round_, role, slot)


def voted(ctx: NodeContext, task_id: int, round_: int, slot: int) -> bool:
    """Whether validator `slot` has voted in the round (alone or in an aggregate)."""
    return ctx.view.read(ctx.deployment.registry, "attestationOf", task_id, round_, slot).voted


def sealed(ctx: NodeContext, task_id: int, round_: int, slot: int) -> bool:
    """Whether validator `slot` holds a sealed vote of the round not yet opened (it committed in
    Attest and has not revealed: the registry clears a commitment once it is opened)."""
    return bytes(ctx.view.read(ctx.deployment.state, "attestCommitmentOf", task_id, round_, slot)) != ZERO32


def current(ctx: NodeContext, task_id: int, round_: int, *phases: Phase):
    """The task if it is active in this round and in one of `phases`, else None (the event is stale)."""
    task = ctx.view.task(task_id)
    if task.status != Status.ACTIVE or task.round != round_ or task.phase not in phases:
        return None
    return task


def in_phases(*phases: Phase):
    """A `when` for PhaseStarted: only these phases are the role's (the others wake no worker)."""
    return lambda args: int(args["phase"]) in phases


FETCH_DELIVERIES = 3
"""Deliveries of a job after which content that could not be fetched is missing data."""


def fetch(ctx: NodeContext, cid: str, ev: HandledEvent) -> bytes | None:
    """The content, or None (missing data: reject) once a few deliveries could not get it."""
    return fetch_content(ctx, cid, ev.attempt)


def fetch_content(ctx: NodeContext, cid: str, attempt: int) -> bytes | None:
    """`fetch` for a job on its `attempt`-th delivery: the store's transient errors are raised
    (the job is retried) until FETCH_DELIVERIES, then None."""
    try:
        return ctx.store.get(cid)
    except STORE_RETRYABLE:
        if attempt < FETCH_DELIVERIES:
            raise
        return None


def held_key(ctx: NodeContext, task_id: int, round_: int) -> tuple:
    """A result this node's process holds for a later job (workers.node.handlers.held): whose (a verdict
    uses its secret challenge seed), on which chain, of which round."""
    return ctx.deployment.registry.address, ctx.address, task_id, round_


def schedule_check(ctx: NodeContext, event_name: str, key: str, args: dict, countdown: float | None = None,
                   role: str = "validator") -> None:
    """A synthetic event for this node's `role` queue at args["deadline"] + 1 s of protocol
    time (or after `countdown` s), at most half the visibility timeout ahead: a longer wait is
    a chain of checks, each rescheduling the next (hop), so that no message outlives Redis's
    redelivery window. Sent URGENT: a worker holds a message with a countdown until it is due, so
    the check should reach it at once, not behind a burst's LATER jobs, which would make it late."""
    from celery import current_task

    from workers.node.queues.celery_app import send_event
    from workers.node.queues.dispatch import URGENT

    if countdown is None:
        countdown = int(args["deadline"]) - ctx.view.protocol_time() + 1
    countdown = max(0.0, min(float(countdown), ctx.config.visibility_timeout / 2))
    kwargs = {"event_key": key, "event_name": event_name, "block": 0, "role": role, "args": args}
    send_event(current_task.app, kwargs, countdown=countdown, priority=URGENT)
