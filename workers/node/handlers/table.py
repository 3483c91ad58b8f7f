"""The node's entry points (its config, warm-up, supervisor and chain watcher) and the map of its
chain-event handlers, which live one concern a module (HANDLER_MODULES):

    assignment_handlers  claims of new and vacated slots, work at once in a slot got mid-phase,
                         the validator draw
    round_handlers       a sampler's and a trainer's phase work (sample_ahead: a rollout ahead)
    validator_handlers   a validator's early sampler checks, its verification and vote
    aggregate_handlers   the validators' BLS aggregate votes through the relay
    keeper_handlers      advancing a phase past its deadline, failing a task left unfilled
    dispute_handlers     juror duty and held pay
    common               what they share (sending, the task's spec and checkpoint, slots, votes)

ENTRY POINTS (what the CLI and the demo use):

    from workers.node.config import NodeConfig
    from workers.node.handlers.context import node_extra
    from workers.node.handlers.table import node_config, supervisor

    config = node_config(redis_url="redis://127.0.0.1:16401/3", node_name="sampler1",
                         extra=node_extra(rpc_url=..., ws_url=..., deployment="deployments/x.json",
                                          node_dir=node_dir, store_dir=shared_store_dir))
    sup = supervisor(config, roles=("sampler",))   # + env={"DECENTRL_KEYSTORE_PASSWORD": ...}
    sup.start()  ...  sup.check()  ...  sup.stop()

`node_config` is NodeConfig with handler_modules=HANDLER_MODULES; `supervisor` starts
one Celery worker per role plus the watcher `workers.node.handlers.table:watch`. Each node needs its
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
  keeper_turns.WAIT_IN_PLACE_S for it, then DrawNotReady is retried with Celery's backoff), or
  in the node's keeper turn after it (keeper_turns: on a chain not on this machine, about one
  validator of the pool sends per turn); on a dev chain with automine someone must mine blocks.
- PhaseStarted:
  SampleCommit, sampler  roll out the shard with the task's current checkpoint (or take the one
                         rolled out ahead with it), store, commit; the phase's last commit
                         reveals at once
  SampleReveal, sampler  reveal (root, cid, salt) from the secrets DB, unless revealed already
  TrainCommit,  trainer  fetch the revealed shards, train_round, store (trace states, trace,
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
                         challenged states), then vote the bitmap: sign it and post it to the
                         attestation relay (workers.node.handlers.relay); the round's aggregator
                         aggregates, the others schedule an AttestFallback (SPECIFICATION.md
                         5.5.2); without a relay or a registered BLS key, attest(bitmap)
  every phase,  validator  (keeper) schedule a DeadlineReached check at the phase's deadline
  (PhaseStarted reaches only the nodes that hold a slot in the task: workers.node.queues.interest,
  and a sampler's or trainer's worker only for the phases above: the other phases are not queued)
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

import logging
import os

# importing them registers their handlers in DISPATCH (a test or tool that imports this module
# gets the node's whole table; a worker imports each of HANDLER_MODULES itself)
from workers.node.handlers import (aggregate_handlers, assignment_handlers, dispute_handlers,  # noqa: F401
                                   keeper_handlers, round_handlers, validator_handlers)
from workers.node.observe import logs, metrics
from workers.node.config import NodeConfig
from workers.node.handlers.context import NodeContext

log = logging.getLogger(__name__)

HANDLER_MODULES = ("workers.node.handlers.table",  # first: the workers' warm-up hooks
                   "workers.node.handlers.assignment_handlers", "workers.node.handlers.round_handlers",
                   "workers.node.handlers.validator_handlers", "workers.node.handlers.aggregate_handlers",
                   "workers.node.handlers.keeper_handlers", "workers.node.handlers.dispute_handlers")
"""The node's handler modules: this one, whose `warm()` and `warm_claims()` the worker calls before
its first message (workers.node.processes.worker looks for them in each handler module), then one module
per concern."""
WATCHER = "workers.node.handlers.table:watch"


# -- entry points ------------------------------------------------------------------------------

def node_config(redis_url: str, node_name: str, extra: dict, **settings) -> NodeConfig:
    """A NodeConfig whose workers load these handlers (settings: any other NodeConfig field)."""
    return NodeConfig(redis_url=redis_url, node_name=node_name, handler_modules=HANDLER_MODULES,
                      extra=extra, **settings)


def warm() -> None:
    """Called by each worker before its first message (workers.node.processes.worker): the roles' compute
    modules (torch, gymnasium) and their first-use costs (workers.roles.warmup), inherited by the
    pool processes forked after, and the node's context (keystore, deployment check): a
    single-process worker's own; in a prefork worker, the one whose account its pool processes
    borrow when they build theirs at their first job (NodeContext.current)."""
    import workers.node.handlers.encrypted_inputs  # noqa: F401 - every role's first round reads its checkpoint through it
    import workers.node.handlers.relay  # noqa: F401 - a validator's vote
    import workers.node.handlers.sample_ahead  # noqa: F401 - a sampler's next shard
    import workers.roles.sampler  # noqa: F401
    import workers.roles.trainer  # noqa: F401
    import workers.roles.validator  # noqa: F401
    from workers.roles import warmup

    warmup.exercise(update=os.environ.get(logs.PROCESS_ENV) != "sampler")  # this worker's role
    NodeContext.current()


def warm_claims() -> None:
    """The claim lane's warm-up (workers.node.processes.worker): a claim computes nothing but checks the
    task's spec (workers.spec: the environment it names, so gymnasium; never torch)."""
    import workers.spec  # noqa: F401

    NodeContext.current()


def supervisor(config: NodeConfig, roles, **kwargs):
    """A Supervisor for one node: a Celery worker per role, the claim lane and the chain watcher."""
    from workers.node.processes.supervisor import Supervisor

    return Supervisor(config, config.extra["node_dir"], tuple(roles), watcher=WATCHER, **kwargs)


def _start_store_gc(extra: dict) -> None:
    """The node's store lifecycle: drop unpinned results older than retention_s, every
    gc_interval_s, in a thread of the watcher (one per node)."""
    import threading

    from workers.storage.store import DEFAULT_RETENTION, gc_forever, open_store

    store = open_store(extra.get("ipfs_api"), extra["store_dir"],
                       retention=float(extra.get("retention_s") or DEFAULT_RETENTION), observer=metrics.OBSERVER)
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
    from workers.node.queues.interest import Interest

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
                           poll_interval=float(extra.get("poll_interval") or 0.05), observer=metrics.OBSERVER)
    log.info("following the protocol's events from block %d: %s; confirmation depth %d", watcher.position()[0],
             f"websocket {ws} (polling every {watcher.poll_interval:g} s while it is down)" if ws
             else f"polling {extra['rpc_url']} every {watcher.poll_interval:g} s", watcher.confirmations)
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
