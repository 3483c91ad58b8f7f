"""The node's chain-event handlers for every role, and the watcher entry point (the validators'
aggregate votes are in workers.node.aggregate_handlers, the disputes' in dispute_handlers).

ENTRY POINTS (what the CLI and the demo use):

    from workers.node.config import NodeConfig
    from workers.node.context import node_extra
    from workers.node.handlers import node_config, supervisor

    config = node_config(redis_url="redis://127.0.0.1:16401/3", node_name="sampler1",
                         extra=node_extra(rpc_url=..., ws_url=..., deployment="deployments/x.json",
                                          node_dir=node_dir, store_dir=shared_store_dir))
    sup = supervisor(config, roles=("sampler",))   # + env={"DECENTRL_KEYSTORE_PASSWORD": ...}
    sup.start()  ...  sup.check()  ...  sup.stop()

`node_config` is NodeConfig with handler_modules=("workers.node.handlers",); `supervisor` starts
one Celery worker per role plus the watcher `workers.node.handlers:watch`. Each node needs its
own Redis db (or server): Celery's queue names are not namespaced. The node's account is the
(single) keystore in node_dir/keystore, unlocked with $DECENTRL_KEYSTORE_PASSWORD; it must hold
ETH for gas and stake for its roles (`decentrl node stake`) before it can claim or be drawn.
What a node computed each round is in node_dir/secrets.sqlite (`Secrets.notes`).

WHO DOES WHAT (handlers registered in DISPATCH per (event, role)):

- TaskCreated, sampler/trainer: fetch the spec by CID (digest checked), check eligibility, claim
  (rate limited: at most NodeConfig.rate_per_s claims a second, after a burst).
  A lost race (NoVacantSlot, AlreadyAssigned, WrongStatus) is not an error.
- SlotVacated, sampler/trainer: another node's slot of its role was vacated: claim it likewise.
- SlotAssigned, every role: this node got a slot of an active task during its role's work phase
  (SampleCommit / TrainCommit / Attest): do that phase's work now (its PhaseStarted came first).
  A sampler's slot of a task still filling: roll out round 0's shard ahead (sample_ahead).
- DrawArmed, validator (the keeper): drawValidators, at activation and to replace a validator,
  as soon as seedBlock is mined (the draw lands in a later block; send_draw waits up to
  DRAW_WAIT_S for it, then DrawNotReady is retried with Celery's backoff); on a dev chain with
  automine someone must mine blocks.
- PhaseStarted:
  SampleCommit, sampler  roll out the shard with the task's current checkpoint (or take the one
                         rolled out ahead with it), store, commit; the phase's last commit
                         reveals at once
  SampleReveal, sampler  reveal (root, cid, salt) from the secrets DB, unless revealed already
  TrainCommit,  trainer  fetch the revealed shards, train_round, store (trace states, trace,
                         bundle), commit, reveal
  TrainReveal,  trainer  reveal, unless revealed already
  Attest,       sampler  roll out the next round's shard ahead with the trainer's revealed
                         checkpoint, held in the process for SampleCommit
                         (workers.node.sample_ahead)
  TrainCommit,  validator  fetch the revealed shards and judge them (verify_samplers) while the
                         trainer trains, kept in the process for Attest (a job handled
                         after the trainer's commit still judges them, until its vote)
  Attest,       validator  fetch the shards not judged yet and the bundle, verify_round with its
                         own secret challenge seed (it fetches the trainer's trace and only the
                         challenged states), then vote the bitmap: sign it and post it to the
                         attestation relay (workers.node.relay); the round's aggregator
                         aggregates, the others schedule an AttestFallback (SPECIFICATION.md
                         5.5.2); without a relay or a registered BLS key, attest(bitmap)
  every phase,  validator  (keeper) schedule a DeadlineReached check at the phase's deadline
  (PhaseStarted reaches only the nodes that hold a slot in the task: workers.node.interest,
  and a sampler's or trainer's worker only for the phases above: the other phases are not queued)
- DeadlineReached, validator: a synthetic event this module schedules (a delayed Celery task,
  countdown = deadline - protocolTime + 1 s, capped at half the visibility timeout and
  rescheduled when early): if the task is still in that round and phase, advance().
- AggregateCheck, AttestFallback, validator: synthetic, the relay's aggregation and its fallback
  (workers.node.aggregate_handlers).
- TaskCreated, validator (keeper): schedule ClaimDeadlineReached FIRST_CLAIM_CHECK_S ahead (no
  chain read while the claims are made), which reschedules itself to the task's claim deadline
  while the task is unfilled; if it is still Open or Drawing then, advance() fails it (the
  requester is refunded).

Every handler is idempotent: it reads the chain first (slot held? already committed/revealed/
attested?), stores content-addressed artifacts, persists its salt before sending, and counts the
chain's "already done" reverts as done.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import time

from workers.chain.errors import DroppedTransaction, TxReverted
from workers.node import logs, metrics
from workers.node.config import NodeConfig
from workers.node.context import NodeContext
from workers.node.dispatch import DISPATCH, HandledEvent, RetryableError, declare_retryable
from workers.node.held import Held
from workers.protocol import Phase, Role, Status
from workers.storage.store import RETRYABLE as STORE_RETRYABLE

log = logging.getLogger(__name__)

HANDLER_MODULE = "workers.node.handlers"
HANDLER_MODULES = (HANDLER_MODULE,
                   "workers.node.aggregate_handlers",  # the validators' BLS aggregate votes
                   "workers.node.dispute_handlers")  # disputes: juror duty, held pay
WATCHER = "workers.node.handlers:watch"
ZERO32 = b"\x00" * 32

declare_retryable(*STORE_RETRYABLE, DroppedTransaction)
try:  # web3's HTTP transport
    import requests

    declare_retryable(requests.exceptions.ConnectionError, requests.exceptions.Timeout)
except ImportError:  # pragma: no cover
    pass


# -- entry points ------------------------------------------------------------------------------

def node_config(redis_url: str, node_name: str, extra: dict, **settings) -> NodeConfig:
    """A NodeConfig whose workers load these handlers (settings: any other NodeConfig field)."""
    return NodeConfig(redis_url=redis_url, node_name=node_name, handler_modules=HANDLER_MODULES,
                      extra=extra, **settings)


def warm() -> None:
    """Called by each worker before its first message (workers.node.worker): the roles' compute
    modules (torch, gymnasium) and their first-use costs (workers.roles.warmup), inherited by the
    pool processes forked after, and, in a single-process worker, the node's context (keystore,
    deployment check). A prefork pool's children build their own context after the fork."""
    import workers.node.encrypted_inputs  # noqa: F401 - every role's first round reads its checkpoint through it
    import workers.node.relay  # noqa: F401 - a validator's vote
    import workers.node.sample_ahead  # noqa: F401 - a sampler's next shard
    import workers.roles.sampler  # noqa: F401
    import workers.roles.trainer  # noqa: F401
    import workers.roles.validator  # noqa: F401
    from workers.roles import warmup

    warmup.exercise(update=os.environ.get(logs.PROCESS_ENV) != "sampler")  # this worker's role
    NodeContext.current()


def warm_claims() -> None:
    """The claim lane's warm-up (workers.node.worker): a claim computes nothing but checks the
    task's spec (workers.spec: the environment it names, so gymnasium; never torch)."""
    import workers.spec  # noqa: F401

    NodeContext.current()


def supervisor(config: NodeConfig, roles, **kwargs):
    """A Supervisor for one node: a Celery worker per role, the claim lane and the chain watcher."""
    from workers.node.supervisor import Supervisor

    return Supervisor(config, config.extra["node_dir"], tuple(roles), watcher=WATCHER, **kwargs)


def _start_store_gc(extra: dict) -> None:
    """The node's store lifecycle: drop unpinned results older than retention_s, every
    gc_interval_s, in a thread of the watcher (one per node)."""
    import threading

    from workers.storage.store import DEFAULT_RETENTION, gc_forever, open_store

    store = open_store(extra.get("ipfs_api"), extra["store_dir"],
                       retention=float(extra.get("retention_s") or DEFAULT_RETENTION))
    threading.Thread(target=gc_forever, args=(store, float(extra.get("gc_interval_s") or 3600.0), threading.Event()),
                     daemon=True, name="store-gc").start()


def watch(enqueue) -> None:
    """The watcher process's body (Supervisor): follow TaskRegistry's events with a cursor in
    node_dir/watcher.sqlite and enqueue each one this node has an interest in (workers.node.
    interest) for its roles; meanwhile run the store's retention GC (_start_store_gc). Runs until
    killed."""
    from workers.chain.deployment import load_deployment
    from workers.chain.keystore import find_keystore, keystore_address
    from workers.chain.rpc import http_w3
    from workers.chain.watcher import EventWatcher, SqliteCursor
    from workers.node.interest import Interest

    config = NodeConfig.from_env()
    extra = config.extra
    w3 = http_w3(extra["rpc_url"])
    deployment = load_deployment(w3, path=extra["deployment"])
    cursor = SqliteCursor(f"{extra['node_dir']}/watcher.sqlite", "registry")
    address = keystore_address(find_keystore(extra["node_dir"], extra.get("address")))
    interest = Interest(f"{extra['node_dir']}/watcher.sqlite", address)
    _start_store_gc(extra)
    ws = extra.get("ws_url")

    block_time = _block_timestamps(w3)

    def deliver(event):
        if not interest.wants(event.name, event.args):
            return []
        with logs.event_context(event.name, event.args):
            queues = enqueue(event)
            stamp = event.timestamp if event.timestamp is not None else block_time(event.block)
            metrics.event_delivered(event.name, stamp)
            log.info("%s at block %d (%s) queued for %s", event.name, event.block, event.key,
                     ", ".join(queues) or "no role (done before)")
            return queues

    # the rest of the events (most of a round's: commits, reveals, votes, verdicts) no handler of
    # this node takes: the watcher passes them over undecoded
    events = getattr(enqueue, "events", None)
    watcher = EventWatcher(deployment, deliver, cursor, contracts=("TaskRegistry", "DisputeManager"),
                           names=None if events is None else events | Interest.FOLLOWS,
                           ws_url=ws, mode="ws" if ws else "poll",
                           confirmations=int(extra.get("confirmations") or 0),
                           poll_interval=float(extra.get("poll_interval") or 0.05))
    watcher.run()


def _block_timestamps(w3):
    """block number -> its timestamp (the last few cached), or None when it cannot be read: the
    watcher's sync latency is measured from it and must never stop the watcher. Only for a node
    whose logs lack blockTimestamp (ChainEvent.timestamp)."""
    cache: dict[int, float] = {}

    def timestamp(number: int) -> float | None:
        if number not in cache:
            try:
                cache[number] = float(w3.eth.get_block(number)["timestamp"])
            except Exception as exc:  # noqa: BLE001 - a metric's input; the event still goes out
                log.debug("block %d timestamp unavailable: %s", number, exc)
                return None
            while len(cache) > 64:
                cache.pop(min(cache))
        return cache[number]

    return timestamp


# -- helpers -----------------------------------------------------------------------------------

GAS_FLOOR = 5_000_000
"""Least gas of a protocol transaction. Its estimate is taken before it is mined; if another
node's transaction lands first, ours may be the one that ends the phase (the last attestation
finalizes the round and may settle the task), which costs far more than estimated: the
RoundLogic delegatecall then runs out of gas and the transaction reverts without data. Only the
gas used is paid."""


def _send(ctx: NodeContext, call, done: tuple[str, ...] = (), estimate_at: str | None = None):
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
    from workers.spec import parse

    key = (cid, digest)
    if key not in ctx._specs:
        ctx._specs[key] = parse(ctx.store.get(cid), digest=digest)
    return ctx._specs[key]


def checkpoint_bundle(ctx: NodeContext, task) -> bytes | None:
    """The task's current checkpoint bundle (checked against checkpointRoot). Before any: the
    initial bundle of its encrypted inputs (workers.node.encrypted_inputs), else None."""
    from workers.node.encrypted_inputs import initial_bundle
    from workers.roles.trainer import verify_checkpoint

    if not task.checkpoint_cid:
        return initial_bundle(ctx, task, spec_of(ctx, task))
    bundle = ctx.store.get(task.checkpoint_cid)
    verify_checkpoint(bundle, task.checkpoint_root)
    return bundle


def my_slot(ctx: NodeContext, task_id: int, role: Role, round_: int):
    """This node's slot of `role` in the task if it works in `round_`, else None."""
    m = ctx.view.membership(task_id, ctx.address)
    if not m.assigned or m.role != role:
        return None
    slot = ctx.view.read(ctx.deployment.registry, "slotOf", task_id, role, m.slot)
    return m.slot if slot.sinceRound <= round_ else None


def _submission(ctx: NodeContext, task_id: int, round_: int, role: Role, slot: int):
    return ctx.view.read(ctx.deployment.registry, "submissionOf", task_id, round_, role, slot)


def _voted(ctx: NodeContext, task_id: int, round_: int, slot: int) -> bool:
    """Whether validator `slot` has voted in the round (alone or in an aggregate)."""
    return ctx.view.read(ctx.deployment.registry, "attestationOf", task_id, round_, slot).voted


def _current(ctx: NodeContext, task_id: int, round_: int, *phases: Phase):
    """The task if it is active in this round and in one of `phases`, else None (the event is stale)."""
    task = ctx.view.task(task_id)
    if task.status != Status.ACTIVE or task.round != round_ or task.phase not in phases:
        return None
    return task


# -- assignment --------------------------------------------------------------------------------

INELIGIBLE = ("NodePaused", "InsufficientStake", "ReputationTooLow")


def _claim(ev: HandledEvent, role: Role) -> None:
    """Claims a slot of `role`. Claims race, so the fast path checks only the task's spec (it
    must be fetchable and match its digest before the node commits stake to it) and lets
    claimSlot's own checks decide the rest: a lost race, a slot already ours, the requester's
    own task, a task no longer open and an ineligible node (stake, reputation, paused; logged
    with the reason) all revert at the gas estimate, before anything is sent. A TaskCreated
    carries the spec and the requester, so a new task is claimed without reading it first."""
    ctx = NodeContext.current()
    task_id = int(ev.args["taskId"])
    if ev.name == "TaskCreated":
        if ev.args["requester"] == ctx.address:
            return
        spec_by(ctx, ev.args["specCid"], bytes.fromhex(ev.args["specDigest"][2:]))
    else:
        task = ctx.view.task(task_id)
        if task.status not in (Status.OPEN, Status.ACTIVE) or task.requester == ctx.address:
            return
        filled = task.filled_samplers if role == Role.SAMPLER else int(task.trainer_filled)
        if filled == task.slot_count(role):
            return  # lost the race already: no estimate needed to learn NoVacantSlot
        spec_of(ctx, task)  # a task whose spec cannot be fetched or is corrupt is not taken
    try:
        _send(ctx, ctx.deployment.registry.functions.claimSlot(task_id, role),
              done=("NoVacantSlot", "AlreadyAssigned", "WrongStatus", "DeadlinePassed", "RequesterCannotWork"))
    except TxReverted as exc:
        if exc.error.name not in INELIGIBLE:
            raise
        log.warning("task %d: not claiming the %s slot: %s", task_id, role.name.lower(),
                    ctx.view.eligibility(ctx.address, role).reason or exc.error.name)


@DISPATCH.on("TaskCreated", "sampler", new_task=True)
def claim_sampler(ev: HandledEvent) -> None:
    _claim(ev, Role.SAMPLER)


@DISPATCH.on("TaskCreated", "trainer", new_task=True)
def claim_trainer(ev: HandledEvent) -> None:
    _claim(ev, Role.TRAINER)


def _reclaim(ev: HandledEvent, role: Role) -> None:
    """A slot of `role` was vacated (missed, rejected): claim it, unless it was ours."""
    ctx = NodeContext.current()
    if Role(int(ev.args["role"])) == role and ev.args["node"] != ctx.address:
        _claim(ev, role)


@DISPATCH.on("SlotVacated", "sampler", new_task=True)
def reclaim_sampler(ev: HandledEvent) -> None:
    _reclaim(ev, Role.SAMPLER)


@DISPATCH.on("SlotVacated", "trainer", new_task=True)
def reclaim_trainer(ev: HandledEvent) -> None:
    _reclaim(ev, Role.TRAINER)


WORK_PHASE = {Role.SAMPLER: Phase.SAMPLE_COMMIT, Role.TRAINER: Phase.TRAIN_COMMIT, Role.VALIDATOR: Phase.ATTEST}


def _joined(ev: HandledEvent, role: Role, work, before_active=None) -> None:
    """This node got a slot of an active task during its role's work phase (a vacant slot
    claimed, a validator drawn as a replacement): it works in this round, but the phase's
    PhaseStarted came before it held the slot, so do that phase's work now. A slot of a task
    that is not active yet goes to `before_active`, if given."""
    ctx = NodeContext.current()
    if Role(int(ev.args["role"])) != role or ev.args["node"] != ctx.address:
        return
    task = ctx.view.task(int(ev.args["taskId"]))
    if task.status == Status.ACTIVE and task.phase == WORK_PHASE[role]:
        work(dataclasses.replace(ev, args={**ev.args, "round": task.round, "phase": int(task.phase)}))
    elif task.status in (Status.OPEN, Status.DRAWING) and before_active is not None:
        before_active(ev)


@DISPATCH.on("SlotAssigned", "sampler")
def sampler_joined(ev: HandledEvent) -> None:
    from workers.node.sample_ahead import ahead_of_round_zero

    _joined(ev, Role.SAMPLER, lambda e: _commit_work(e, Role.SAMPLER, Phase.SAMPLE_COMMIT),
            before_active=ahead_of_round_zero)


@DISPATCH.on("SlotAssigned", "trainer")
def trainer_joined(ev: HandledEvent) -> None:
    _joined(ev, Role.TRAINER, lambda e: _commit_work(e, Role.TRAINER, Phase.TRAIN_COMMIT))


@DISPATCH.on("SlotAssigned", "validator")
def validator_joined(ev: HandledEvent) -> None:
    _joined(ev, Role.VALIDATOR, _attest)


DRAW_WAIT_S = 3.0
"""How long the draw keeper waits in place for the block after the seed block."""


@DISPATCH.on("DrawArmed", "validator", urgent=lambda args: True)  # the task's start waits on its draw
def draw(ev: HandledEvent) -> None:
    ctx = NodeContext.current()
    task_id = int(ev.args["taskId"])
    task = ctx.view.task(task_id)
    if task.status not in (Status.DRAWING, Status.ACTIVE) or task.filled_validators == task.num_validators:
        return  # drawn already (a draw also re-arms during a task, to replace a validator)
    send_draw(ctx, int(ev.args["seedBlock"]), ctx.deployment.registry.functions.drawValidators(task_id),
              done=("WrongStatus", "NoVacancy", "DeadlinePassed"))


def send_draw(ctx: NodeContext, seed_block: int, call, done: tuple[str, ...]):
    """Sends a draw (drawValidators, drawJurors), whose seed is the hash of seedBlock, so it must
    run in a later block. A transaction sent once seedBlock is the chain's head lands in a later
    block, so the draw goes as soon as seedBlock exists (waiting up to DRAW_WAIT_S for it here:
    Celery's backoff would wait 1, 2, 4.. s; a slow chain still gets DrawNotReady and the backoff),
    with its estimate in the next block's context ("pending": at "latest", block.number would
    still be seedBlock and the estimate would revert)."""
    waited_until = time.monotonic() + DRAW_WAIT_S
    while ctx.w3.eth.block_number < seed_block and time.monotonic() < waited_until:
        time.sleep(0.05)
    return _send(ctx, call, done=done, estimate_at="pending")


# -- rounds ------------------------------------------------------------------------------------

def _in_phases(*phases: Phase):
    """A `when` for PhaseStarted: only these phases are the role's (the others wake no worker)."""
    return lambda args: int(args["phase"]) in phases


_SAMPLER_PHASES = _in_phases(Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL, Phase.ATTEST)
_TRAINER_PHASES = _in_phases(Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL)


# urgent: every phase job of a sampler or trainer is work a round waits on, and goes ahead of the
# worker's other queued jobs (records of new tasks and slots, pay); a sampler's rollout ahead at
# Attest too, which the next round's commit takes (behind records, that commit could pass it)
@DISPATCH.on("PhaseStarted", "sampler", when=_SAMPLER_PHASES, urgent=_SAMPLER_PHASES)
def sampler_phase(ev: HandledEvent) -> None:
    phase = Phase(int(ev.args["phase"]))
    if phase == Phase.SAMPLE_COMMIT:
        _commit_work(ev, Role.SAMPLER, Phase.SAMPLE_COMMIT)
    elif phase == Phase.SAMPLE_REVEAL:
        _reveal(ev, Role.SAMPLER, Phase.SAMPLE_REVEAL)
    elif phase == Phase.ATTEST:
        from workers.node.sample_ahead import ahead_of_next_round

        ahead_of_next_round(ev)


@DISPATCH.on("PhaseStarted", "trainer", when=_TRAINER_PHASES, urgent=_TRAINER_PHASES)
def trainer_phase(ev: HandledEvent) -> None:
    phase = Phase(int(ev.args["phase"]))
    if phase == Phase.TRAIN_COMMIT:
        _commit_work(ev, Role.TRAINER, Phase.TRAIN_COMMIT)
    elif phase == Phase.TRAIN_REVEAL:
        _reveal(ev, Role.TRAINER, Phase.TRAIN_REVEAL)


def _commit_work(ev: HandledEvent, role: Role, phase: Phase) -> None:
    ctx = NodeContext.current()
    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = _current(ctx, task_id, round_, phase)
    if task is None:
        return
    slot = my_slot(ctx, task_id, role, round_)
    if slot is None:
        return
    sub = _submission(ctx, task_id, round_, role, slot)
    if sub.node == ctx.address and bytes(sub.commitment) != ZERO32:
        return  # committed before (this is a redelivery)
    spec = spec_of(ctx, task)
    started = time.time()
    if role == Role.SAMPLER:
        from workers.node.sample_ahead import take

        ahead = take(ctx, task, round_, slot)
        if ahead is None:
            root, blob, note = _sample(spec, task_id, round_, slot, checkpoint_bundle(ctx, task))
            rolled_out_s = time.time() - started
        else:
            root, blob, note = ahead.root, ahead.blob, {**ahead.note, "sampled_ahead_s": round(ahead.work_s, 3)}
            rolled_out_s = ahead.work_s
        metrics.rolled_out("sampler", spec.env_id, note["steps"], rolled_out_s, note.pop("returns"))
    else:
        root, blob, note = _train(ctx, spec, task_id, round_, checkpoint_bundle(ctx, task))
        if root is None:
            return  # nothing revealed to train on
        metrics.trained("trainer", int(note["stats"].get("samples", 0)), time.time() - started)
        storing = time.time()
        ctx.store.put_many(note.pop("stored"))  # the trace, before the commitment that binds it
        note["store_trace_s"] = round(time.time() - storing, 3)
    cid = ctx.store.put(blob)
    note.update(cid=cid, root="0x" + root.hex(), work_s=round(time.time() - started, 3))
    ctx.secrets.note(task_id, round_, role, "work", note)
    secret = ctx.secrets.save_commitment(task_id, round_, role, root, cid)  # before the send
    if (secret.root, secret.cid) != (root, cid):
        log.warning("task %d round %d: committing the result stored earlier (%s), not the one just "
                    "computed (%s)", task_id, round_, secret.cid, cid)
    commitment = ctx.deployment.registry.functions.commitmentFor(
        task_id, round_, ctx.address, secret.root, secret.cid, secret.salt).call()
    if _current(ctx, task_id, round_, phase) is None:
        return  # the phase ended while we worked
    _send(ctx, ctx.deployment.registry.functions.commit(task_id, commitment), done=("AlreadyCommitted",))
    # The last commit of the phase starts the reveal phase in the same transaction: reveal now
    # rather than one watcher-and-queue hop later (the PhaseStarted handler then finds it done).
    try:
        _reveal_round(ctx, task_id, round_, role, REVEAL_PHASE[phase])
    except Exception as exc:  # noqa: BLE001 - the commit stands; the reveal phase's handler retries and reports
        log.warning("task %d round %d: reveal right after the commit failed (%s: %s); the reveal "
                    "phase's handler reveals", task_id, round_, type(exc).__name__, exc)


def _sample(spec, task_id: int, round_: int, slot: int, prev: bytes | None):
    from workers.roles.sampler import sample_shard
    from workers.roles.trainer import unbundle_checkpoint

    policy = None if prev is None else unbundle_checkpoint(prev).policy_bytes
    shard = sample_shard(spec, task_id, round_, slot, policy)
    note = {"steps": shard.steps, "episodes": len(shard.episodes), "mean_return": shard.mean_return,
            "returns": [ep.total_reward for ep in shard.episodes if ep.end != "cut"]}
    return shard.root, shard.blob, note


def _revealed_samplers(ctx: NodeContext, task_id: int, round_: int):
    return [s for s in ctx.view.submissions(task_id, round_) if s.role == Role.SAMPLER and s.revealed]


def _train_on_revealed(ctx: NodeContext, spec, task_id: int, round_: int, prev: bytes | None):
    """(CheckpointResult or None, slots left out): the round's update on every revealed shard
    whose blob matches its root (a sampler's bad blob is left out, as an honest trainer does)."""
    from workers.roles.trainer import ShardError, train_round

    shards = [(s.slot, bytes(s.root), ctx.store.get(s.cid)) for s in _revealed_samplers(ctx, task_id, round_)]
    left_out = []
    while shards:
        try:
            return train_round(spec, task_id, round_, prev, shards,
                               device=ctx.extra.get("trainer_device", "auto")), left_out
        except ShardError as error:
            log.warning("task %d round %d: leaving out %s", task_id, round_, error)
            left_out.append(error.slot)
            shards = [s for s in shards if s[0] != error.slot]
    return None, left_out


def _train(ctx: NodeContext, spec, task_id: int, round_: int, prev: bytes | None):
    started = time.time()
    result, left_out = _train_on_revealed(ctx, spec, task_id, round_, prev)
    if result is None:
        return None, None, {}
    stats = {k: v for k, v in (result.stats or {}).items() if isinstance(v, (int, float, str))}
    return result.root, result.bundle, {"stats": stats, "left_out": left_out, "device": result.meta["device"],
                                        "stored": result.stored, "fetch_and_update_s": round(time.time() - started, 3)}


REVEAL_PHASE = {Phase.SAMPLE_COMMIT: Phase.SAMPLE_REVEAL, Phase.TRAIN_COMMIT: Phase.TRAIN_REVEAL}


def _reveal(ev: HandledEvent, role: Role, phase: Phase) -> None:
    _reveal_round(NodeContext.current(), int(ev.args["taskId"]), int(ev.args["round"]), role, phase)


def _reveal_round(ctx: NodeContext, task_id: int, round_: int, role: Role, phase: Phase) -> None:
    """Reveals this node's commitment of the round if the task is in its reveal `phase` and it
    has not been revealed yet."""
    if _current(ctx, task_id, round_, phase) is None:
        return
    m = ctx.view.membership(task_id, ctx.address)
    if not m.assigned or m.role != role:
        return
    sub = _submission(ctx, task_id, round_, role, m.slot)
    if sub.node != ctx.address or bytes(sub.commitment) == ZERO32 or sub.revealed:
        return  # nothing committed this round, or revealed already
    secret = ctx.secrets.commitment(task_id, round_, role)
    if secret is None:
        raise RuntimeError(f"task {task_id} round {round_}: committed but the salt is not in "
                           f"{ctx.secrets.path}; the reveal is lost (the slot will be vacated)")
    _send(ctx, ctx.deployment.registry.functions.reveal(task_id, secret.root, secret.cid, secret.salt),
          done=("AlreadyRevealed",))


# -- validators --------------------------------------------------------------------------------

def _fetch(ctx: NodeContext, cid: str, ev: HandledEvent) -> bytes | None:
    """The content, or None (missing data: reject) once a few deliveries could not get it."""
    try:
        return ctx.store.get(cid)
    except STORE_RETRYABLE:
        if ev.attempt < 3:
            raise
        return None


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


def held_key(ctx: NodeContext, task_id: int, round_: int) -> tuple:
    """A result this node's process holds for a later job (workers.node.held): whose (a verdict
    uses its secret challenge seed), on which chain, of which round."""
    return ctx.deployment.registry.address, ctx.address, task_id, round_


EARLY_CHECK_PHASES = (Phase.TRAIN_COMMIT, Phase.TRAIN_REVEAL, Phase.ATTEST)
"""The round's phases in which its shards can still be judged ahead of the vote: a TrainCommit
job that reaches the worker after the trainer committed (queued behind other jobs, or a trainer
faster than the validator) still saves its Attest job the work, which is queued behind it."""


def _check_samplers_early(ev: HandledEvent) -> None:
    """TrainCommit: the samplers have revealed and the trainer trains. Judge the samplers now, on
    CPU the trainer's one thread leaves, so that the Attest phase waits only for the trainer's
    check. Best effort: a shard not fetched now, or a round whose Attest this process does not
    see (another pool process, a restart), is judged at Attest as before."""
    from workers.roles.validator import verify_samplers

    ctx = NodeContext.current()
    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = _current(ctx, task_id, round_, *EARLY_CHECK_PHASES)
    if task is None:
        return
    slot = my_slot(ctx, task_id, Role.VALIDATOR, round_)
    key = held_key(ctx, task_id, round_)
    if slot is None or _SAMPLER_CHECKS.get(key) is not None:
        return  # not its round, or judged already (a redelivered job)
    if task.phase == Phase.ATTEST and _voted(ctx, task_id, round_, slot):
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


def _attest(ev: HandledEvent) -> None:
    from workers.roles.validator import verify_round

    ctx = NodeContext.current()
    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    task = _current(ctx, task_id, round_, Phase.ATTEST)
    if task is None:
        return
    slot = my_slot(ctx, task_id, Role.VALIDATOR, round_)
    if slot is None:
        return
    if _voted(ctx, task_id, round_, slot):
        return
    spec = spec_of(ctx, task)
    prev = checkpoint_bundle(ctx, task)
    subs = ctx.view.submissions(task_id, round_)
    early = _SAMPLER_CHECKS.get(held_key(ctx, task_id, round_))
    samplers = [(s.slot, bytes(s.root), (early and early.blob(s.slot, s.root)) or _fetch(ctx, s.cid, ev))
                for s in subs if s.role == Role.SAMPLER and s.revealed]
    trainer = next(((bytes(s.root), _fetch(ctx, s.cid, ev)) for s in subs
                    if s.role == Role.TRAINER and s.revealed), None)
    started = time.time()
    verdict = verify_round(spec, task_id, round_, prev, samplers, trainer,
                           ctx.secrets.challenge_seed(task_id, round_), lambda cid: _fetch(ctx, cid, ev), early=early)
    _SAMPLER_CHECKS.pop(held_key(ctx, task_id, round_))  # kept until then: a fetch above may retry the job
    bitmap = verdict.bitmap(task.num_samplers)
    ctx.secrets.note(task_id, round_, Role.VALIDATOR, "verdict", {
        "bitmap": bitmap, "work_s": round(time.time() - started, 3),
        "samplers_judged_early": [] if early is None else sorted(early.judged),
        "samplers": {str(k): [j.accepted, j.reason] for k, j in verdict.samplers.items()},
        "trainer": None if verdict.trainer is None else [verdict.trainer.accepted, verdict.trainer.reason]})
    task = _current(ctx, task_id, round_, Phase.ATTEST)
    if task is None:
        return
    from workers.node.aggregate_handlers import vote  # it imports this module's helpers

    vote(ctx, task, slot, bitmap)


# its early sampler checks as urgent as its vote: queued behind records, they could come after it
@DISPATCH.on("PhaseStarted", "validator", urgent=_in_phases(Phase.TRAIN_COMMIT, Phase.ATTEST))
def validator_phase(ev: HandledEvent) -> None:
    _schedule_deadline(ev.args, ev.key)
    phase = Phase(int(ev.args["phase"]))
    if phase == Phase.TRAIN_COMMIT:
        _check_samplers_early(ev)
    elif phase == Phase.ATTEST:
        _attest(ev)


# -- deadlines (keeper) ------------------------------------------------------------------------

def _schedule_deadline(args: dict, origin: str, countdown: float | None = None, hop: int = 0) -> None:
    """Send a DeadlineReached event for (task, round, phase) to this node's validator queue."""
    key = f"deadline:{args['taskId']}:{args['round']}:{args['phase']}:{hop}"
    _schedule_check("DeadlineReached", key, {"taskId": int(args["taskId"]), "round": int(args["round"]),
                                             "phase": int(args["phase"]), "deadline": int(args["deadline"]),
                                             "hop": hop, "origin": origin}, countdown)


def _schedule_check(event_name: str, key: str, args: dict, countdown: float | None = None,
                    role: str = "validator") -> None:
    """A synthetic event for this node's `role` queue at args["deadline"] + 1 s of protocol
    time (or after `countdown` s), at most half the visibility timeout ahead: a longer wait is
    a chain of checks, each rescheduling the next (hop), so that no message outlives Redis's
    redelivery window."""
    from celery import current_task

    from workers.node.celery_app import send_event

    ctx = NodeContext.current()
    if countdown is None:
        countdown = int(args["deadline"]) - ctx.view.read(ctx.deployment.registry, "protocolTime") + 1
    countdown = max(0.0, min(float(countdown), ctx.config.visibility_timeout / 2))
    kwargs = {"event_key": key, "event_name": event_name, "block": 0, "role": role, "args": args}
    send_event(current_task.app, kwargs, countdown=countdown)


@DISPATCH.on("DeadlineReached", "validator")
def deadline_reached(ev: HandledEvent) -> None:
    ctx = NodeContext.current()
    args = ev.args
    task_id, round_, phase = int(args["taskId"]), int(args["round"]), Phase(int(args["phase"]))
    if _current(ctx, task_id, round_, phase) is None:
        return  # the phase ended on its own
    left = int(args["deadline"]) - ctx.view.read(ctx.deployment.registry, "protocolTime")
    if left >= 0:
        _schedule_deadline(args, args["origin"], countdown=left + 1, hop=int(args["hop"]) + 1)
        return
    _send(ctx, ctx.deployment.registry.functions.advance(task_id),
          done=("WrongPhase", "WrongStatus", "DeadlineNotReached"))


FIRST_CLAIM_CHECK_S = 10.0
"""When a validator first looks at a new task's claims. Most tasks are filled by then; at the
creation itself every claiming node's lane works on the task, and a look then took CPU from them."""


@DISPATCH.on("TaskCreated", "validator")
def keep_claim_window(ev: HandledEvent) -> None:
    """A task nobody fills within its claim window can only fail (refunding its requester), and
    someone must call advance() for that: schedule a look at the task FIRST_CLAIM_CHECK_S after
    its creation, which reschedules itself to the claim deadline while the task is unfilled.
    Nothing is read from the chain now."""
    task_id = int(ev.args["taskId"])
    _schedule_check("ClaimDeadlineReached", f"claim-deadline:{task_id}:0",
                    {"taskId": task_id, "hop": 0, "origin": ev.key}, countdown=FIRST_CLAIM_CHECK_S)


@DISPATCH.on("ClaimDeadlineReached", "validator")
def claim_deadline_reached(ev: HandledEvent) -> None:
    ctx = NodeContext.current()
    args = ev.args
    task_id = int(args["taskId"])
    task = ctx.view.task(task_id)
    if task.status not in (Status.OPEN, Status.DRAWING):
        return  # filled (or ended) in time
    left = task.claim_deadline - ctx.view.read(ctx.deployment.registry, "protocolTime")
    if left >= 0:
        hop = int(args["hop"]) + 1
        _schedule_check("ClaimDeadlineReached", f"claim-deadline:{task_id}:{hop}", {**args, "hop": hop},
                        countdown=left + 1)
        return
    _send(ctx, ctx.deployment.registry.functions.advance(task_id), done=("WrongStatus", "DeadlineNotReached"))
