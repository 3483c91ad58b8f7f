"""A sampler's next shard, rolled out before its SampleCommit phase starts.

A shard depends only on the task's spec and seed, the round, the slot and the policy it rolls out
(workers.roles.sampler), and that policy is known before the round starts: round 0's (the task's
initial policy) once the sampler holds its slot, round r+1's once the trainer has revealed round
r's checkpoint, which becomes the task's checkpoint if the validators accept it. So a sampler
rolls out its next shard while the chain waits on others (the other claims and the validator
draw; the validators' Attest of round r) and holds it in its process. At SampleCommit it commits
that shard only if the task's checkpoint is the one it rolled out (the same root); otherwise (a
rejected checkpoint, a process that did not see the earlier event, a shard dropped for room) it
samples then, as without this module. Sampling ahead costs CPU, never a different commitment.

Handlers (sampler), called from assignment_handlers and round_handlers: SlotAssigned while the
task is still Open or Drawing (`ahead_of_round_zero`), PhaseStarted(Attest) (`ahead_of_next_round`)."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from workers.node.handlers.common import ZERO32, checkpoint_bundle, held_key, my_slot, spec_of
from workers.node.handlers.context import NodeContext
from workers.node.handlers.held import Held
from workers.node.handlers.round_handlers import sample
from workers.node.market import throughput
from workers.node.market.deadlines import within_phase
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Role, Status
from workers.storage.store import RETRYABLE as STORE_RETRYABLE

log = logging.getLogger(__name__)

SHARDS_KEPT = 1024
"""Shards a sampler process holds for rounds that have not started: one per task it samples, and
a burst of new tasks gives it round 0 of each before the first one starts (a shard dropped here is
rolled out twice)."""
SHARDS_MAX_BYTES = 256 * 2**20
"""Their blobs' bytes in all (a shard can be millions of steps): the bound that matters."""


@dataclass(frozen=True, eq=False)
class ShardAhead:
    policy_root: bytes
    """The checkpoint root the shard was rolled out with (ZERO32: the task's initial policy)."""
    root: bytes
    blob: bytes = field(repr=False)
    note: dict = field(repr=False)
    """As round_handlers.sample gives it (with the episodes' returns)."""
    work_s: float


_AHEAD: Held[ShardAhead] = Held(SHARDS_KEPT, SHARDS_MAX_BYTES, lambda shard: len(shard.blob))


def _key(ctx: NodeContext, task_id: int, round_: int, slot: int) -> tuple:
    return (*held_key(ctx, task_id, round_), slot)


def take(ctx: NodeContext, task, round_: int, slot: int) -> ShardAhead | None:
    """The shard held for this round and slot if it was rolled out with the task's current
    checkpoint (it is dropped either way: a round is sampled once)."""
    shard = _AHEAD.pop(_key(ctx, task.task_id, round_, slot))
    if shard is None or shard.policy_root != bytes(task.checkpoint_root):
        return None
    return shard


def _roll_out(ctx: NodeContext, task, round_: int, slot: int, policy_root: bytes, bundle: bytes | None):
    started = time.time()
    spec = spec_of(ctx, task)
    root, blob, note = sample(spec, task.task_id, round_, slot, bundle)
    work_s = time.time() - started
    throughput.observe(ctx, "rollout", spec, note["steps"], work_s)  # the node's speed, for its next claims
    _AHEAD.put(_key(ctx, task.task_id, round_, slot), ShardAhead(policy_root, root, blob, note, work_s))


def ahead_of_round_zero(ctx: NodeContext, ev: HandledEvent) -> None:
    """This sampler's slot was assigned while the task is still filling (or being drawn): roll
    out round 0 with the initial policy while the other slots are claimed and drawn. Nothing when
    the initial policy is not at hand yet (encrypted inputs wait for the requester's keyring
    until the task is active)."""
    from workers.node.handlers.encrypted_inputs import InputsNotReady

    task = ctx.view.task(int(ev.args["taskId"]))
    if task.status not in (Status.OPEN, Status.DRAWING) or task.round != 0:
        return
    try:
        _roll_out(ctx, task, 0, int(ev.args["slot"]), ZERO32, checkpoint_bundle(ctx, task))
    except (InputsNotReady, ValueError, *STORE_RETRYABLE) as error:  # unusable inputs among them:
        # SampleCommit gets the policy again, with its retries, and reports what is wrong
        log.info("task %d round 0: not sampling ahead (%s: %s)", task.task_id, type(error).__name__, error)


def ahead_of_next_round(ctx: NodeContext, ev: HandledEvent) -> None:
    """Attest of round r: roll out round r+1 with the checkpoint the trainer revealed in round r
    while the validators judge it."""
    from workers.roles.trainer import verify_checkpoint

    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = ctx.view.task(task_id)
    # Still judged, or just accepted (the round's SampleCommit, queued behind this event, takes
    # the shard as it would have sampled it).
    judged = ((round_, Phase.ATTEST), (round_, Phase.ATTEST_REVEAL), (round_ + 1, Phase.SAMPLE_COMMIT))
    if task.status != Status.ACTIVE or (task.round, task.phase) not in judged or round_ + 1 >= task.num_rounds:
        return
    slot = my_slot(ctx, task_id, Role.SAMPLER, round_ + 1)
    trainer = next((s for s in ctx.view.submissions(task_id, round_)
                    if s.role == Role.TRAINER and s.revealed), None)
    if slot is None or trainer is None:
        return
    try:
        bundle = ctx.store.get(trainer.cid)
        verify_checkpoint(bundle, trainer.root)
        # of use until the next round's commit deadline at the latest: the rest of the validators'
        # phases, then that round's commit window
        with within_phase(ctx, task, f"round {round_ + 1} rollout ahead",
                          extra_s=task.reveal_window + task.commit_window):
            _roll_out(ctx, task, round_ + 1, slot, bytes(trainer.root), bundle)
    except (ValueError, *STORE_RETRYABLE) as error:  # a bad checkpoint (CheckpointMismatch among them)
        # is the validators' to judge; SampleCommit samples with whatever they accept
        log.info("task %d round %d: not sampling ahead (%s: %s)", task_id, round_ + 1, type(error).__name__, error)
