"""The node's handler table: its handler modules, one concern a module (HANDLER_MODULES), and
the workers' warm-up hooks; importing this module registers every protocol handler in DISPATCH.

    assignment_handlers  claims of new and vacated slots, work at once in a slot got mid-phase,
                         the validator draw
    round_handlers       a sampler's and a trainer's phase work (sample_ahead: a rollout ahead;
                         draws: the forced-error draw committed, learned and opened)
    validator_handlers   a validator's early sampler checks, its verification and vote
    aggregate_handlers   the validators' BLS aggregate votes through the relay
    keeper_handlers      advancing a phase past its deadline, failing a task left unfilled
    dispute_handlers     juror duty and held pay
    detector_handlers    disputing a verdict that let through work its own checks rejected
    common               what they share (sending, the task's spec and checkpoint, slots, votes)
    context              what each handler is given: the node's NodeContext (common.on)

WHO DOES WHAT (handlers registered in DISPATCH per (event, role)):

- TaskCreated, sampler/trainer: fetch the spec by CID (digest checked), check eligibility, claim
  (rate limited: at most NodeConfig.rate_per_s claims a second, after a burst).
  A lost race (NoVacantSlot, AlreadyAssigned, WrongStatus) is not an error.
- SlotVacated, sampler/trainer: another node's slot of its role was vacated: claim it likewise.
- SlotAssigned, sampler/trainer: first, while its first round has not begun, commitDraw for it
  (draws.commit_first_draw; later rounds' draws are committed by each reveal's salt).
- SlotAssigned, every role: this node got a slot of an active task during its role's work phase
  (SampleCommit / TrainCommit / Attest, where a validator seals its vote): do that phase's work
  now (its PhaseStarted came first).
  A sampler's slot of a task still filling: roll out round 0's shard ahead (sample_ahead).
- DrawArmed, validator (the keeper): drawValidators, at activation and to replace a validator,
  as soon as seedBlock is mined (the draw lands in a later block; send_draw waits up to
  keeper_turns.WAIT_IN_PLACE_S for it, then DrawNotReady is retried with Celery's backoff), or
  in the node's keeper turn after it (keeper_turns: on a chain not on this machine, about one
  validator of the pool sends per turn); on a dev chain with automine someone must mine blocks.
- PhaseStarted:
  SampleCommit, sampler  roll out the shard with the task's current checkpoint (or take the one
                         rolled out ahead with it), plant the forced error in every episode if
                         the round's draw forces it (draws.is_forced_now), store, commit with
                         the salt that commits its next draw; the phase's last commit reveals
                         at once
  SampleReveal, sampler  reveal (root, cid, salt) from the secrets DB, unless revealed already
  TrainCommit,  trainer  fetch the revealed shards, train_round (planting the forced error in
                         every stored state when the draw forces it), store (trace states, trace,
                         bundle: pinned when ppo.checkpoint_every env steps have passed since
                         the last one kept), commit, reveal
  TrainReveal,  trainer  reveal, unless revealed already
  Attest,       sampler  roll out the next round's shard ahead with the trainer's revealed
                         checkpoint, held in the process for SampleCommit
                         (workers.node.handlers.sample_ahead)
  TrainCommit,  validator  fetch the revealed shards and judge them (verify_samplers) while the
                         trainer trains, kept in the process for Attest (a job handled
                         after the trainer's commit still judges them, until its vote)
  Attest,       validator  fetch the shards not judged yet and the bundle, verify_round with its
                         own secret challenge seed (it fetches the trainer's trace and only the
                         challenged states), then seal the bitmap: store it with a salt in the
                         secrets DB, commitAttestation; the phase's last commit opens at once
  AttestReveal, validator  open the sealed vote: sign the bitmap and post it with the salt to the
                         attestation relay (workers.node.handlers.relay); the round's aggregator
                         aggregates, the others schedule an AttestFallback (SPECIFICATION.md
                         5.5.2); without a relay or a registered BLS key, attest(round, bitmap,
                         salt)
  AttestReveal, sampler/trainer  open this round's draw (openDraw), when it revealed under one
  every phase,  validator  (keeper) schedule a DeadlineReached check at the phase's deadline
  (PhaseStarted reaches only the nodes that hold a slot in the task: workers.node.queues.interest,
  and a sampler's or trainer's worker only for the phases above: the other phases are not queued)
- RoundFinalized, validator: submissions its own checks rejected and the verdict did not (Accepted:
  it dissented; Inconclusive): open a dispute naming the failing item, with the minimum bond, and
  prove a sampler's episode on-chain where the chain can check it (detector_handlers).
- TaskSettled, trainer: a task it held a slot in completed: pin its final checkpoint if this node
  stored it (so that it outlives the store's retention).
- DeadlineReached, validator: a synthetic event this module schedules (a delayed Celery task,
  countdown = deadline - protocolTime + 1 s, capped at half the visibility timeout and
  rescheduled when early): if the task is still in that round and phase, advance().
- AggregateCheck, AttestFallback, validator: synthetic, the relay's aggregation and its fallback
  (workers.node.handlers.aggregate_handlers).
- TaskCreated, validator (keeper): schedule ClaimDeadlineReached FIRST_CLAIM_CHECK_S ahead (no
  chain read while the claims are made), which reschedules itself to the task's claim deadline
  while the task is unfilled; if it is still Open or Drawing then, advance() fails it (the
  requester is refunded), in the node's keeper turn (rescheduled to it once, turn_waited).

Every handler is idempotent: it reads the chain first (slot held? already committed/revealed/
attested?), stores content-addressed artifacts, persists its salt before sending, and counts the
chain's "already done" reverts as done.
"""
from __future__ import annotations

import os

# importing them registers their handlers in DISPATCH (a test or tool that imports this module
# gets the node's whole table; a worker imports each of HANDLER_MODULES itself)
from workers.node.handlers import (  # noqa: F401
    aggregate_handlers,
    assignment_handlers,
    detector_handlers,
    dispute_handlers,
    keeper_handlers,
    round_handlers,
    validator_handlers,
)
from workers.node.handlers.context import NodeContext
from workers.node.observe import logs

HANDLER_MODULES = ("workers.node.handlers.table",  # first: the workers' warm-up hooks
                   "workers.node.handlers.assignment_handlers", "workers.node.handlers.round_handlers",
                   "workers.node.handlers.validator_handlers", "workers.node.handlers.aggregate_handlers",
                   "workers.node.handlers.keeper_handlers", "workers.node.handlers.dispute_handlers",
                   "workers.node.handlers.detector_handlers")
"""The node's handler modules: this one, whose `warm()` and `warm_claims()` the worker calls before
its first message (workers.node.processes.worker looks for them in each handler module), then one
module per concern."""


def warm() -> None:
    """Called by each worker before its first message (workers.node.processes.worker): the roles'
    compute modules (torch, gymnasium) and their first-use costs (workers.roles.warmup), inherited
    by the pool processes forked after, and the node's context (keystore, deployment check): a
    single-process worker's own; in a prefork worker, the one whose account its pool processes
    borrow when they build theirs at their first job (NodeContext.current)."""
    import workers.node.handlers.encrypted_inputs  # noqa: F401 - every role's first round reads its checkpoint
    import workers.node.handlers.relay  # noqa: F401 - a validator's vote
    import workers.node.handlers.sample_ahead  # noqa: F401 - a sampler's next shard
    import workers.roles.sampler  # noqa: F401
    import workers.roles.trainer  # noqa: F401
    import workers.roles.validator  # noqa: F401
    from workers.roles import warmup

    warmup.exercise(update=os.environ.get(logs.PROCESS_ENV) != "sampler")  # this worker's role
    NodeContext.current()


def warm_claims() -> None:
    """The claim lane's warm-up (workers.node.processes.worker): a claim computes nothing but checks
    the task's spec (workers.spec: the environment it names, so gymnasium; never torch)."""
    import workers.spec  # noqa: F401

    NodeContext.current()
