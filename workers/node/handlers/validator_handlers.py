"""A validator's round: judge the revealed shards while the trainer trains, then verify the
round and seal its vote (Attest: the bitmap and a salt stored, then commitAttestation), and open
it in AttestReveal (workers.node.handlers.table, WHO DOES WHAT); the opening itself is
aggregate_handlers'."""
from __future__ import annotations

import logging
import time

from workers.node.handlers.aggregate_handlers import vote
from workers.node.handlers.common import (
    checkpoint_bundle,
    current,
    fetch,
    held_key,
    in_phases,
    my_slot,
    on,
    or_task_ended,
    sealed,
    send,
    spec_of,
    voted,
)
from workers.node.handlers.context import NodeContext
from workers.node.handlers.held import Held
from workers.node.handlers.keeper_handlers import schedule_deadline
from workers.node.market.deadlines import within_phase
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Role, attest_commitment
from workers.storage.store import RETRYABLE as STORE_RETRYABLE

log = logging.getLogger(__name__)

SAMPLER_CHECKS_KEPT = 1024
"""Rounds whose early sampler verdicts a validator process holds until their Attest phase (one
per task it validates; a round dropped here is judged twice)."""
SAMPLER_CHECKS_MAX_BYTES = 256 * 2**20
"""The judged shards' blob bytes those rounds may hold (their parsed episodes take about as much
again): a shard can be millions of steps, and a validator of many tasks holds a round of each."""


def _judged_bytes(checks) -> int:
    return sum(len(shard.blob) for _, _, shard in checks.judged.values() if shard is not None)


_SAMPLER_CHECKS = Held(SAMPLER_CHECKS_KEPT, SAMPLER_CHECKS_MAX_BYTES, _judged_bytes)
"""Early sampler verdicts (workers.roles.validator.SamplerChecks), by held_key; a round
dropped for room is judged at Attest."""


EARLY_CHECK_PHASES = (Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL, Phase.ATTEST)
"""The round's phases in which its shards can still be judged ahead of the vote: a TrainCommit
job that reaches the worker after the trainer committed (queued behind other jobs, or a trainer
faster than the validator) still saves its Attest job the work, which is queued behind it."""


def _check_samplers_early(ctx: NodeContext, ev: HandledEvent) -> None:
    """TrainCommit: the samplers have revealed and the trainer trains. Judge the samplers now, on
    CPU the trainer's one thread leaves, so that the Attest phase waits only for the trainer's
    check. Best effort: a shard not fetched now, or a round whose Attest this process does not
    see (another pool process, a restart), is judged at Attest as before."""
    from workers.roles.validator import verify_samplers

    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = current(ctx, task_id, round_, *EARLY_CHECK_PHASES)
    if task is None:
        return
    slot = my_slot(ctx, task_id, Role.VALIDATOR, round_)
    key = held_key(ctx, task_id, round_)
    if slot is None or _SAMPLER_CHECKS.get(key) is not None:
        return  # not its round, or judged already (a redelivered job)
    if task.phase == Phase.ATTEST and sealed(ctx, task_id, round_, slot):
        return  # judged at Attest already
    samplers = []
    for s in ctx.view.submissions(task_id, round_):
        if s.role == Role.SAMPLER and s.revealed:
            try:
                samplers.append((s.slot, bytes(s.root), ctx.store.get(s.cid)))
            except STORE_RETRYABLE:
                pass  # Attest fetches it again, with retries, and judges it
    _SAMPLER_CHECKS.put(key, verify_samplers(
        spec_of(ctx, task), task_id, round_, checkpoint_bundle(ctx, task), samplers,
        ctx.secrets.challenge_seed(task_id, round_)))


def _noted(judgement) -> list:
    """A judgement as the verdict note keeps it: [accepted, reason, evidence kind, item, planted]
    (the evidence a dispute states if the verdict goes the other way: detector_handlers; a planted
    judgement, the forced-error plant and nothing else, is no rejection to dispute)."""
    kind, item = judgement.evidence
    return [judgement.accepted, judgement.reason, int(kind), int(item), bool(judgement.planted)]


def attest(ctx: NodeContext, ev: HandledEvent) -> None:
    from workers.roles.validator import verify_round

    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = current(ctx, task_id, round_, Phase.ATTEST)
    if task is None:
        return
    slot = my_slot(ctx, task_id, Role.VALIDATOR, round_)
    if slot is None:
        return
    if sealed(ctx, task_id, round_, slot) or voted(ctx, task_id, round_, slot):
        return  # sealed before (this is a redelivery)
    spec = spec_of(ctx, task)
    prev = checkpoint_bundle(ctx, task)
    subs = ctx.view.submissions(task_id, round_)
    early = _SAMPLER_CHECKS.get(held_key(ctx, task_id, round_))
    samplers = [(s.slot, bytes(s.root), (early and early.blob(s.slot, s.root)) or fetch(ctx, s.cid, ev))
                for s in subs if s.role == Role.SAMPLER and s.revealed]
    trainer = next(((bytes(s.root), fetch(ctx, s.cid, ev)) for s in subs
                    if s.role == Role.TRAINER and s.revealed), None)
    started = time.time()
    with within_phase(ctx, task, f"round {round_} attest"):  # a vote sealed after the deadline is of no use
        verdict = verify_round(spec, task_id, round_, prev, samplers, trainer,
                               ctx.secrets.challenge_seed(task_id, round_), lambda cid: fetch(ctx, cid, ev),
                               early=early)
    _SAMPLER_CHECKS.pop(held_key(ctx, task_id, round_))  # kept until then: a fetch above may retry the job
    bitmap = verdict.bitmap(task.num_samplers)
    ctx.secrets.note(task_id, round_, Role.VALIDATOR, "verdict", {
        "bitmap": bitmap, "work_s": round(time.time() - started, 3),
        "samplers_judged_early": [] if early is None else sorted(early.judged),
        "samplers": {str(k): _noted(j) for k, j in verdict.samplers.items()},
        "trainer": None if verdict.trainer is None else _noted(verdict.trainer)})
    _seal(ctx, task_id, round_, bitmap)


def _seal(ctx: NodeContext, task_id: int, round_: int, bitmap: int) -> None:
    """Stores the vote with its salt (before the send: a node that restarts can still open it),
    commits to it, and opens it at once when this commit was the phase's last (as a sampler
    reveals at once, SPECIFICATION.md 12)."""
    stored = ctx.secrets.save_vote(task_id, round_, bitmap)
    if stored.bitmap != bitmap:
        log.warning("task %d round %d: sealing the vote stored earlier (%s), not the one just computed (%s)",
                    task_id, round_, bin(stored.bitmap), bin(bitmap))
    if current(ctx, task_id, round_, Phase.ATTEST) is None:
        return  # the phase ended while we verified
    commitment = attest_commitment(task_id, round_, ctx.address, stored.bitmap, stored.salt)
    send(ctx, ctx.deployment.registry.functions.commitAttestation(task_id, round_, commitment),
         done=or_task_ended("AlreadyCommitted"))
    try:
        open_vote(ctx, task_id, round_)
    except Exception as exc:  # noqa: BLE001 - the commit stands; the AttestReveal handler opens it and reports
        log.warning("task %d round %d: opening the vote right after sealing it failed (%s: %s); the "
                    "AttestReveal handler opens it", task_id, round_, type(exc).__name__, exc)


def open_vote(ctx: NodeContext, task_id: int, round_: int) -> None:
    """AttestReveal: opens this node's sealed vote of the round, alone or in an aggregate
    (aggregate_handlers.vote), if it sealed one that is not opened yet."""
    task = current(ctx, task_id, round_, Phase.ATTEST_REVEAL)
    if task is None:
        return
    slot = my_slot(ctx, task_id, Role.VALIDATOR, round_)
    if slot is None or not sealed(ctx, task_id, round_, slot):
        return  # nothing sealed this round, or opened already
    stored = ctx.secrets.vote(task_id, round_)
    if stored is None:
        raise RuntimeError(f"task {task_id} round {round_}: vote sealed but its salt is not in "
                           f"{ctx.secrets.path}; it cannot be opened (the slot will be vacated as Withheld)")
    vote(ctx, task, slot, stored.bitmap, stored.salt)


# its early sampler checks as urgent as its vote: queued behind records, they could come after it
@on("PhaseStarted", "validator", urgent=in_phases(Phase.TRAIN_COMMIT, Phase.ATTEST, Phase.ATTEST_REVEAL))
def validator_phase(ctx: NodeContext, ev: HandledEvent) -> None:
    schedule_deadline(ctx, ev.args, ev.key)
    phase = Phase(int(ev.args["phase"]))
    if phase == Phase.TRAIN_COMMIT:
        _check_samplers_early(ctx, ev)
    elif phase == Phase.ATTEST:
        attest(ctx, ev)
    elif phase == Phase.ATTEST_REVEAL:
        open_vote(ctx, int(ev.args["taskId"]), int(ev.args["round"]))
