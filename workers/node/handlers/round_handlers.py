"""A sampler's and a trainer's phase work: roll out or train (planting the round's forced error
when its draw says so), store, commit, reveal, and open the draw in AttestReveal
(workers.node.handlers.table, WHO DOES WHAT; draws: workers.node.handlers.draws); a sampler's
rollout ahead is sample_ahead's.
The checkpoints a trainer keeps past its store's retention: one every `ppo.checkpoint_every` env
steps, and a completed task's final policy."""
from __future__ import annotations

import logging
import time

from workers.node.handlers.common import (
    ZERO32,
    checkpoint_bundle,
    current,
    fetch_content,
    in_phases,
    my_slot,
    on,
    or_task_ended,
    send,
    spec_of,
    submission,
)
from workers.node.handlers.context import NodeContext
from workers.node.handlers.draws import is_forced_now, open_draw, salt_for
from workers.node.market import throughput
from workers.node.market.deadlines import within_phase
from workers.node.observe import metrics
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Role, Status, commitment
from workers.storage import ContentNotFound

log = logging.getLogger(__name__)


_SAMPLER_PHASES = in_phases(Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL, Phase.ATTEST, Phase.ATTEST_REVEAL)
_TRAINER_PHASES = in_phases(Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL, Phase.ATTEST_REVEAL)


# urgent: every phase job of a sampler or trainer is work a round waits on, and goes ahead of the
# worker's other queued jobs (records of new tasks and slots, pay); a sampler's rollout ahead at
# Attest too, which the next round's commit takes (behind records, that commit could pass it)
# bounded: a commit or reveal after its phase's deadline is of no use (dispatch.py, DEADLINES); the
# rollout ahead at Attest bounds itself (sample_ahead)
@on("PhaseStarted", "sampler", when=_SAMPLER_PHASES, urgent=_SAMPLER_PHASES,
    bounded=in_phases(Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL))
def sampler_phase(ctx: NodeContext, ev: HandledEvent) -> None:
    phase = Phase(int(ev.args["phase"]))
    if phase == Phase.SAMPLE_COMMIT:
        commit_work(ctx, ev, Role.SAMPLER, Phase.SAMPLE_COMMIT)
    elif phase == Phase.SAMPLE_REVEAL:
        _reveal(ctx, ev, Role.SAMPLER, Phase.SAMPLE_REVEAL)
    elif phase == Phase.ATTEST:
        from workers.node.handlers.sample_ahead import ahead_of_next_round

        ahead_of_next_round(ctx, ev)
    elif phase == Phase.ATTEST_REVEAL:
        open_draw(ctx, int(ev.args["taskId"]), int(ev.args["round"]), Role.SAMPLER)


@on("PhaseStarted", "trainer", when=_TRAINER_PHASES, urgent=_TRAINER_PHASES,
    bounded=in_phases(Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL))
def trainer_phase(ctx: NodeContext, ev: HandledEvent) -> None:
    phase = Phase(int(ev.args["phase"]))
    if phase == Phase.TRAIN_COMMIT:
        commit_work(ctx, ev, Role.TRAINER, Phase.TRAIN_COMMIT)
    elif phase == Phase.TRAIN_REVEAL:
        _reveal(ctx, ev, Role.TRAINER, Phase.TRAIN_REVEAL)
    elif phase == Phase.ATTEST_REVEAL:
        open_draw(ctx, int(ev.args["taskId"]), int(ev.args["round"]), Role.TRAINER)


def commit_work(ctx: NodeContext, ev: HandledEvent, role: Role, phase: Phase) -> None:
    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = current(ctx, task_id, round_, phase)
    if task is None:
        return
    slot = my_slot(ctx, task_id, role, round_)
    if slot is None:
        return
    sub = submission(ctx, task_id, round_, role, slot)
    if sub.node == ctx.address and bytes(sub.commitment) != ZERO32:
        return  # committed before (this is a redelivery)
    # the work stops at the commit deadline (a commit after it reverts): the worker is freed
    with within_phase(ctx, task, f"round {round_} {phase.name.lower()}"):
        _commit_work(ctx, task, round_, role, phase, slot, ev.attempt)


def _commit_work(ctx: NodeContext, task, round_: int, role: Role, phase: Phase, slot: int, attempt: int) -> None:
    task_id = task.task_id
    spec = spec_of(ctx, task)
    started = time.time()
    forced = is_forced_now(ctx, task_id, round_)
    if role == Role.SAMPLER:
        from workers.node.handlers.sample_ahead import take

        ahead = take(ctx, task, round_, slot)
        if ahead is None:
            root, blob, note = sample(spec, task_id, round_, slot, checkpoint_bundle(ctx, task))
            rolled_out_s = time.time() - started
        else:
            root, blob, note = ahead.root, ahead.blob, {**ahead.note, "sampled_ahead_s": round(ahead.work_s, 3)}
            rolled_out_s = ahead.work_s
        if forced:
            root, blob = _planted(task_id, round_, root, blob)
        metrics.rolled_out("sampler", spec.env_id, note["steps"], rolled_out_s, note.pop("returns"))
        if ahead is None:
            throughput.observe(ctx, "rollout", spec, note["steps"], rolled_out_s)
    else:
        root, blob, note = _train(ctx, spec, task_id, round_, checkpoint_bundle(ctx, task), forced, attempt)
        if root is None:
            return  # nothing revealed to train on
        metrics.trained("trainer", int(note["stats"].get("samples", 0)), time.time() - started)
        throughput.observe(ctx, "update", spec, spec.ppo.update_epochs * int(note["stats"].get("samples", 0)),
                           note["update_s"])
        storing = time.time()
        ctx.store.put_many(note.pop("stored"))  # the trace, before the commitment that binds it
        note["store_trace_s"] = round(time.time() - storing, 3)
    # A trainer's checkpoint every `ppo.checkpoint_every` env steps is pinned: the task's restore
    # points outlive the retention that drops the other rounds' results.
    cid = ctx.store.put(blob, pin=role == Role.TRAINER and bool(note["stats"].get("checkpoint_due")))
    note.update(cid=cid, root="0x" + root.hex(), work_s=round(time.time() - started, 3), forced=forced)
    ctx.secrets.note(task_id, round_, role, "work", note)
    # before the send; the salt commits to the next round's draw
    secret = ctx.secrets.save_commitment(task_id, round_, role, root, cid, salt=salt_for(ctx, task, round_))
    if (secret.root, secret.cid) != (root, cid):
        log.warning("task %d round %d: committing the result stored earlier (%s), not the one just "
                    "computed (%s)", task_id, round_, secret.cid, cid)
    # computed here as the registry's reveal checks it (StateView.commitmentFor: no RPC round trip)
    sealed = commitment(task_id, round_, ctx.address, secret.root, secret.cid, secret.salt)
    if current(ctx, task_id, round_, phase) is None:
        return  # the phase ended while we worked
    send(ctx, ctx.deployment.registry.functions.commit(task_id, sealed), done=or_task_ended("AlreadyCommitted"))
    # The last commit of the phase starts the reveal phase in the same transaction: reveal now
    # rather than one watcher-and-queue hop later (the PhaseStarted handler then finds it done).
    try:
        _reveal_round(ctx, task_id, round_, role, REVEAL_PHASE[phase])
    except Exception as exc:  # noqa: BLE001 - the commit stands; the reveal phase's handler retries and reports
        log.warning("task %d round %d: reveal right after the commit failed (%s: %s); the reveal "
                    "phase's handler reveals", task_id, round_, type(exc).__name__, exc)


def sample(spec, task_id: int, round_: int, slot: int, prev: bytes | None):
    from workers.roles.sampler import sample_shard
    from workers.roles.trainer import unbundle_checkpoint

    policy = None if prev is None else unbundle_checkpoint(prev).policy_bytes
    shard = sample_shard(spec, task_id, round_, slot, policy)
    note = {"steps": shard.steps, "episodes": len(shard.episodes), "mean_return": shard.mean_return,
            "returns": [ep.total_reward for ep in shard.episodes if ep.end != "cut"]}
    return shard.root, shard.blob, note


def _planted(task_id: int, round_: int, root: bytes, blob: bytes) -> tuple[bytes, bytes]:
    """(root, blob) of the shard with the forced error planted in every episode. A blob that does
    not decode (only a broken sampler makes one) is committed as it is: validators reject it
    whether or not it carries the plant."""
    from workers.roles.plants import plant_shard
    from workers.roles.sampler import ShardMismatch, unbundle_shard

    try:
        planted = plant_shard(unbundle_shard(blob))
    except ShardMismatch as error:
        log.error("task %d round %d: forced, but the shard does not decode (%s): committed unplanted",
                  task_id, round_, error)
        return root, blob
    return planted.root, planted.blob


def _revealed_samplers(ctx: NodeContext, task_id: int, round_: int):
    return [s for s in ctx.view.submissions(task_id, round_) if s.role == Role.SAMPLER and s.revealed]


def _train_on_revealed(ctx: NodeContext, spec, task_id: int, round_: int, prev: bytes | None, forced: bool,
                       attempt: int = 1):
    """(CheckpointResult or None, slots left out, seconds of the update): the round's update on
    every revealed shard whose blob matches its root (a sampler's bad blob is left out, as an
    honest trainer does), and that could be fetched: a shard whose sampler is the only holder and
    has gone is missing data after a few deliveries (`fetch`), left out here as validators reject it."""
    from workers.roles.trainer import ShardError, train_round

    fetched = [(s.slot, bytes(s.root), fetch_content(ctx, s.cid, attempt))
               for s in _revealed_samplers(ctx, task_id, round_)]
    left_out = [slot for slot, _, blob in fetched if blob is None]
    for slot in left_out:
        log.warning("task %d round %d: leaving out sampler slot %d: its shard could not be fetched", task_id,
                    round_, slot)
    shards = [s for s in fetched if s[2] is not None]
    while shards:
        try:
            started = time.time()
            result = train_round(spec, task_id, round_, prev, shards, device=ctx.settings.trainer_device,
                                 forced=forced)
            return result, left_out, time.time() - started
        except ShardError as error:
            log.warning("task %d round %d: leaving out %s", task_id, round_, error)
            left_out.append(error.slot)
            shards = [s for s in shards if s[0] != error.slot]
    return None, left_out, 0.0


def _train(ctx: NodeContext, spec, task_id: int, round_: int, prev: bytes | None, forced: bool, attempt: int):
    started = time.time()
    result, left_out, update_s = _train_on_revealed(ctx, spec, task_id, round_, prev, forced, attempt)
    if result is None:
        return None, None, {}
    stats = {k: v for k, v in (result.stats or {}).items() if isinstance(v, (int, float, str))}
    return result.root, result.bundle, {"stats": stats, "left_out": left_out, "device": result.meta["device"],
                                        "stored": result.stored, "fetch_and_update_s": round(time.time() - started, 3),
                                        "update_s": update_s}


REVEAL_PHASE = {Phase.SAMPLE_COMMIT: Phase.SAMPLE_REVEAL, Phase.TRAIN_COMMIT: Phase.TRAIN_REVEAL}


def _reveal(ctx: NodeContext, ev: HandledEvent, role: Role, phase: Phase) -> None:
    _reveal_round(ctx, int(ev.args["taskId"]), int(ev.args["round"]), role, phase)


def _reveal_round(ctx: NodeContext, task_id: int, round_: int, role: Role, phase: Phase) -> None:
    """Reveals this node's commitment of the round if the task is in its reveal `phase` and it
    has not been revealed yet."""
    if current(ctx, task_id, round_, phase) is None:
        return
    m = ctx.view.membership(task_id, ctx.address)
    if not m.assigned or m.role != role:
        return
    sub = submission(ctx, task_id, round_, role, m.slot)
    if sub.node != ctx.address or bytes(sub.commitment) == ZERO32 or sub.revealed:
        return  # nothing committed this round, or revealed already
    secret = ctx.secrets.commitment(task_id, round_, role)
    if secret is None:
        raise RuntimeError(f"task {task_id} round {round_}: committed but the salt is not in "
                           f"{ctx.secrets.path}; the reveal is lost (the slot will be vacated)")
    send(ctx, ctx.deployment.registry.functions.reveal(task_id, secret.root, secret.cid, secret.salt),
         done=or_task_ended("AlreadyRevealed"))


@on("TaskSettled", "trainer", when=lambda args: int(args["status"]) == Status.COMPLETED)
def pin_final_policy(ctx: NodeContext, ev: HandledEvent) -> None:
    """A completed task's final policy (its checkpoint when it settled) is pinned by the trainer
    that stored it, so that the requester can fetch it after the retention has passed."""
    task_id = int(ev.args["taskId"])
    cid = ctx.view.task(task_id).checkpoint_cid
    if not cid:
        return
    try:
        ctx.store.pin(cid)
    except ContentNotFound:  # trained by another node (this node's slot changed hands), which keeps it
        log.info("task %d: final checkpoint %s was not stored by this node; not pinning it", task_id, cid)
        return
    log.info("task %d: pinned its final checkpoint %s", task_id, cid)
