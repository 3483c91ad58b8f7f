"""Assignment: claiming a new or vacated sampler or trainer slot, working at once in a slot got
during its role's work phase, and the validator draw (workers.node.handlers.table, WHO DOES WHAT)."""
from __future__ import annotations

import dataclasses
import logging

from workers.chain.errors import TxReverted
from workers.node.handlers import round_handlers, validator_handlers
from workers.node.handlers.common import on, send, spec_by, spec_of
from workers.node.handlers.context import NodeContext
from workers.node.handlers.draws import commit_first_draw
from workers.node.handlers.keeper_turns import wait_for_turn
from workers.node.market import claims
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Role, Status

log = logging.getLogger(__name__)


INELIGIBLE = ("NodePaused", "InsufficientStake", "ReputationTooLow")


def _claim(ctx: NodeContext, ev: HandledEvent, role: Role) -> None:
    """Claims a slot of `role`. Claims race, so the fast path checks only the task's spec (it
    must be fetchable and match its digest before the node commits stake to it) and lets
    claimSlot's own checks decide the rest: a lost race, a slot already ours, the requester's
    own task, a task no longer open and an ineligible node (stake, reputation, paused; logged
    with the reason) all revert at the gas estimate, before anything is sent. A TaskCreated
    carries the spec and the requester. Before claiming, the node's market policy decides
    (workers.node.market.claims): a slot whose pay is below the node's price, or whose work it
    cannot finish inside the task's window, is passed over and recorded."""
    task_id = int(ev.args["taskId"])
    if ev.name == "TaskCreated":
        if ev.args["requester"] == ctx.address:
            return
        spec = spec_by(ctx, ev.args["specCid"], bytes.fromhex(ev.args["specDigest"][2:]))
        task = ctx.view.task(task_id)
    else:
        task = ctx.view.task(task_id)
        if task.status not in (Status.OPEN, Status.ACTIVE) or task.requester == ctx.address:
            return
        filled = task.filled_samplers if role == Role.SAMPLER else int(task.trainer_filled)
        if filled == task.slot_count(role):
            return  # lost the race already: no estimate needed to learn NoVacantSlot
        spec = spec_of(ctx, task)  # a task whose spec cannot be fetched or is corrupt is not taken
    refused = claims.refusal(ctx, task, spec, role)
    if refused is not None:
        claims.pass_over(ctx, task_id, role, *refused)
        return
    try:
        send(ctx, ctx.deployment.registry.functions.claimSlot(task_id, role),
             done=("NoVacantSlot", "AlreadyAssigned", "WrongStatus", "DeadlinePassed", "RequesterCannotWork"))
    except TxReverted as exc:
        if exc.error.name not in INELIGIBLE:
            raise
        log.warning("task %d: not claiming the %s slot: %s", task_id, role.name.lower(),
                    ctx.view.eligibility(ctx.address, role).reason or exc.error.name)


@on("TaskCreated", "sampler", new_task=True)
def claim_sampler(ctx: NodeContext, ev: HandledEvent) -> None:
    _claim(ctx, ev, Role.SAMPLER)


@on("TaskCreated", "trainer", new_task=True)
def claim_trainer(ctx: NodeContext, ev: HandledEvent) -> None:
    _claim(ctx, ev, Role.TRAINER)


def _reclaim(ctx: NodeContext, ev: HandledEvent, role: Role) -> None:
    """A slot of `role` was vacated (missed, rejected): claim it, unless it was ours."""
    if Role(int(ev.args["role"])) == role and ev.args["node"] != ctx.address:
        _claim(ctx, ev, role)


@on("SlotVacated", "sampler", new_task=True)
def reclaim_sampler(ctx: NodeContext, ev: HandledEvent) -> None:
    _reclaim(ctx, ev, Role.SAMPLER)


@on("SlotVacated", "trainer", new_task=True)
def reclaim_trainer(ctx: NodeContext, ev: HandledEvent) -> None:
    _reclaim(ctx, ev, Role.TRAINER)


WORK_PHASE = {Role.SAMPLER: Phase.SAMPLE_COMMIT, Role.TRAINER: Phase.TRAIN_COMMIT, Role.VALIDATOR: Phase.ATTEST}


def _joined(ctx: NodeContext, ev: HandledEvent, role: Role, work, before_active=None) -> None:
    """This node got a slot of an active task during its role's work phase (a vacant slot
    claimed, a validator drawn as a replacement): it works in this round, but the phase's
    PhaseStarted came before it held the slot, so do that phase's work now. A slot of a task
    that is not active yet goes to `before_active`, if given (both called as handlers: ctx, ev).
    A sampler or trainer first commits its draw for its first round (draws.commit_first_draw)."""
    if Role(int(ev.args["role"])) != role or ev.args["node"] != ctx.address:
        return
    if role != Role.VALIDATOR:
        commit_first_draw(ctx, int(ev.args["taskId"]), role)  # before its first round's seed is fixed
    task = ctx.view.task(int(ev.args["taskId"]))
    if task.status == Status.ACTIVE and task.phase == WORK_PHASE[role]:
        work(ctx, dataclasses.replace(ev, args={**ev.args, "round": task.round, "phase": int(task.phase)}))
    elif task.status in (Status.OPEN, Status.DRAWING) and before_active is not None:
        before_active(ctx, ev)


@on("SlotAssigned", "sampler")
def sampler_joined(ctx: NodeContext, ev: HandledEvent) -> None:
    from workers.node.handlers.sample_ahead import ahead_of_round_zero

    _joined(ctx, ev, Role.SAMPLER, lambda c, e: round_handlers.commit_work(c, e, Role.SAMPLER, Phase.SAMPLE_COMMIT),
            before_active=ahead_of_round_zero)


@on("SlotAssigned", "trainer")
def trainer_joined(ctx: NodeContext, ev: HandledEvent) -> None:
    _joined(ctx, ev, Role.TRAINER, lambda c, e: round_handlers.commit_work(c, e, Role.TRAINER, Phase.TRAIN_COMMIT))


@on("SlotAssigned", "validator")
def validator_joined(ctx: NodeContext, ev: HandledEvent) -> None:
    if Role(int(ev.args["role"])) == Role.VALIDATOR and ev.args["node"] == ctx.address:
        _flag_draw(ctx, int(ev.args["taskId"]))
    _joined(ctx, ev, Role.VALIDATOR, validator_handlers.attest)


def _flag_draw(ctx: NodeContext, task_id: int) -> None:
    """A validator cannot decline its draw: a drawn slot below its price, or one it cannot verify in
    time, is recorded for the operator (workers.node.market.claims)."""
    try:
        task = ctx.view.task(task_id)
        refused = claims.refusal(ctx, task, spec_of(ctx, task), Role.VALIDATOR, calibrate=False)
    except Exception as exc:  # noqa: BLE001 - a record for the operator; the slot's work goes on (and reports)
        log.warning("task %d: could not price the validator draw: %s: %s", task_id, type(exc).__name__, exc)
        return
    if refused is not None:
        code, why = refused
        claims.pass_over(ctx, task_id, Role.VALIDATOR, f"drawn-{code}", f"drawn (cannot decline): {why}")


@on("DrawArmed", "validator", urgent=lambda args: True)  # the task's start waits on its draw
def draw(ctx: NodeContext, ev: HandledEvent) -> None:
    task_id = int(ev.args["taskId"])
    task = ctx.view.task(task_id)
    if task.status not in (Status.DRAWING, Status.ACTIVE) or task.filled_validators == task.num_validators:
        return  # drawn already (a draw also re-arms during a task, to replace a validator)
    send_draw(ctx, ev, "drawValidators", task_id, int(ev.args["seedBlock"]),
              ctx.deployment.registry.functions.drawValidators(task_id),
              done=("WrongStatus", "NoVacancy", "DeadlinePassed"))


def send_draw(ctx: NodeContext, ev: HandledEvent, name: str, subject_id: int, seed_block: int, call,
              done: tuple[str, ...]):
    """Sends a draw (drawValidators, drawJurors), whose seed is the hash of seedBlock, so it must
    run in a later block: a transaction sent once seedBlock is the chain's head lands in a later
    block, so the draw goes as soon as seedBlock exists, or in this node's keeper turn after it
    (workers.node.handlers.keeper_turns: every validator sees the draw armed; a job that defers itself to
    its turn reads the chain again when it runs), with its estimate in the next block's context
    ("pending": at "latest", block.number would still be seedBlock and the estimate would revert;
    a chain slower than the wait gets DrawNotReady and the backoff)."""
    subject = name.encode() + subject_id.to_bytes(32, "big") + seed_block.to_bytes(32, "big")
    wait_for_turn(ctx, ev, subject, seed_block)
    return send(ctx, call, done=done, estimate_at="pending")
