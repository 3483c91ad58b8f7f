"""Work a node does before its phase starts, so that a round's critical path does not wait for it.

The protocol's phases follow one another (SPECIFICATION 5): round r+1's samplers roll out only
once round r is attested, and a validator verifies only once the trainer revealed. Both inputs
are on the chain earlier, and final unless a quorum rejects them:

- SAMPLING AHEAD. Round r+1 rolls out under the checkpoint round r's trainer revealed, if the
  validators accept it. So when round r's Attest phase starts (the trainer's reveal started it),
  a sampler holding a slot in round r+1 fetches that checkpoint (checked against its revealed
  root), rolls out its shard of round r+1, stores it and notes the root of the checkpoint it
  sampled under with the shard's root and CID. At round r+1's SampleCommit it commits that shard
  when the task's checkpoint root is the one noted: a shard is a deterministic function of task,
  round, slot and policy, so it is the very shard it would roll out then. Otherwise (the trainer
  was rejected) it rolls out afresh. An Attest event handled late, once round r+1's SampleCommit
  began, still samples (under the accepted checkpoint): its SampleCommit job is queued behind.
- VERIFYING SAMPLERS AHEAD. When TrainCommit starts every sampler has revealed, and the trainer
  trains on one core. A validator judges the revealed shards then (verify_samplers, with the
  round's secret challenge seed) and notes each verdict with the root it judged; at Attest it
  passes the verdicts whose roots are those revealed to verify_round, which then verifies only
  the trainer. An event handled late (TrainReveal or Attest begun) still judges them: the
  Attest job is queued behind it.

Either is only a head start: no note, a note that does not match, or a failure ahead (logged)
means the work is done in its phase as before. The notes live in the node's secrets DB
(`Secrets.note`), so any of the node's worker processes finds them; with several processes per
worker (`--concurrency`) a phase's job may run beside the work ahead and redo it. Work ahead
computes in a background process at the lowest CPU priority (workers.node.priority.in_background):
on a busy host it takes only the CPU that the round's due work (the trainer's update, the
validators' Attest) leaves idle."""

from __future__ import annotations

import json
import logging
import struct
import time

from workers.node import metrics
from workers.node.context import NodeContext
from workers.node.priority import in_background
from workers.protocol import Phase, Role, Status
from workers.storage.store import RETRYABLE as STORE_RETRYABLE

log = logging.getLogger(__name__)

SHARD_AHEAD = "shard-ahead"
VERDICTS_AHEAD = "samplers-ahead"
AFTER_SAMPLERS = (Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL, Phase.ATTEST)
"""The phases of a round in which every sampler that will reveal has revealed."""


# -- samplers ----------------------------------------------------------------------------------

def sample_ahead(ctx: NodeContext, task_id: int, round_: int) -> None:
    """In round_'s Attest phase: roll out this node's shard of round_ + 1 under the checkpoint
    round_'s trainer revealed, store it and note it (module doc)."""
    from workers.node.handlers import ZERO32, _sample, _submission, my_slot, spec_of
    from workers.roles.trainer import CheckpointMismatch, verify_checkpoint

    task = ctx.view.task(task_id)
    if task.status != Status.ACTIVE or round_ + 1 >= task.num_rounds:
        return
    # Still ahead, or round_ + 1 began while this event waited (then its SampleCommit job, queued
    # behind this one, commits the shard): not later, when the shard is committed or late.
    if (task.round, task.phase) not in ((round_, Phase.ATTEST), (round_ + 1, Phase.SAMPLE_COMMIT)):
        return
    slot = my_slot(ctx, task_id, Role.SAMPLER, round_ + 1)
    if slot is None or bytes(_submission(ctx, task_id, round_ + 1, Role.SAMPLER, slot).commitment) != ZERO32:
        return  # not a sampler of round_ + 1, or committed already (by a worker process in parallel)
    trainer = next((s for s in ctx.view.submissions(task_id, round_) if s.role == Role.TRAINER and s.revealed), None)
    if trainer is None or (task.round > round_ and bytes(task.checkpoint_root) != bytes(trainer.root)):
        return  # no checkpoint revealed, or it was rejected: round_ + 1 samples under the old one
    noted = ctx.secrets.noted(task_id, round_ + 1, Role.SAMPLER, SHARD_AHEAD)
    if noted is not None and noted["policy_root"] == bytes(trainer.root).hex():
        return  # a redelivery: sampled already
    try:
        bundle = ctx.store.get(trainer.cid)
        verify_checkpoint(bundle, bytes(trainer.root))
    except (*STORE_RETRYABLE, CheckpointMismatch) as exc:
        log.info("task %d: not sampling round %d ahead: the revealed checkpoint: %s: %s", task_id, round_ + 1,
                 type(exc).__name__, exc)
        return
    spec = spec_of(ctx, task)
    started = time.time()
    root, blob, note = _unpack_shard(in_background(_packed_shard, _sample, spec, task_id, round_ + 1, slot, bundle))
    metrics.rolled_out("sampler", spec.env_id, note["steps"], time.time() - started, note.pop("returns"))
    cid = ctx.store.put(blob)
    ctx.secrets.note(task_id, round_ + 1, Role.SAMPLER, SHARD_AHEAD, {
        **note, "policy_root": bytes(trainer.root).hex(), "root": root.hex(), "cid": cid, "slot": slot,
        "work_s": round(time.time() - started, 3)})
    log.info("task %d: sampled round %d ahead under checkpoint 0x%s", task_id, round_ + 1, bytes(trainer.root).hex()[:16])


def shard_ahead(ctx: NodeContext, task, round_: int, slot: int) -> tuple[bytes, str, dict] | None:
    """(root, cid, note) of the shard sampled ahead for this round and slot under the task's
    current checkpoint, if there is one and the store still holds it; else None."""
    noted = ctx.secrets.noted(task.task_id, round_, Role.SAMPLER, SHARD_AHEAD)
    if noted is None or noted["slot"] != slot or noted["policy_root"] != bytes(task.checkpoint_root).hex():
        return None
    if not ctx.store.has(noted["cid"]):
        return None
    note = {k: v for k, v in noted.items() if k not in ("policy_root", "root", "cid", "slot")}
    return bytes.fromhex(noted["root"]), noted["cid"], {**note, "ahead": True}


# -- validators --------------------------------------------------------------------------------

def verify_samplers_ahead(ctx: NodeContext, task_id: int, round_: int) -> None:
    """In round_'s TrainCommit phase: judge the revealed shards and note the verdicts (module
    doc). A shard the store cannot give now is left to the Attest phase."""
    from workers.node.handlers import _voted, checkpoint_bundle, my_slot, spec_of
    from workers.roles.validator import verify_samplers

    task = ctx.view.task(task_id)
    # Later in the round too (the trainer may have revealed while this event waited): the Attest
    # job, queued behind this one, then verifies only the trainer.
    if task.status != Status.ACTIVE or task.round != round_ or task.phase not in AFTER_SAMPLERS:
        return
    slot = my_slot(ctx, task_id, Role.VALIDATOR, round_)
    if slot is None or _voted(ctx, task_id, round_, slot):
        return
    samplers = []
    for s in ctx.view.submissions(task_id, round_):
        if s.role != Role.SAMPLER or not s.revealed:
            continue
        try:
            samplers.append((s.slot, bytes(s.root), ctx.store.get(s.cid)))
        except STORE_RETRYABLE as exc:
            log.info("task %d round %d: sampler slot %d left to the Attest phase: %s", task_id, round_, s.slot, exc)
    if not samplers:
        return
    started = time.time()
    verdicts = _unpack_verdicts(in_background(_packed_verdicts, verify_samplers, spec_of(ctx, task), task_id, round_,
                                              checkpoint_bundle(ctx, task), samplers,
                                              ctx.secrets.challenge_seed(task_id, round_)))
    roots = {slot_: root for slot_, root, _ in samplers}
    ctx.secrets.note(task_id, round_, Role.VALIDATOR, VERDICTS_AHEAD, {
        "checkpoint_root": bytes(task.checkpoint_root).hex(), "work_s": round(time.time() - started, 3),
        "samplers": {str(k): [roots[k].hex(), j.accepted, j.reason] for k, j in verdicts.items()}})


def verdicts_ahead(ctx: NodeContext, task, round_: int, samplers) -> dict:
    """The verdicts noted ahead for this round whose roots are those of `samplers` ((slot, root,
    blob) as revealed), under the task's current checkpoint: {slot: Judgement}."""
    from workers.roles.validator import Judgement

    noted = ctx.secrets.noted(task.task_id, round_, Role.VALIDATOR, VERDICTS_AHEAD)
    if noted is None or noted["checkpoint_root"] != bytes(task.checkpoint_root).hex():
        return {}
    out = {}
    for slot, root, _ in samplers:
        judged = noted["samplers"].get(str(slot))
        if judged is not None and judged[0] == bytes(root).hex():
            out[slot] = Judgement(bool(judged[1]), judged[2])
    return out


# -- across the background process (workers.node.priority.in_background) -----------------------

def _packed_shard(sample, *args) -> bytes:
    root, blob, note = sample(*args)
    note = json.dumps(note).encode()
    return bytes(root) + struct.pack("<I", len(note)) + note + bytes(blob)


def _unpack_shard(data: bytes) -> tuple[bytes, bytes, dict]:
    (n,) = struct.unpack_from("<I", data, 32)
    return data[:32], data[36 + n:], json.loads(data[36:36 + n])


def _packed_verdicts(verify, *args) -> bytes:
    return json.dumps({slot: [j.accepted, j.reason] for slot, j in verify(*args).items()}).encode()


def _unpack_verdicts(data: bytes) -> dict:
    from workers.roles.validator import Judgement

    return {int(slot): Judgement(accepted, reason) for slot, (accepted, reason) in json.loads(data).items()}
