"""A validator's sealed vote opened in AttestReveal (SPECIFICATION.md 5.5.2): its BLS signature
and salt go to the attestation relay (workers.node.handlers.relay), the round's aggregator sends
one attestAggregate for every validator that agrees, and a validator that no aggregate covered by
its fallback time, or that has no relay or no registered key, attests alone; so does every
validator of a round too small for an aggregate to pay (workers.roles.aggregation.worth_aggregating).

Handlers (validator): AggregateCheck, the aggregator looking at the relay (soon after posting,
then up to every aggregation.RELAY_LOOK_S: aggregation.next_look) and at the chain, for who can
still join, every CHAIN_LOOK_S, until every candidate posted or its wait ran out, then simulating
and sending the aggregate (workers.roles.aggregation.settle drops what would revert);
AttestFallback, at the validator's fallback time: attest alone unless an aggregate covered it.
`vote` is called by workers.node.handlers.validator_handlers once the vote it sealed may be opened."""
from __future__ import annotations

import dataclasses
import logging
import time

from workers.chain.errors import TxReverted
from workers.node.handlers.common import current, my_slot, on, or_task_ended, schedule_check, sealed, send, voted
from workers.node.handlers.context import NodeContext
from workers.node.handlers.relay import RelayUnavailable
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Role

log = logging.getLogger(__name__)


def _relay(ctx: NodeContext):
    """This process's relay (workers.node.handlers.relay.open_relay), or None when it is "off"."""
    from workers.node.handlers.relay import open_relay

    if "relay" not in ctx._cache:
        ctx._cache["relay"] = open_relay(ctx.settings, ctx.config.redis_url, ctx.deployment.chain_id,
                                         ctx.deployment.registry.address, ctx.account)
    return ctx._cache["relay"]


def _bls_key(ctx: NodeContext):
    from workers.node.handlers.relay import bls_key

    if "bls" not in ctx._cache:
        ctx._cache["bls"] = bls_key(ctx.account)
    return ctx._cache["bls"]


def _signature(ctx: NodeContext, task_id: int, round_: int, bitmap: int) -> tuple[int, int]:
    """This node's signature of the vote (deterministic; kept per process: the aggregator needs
    its own again, and never takes it from the relay)."""
    from workers.crypto.attest_messages import attestation_message

    message = attestation_message(ctx.deployment.chain_id, ctx.deployment.registry.address, task_id, round_, bitmap)
    signatures = ctx._cache.setdefault("bls-signatures", {})
    if message not in signatures:
        while len(signatures) >= 64:
            signatures.pop(next(iter(signatures)))
        signatures[message] = tuple(_bls_key(ctx).sign(message))
    return signatures[message]


@dataclasses.dataclass(frozen=True)
class _RoundVoters:
    holders: dict  # slot -> node (zero address when vacant)
    keys: dict  # slot -> registered G2 key (zeros when none)
    candidates: list  # slots that can still join an aggregate: held, expected, keyed, sealed and not opened


def _round_voters(ctx: NodeContext, task_id: int, round_: int, num_validators: int) -> _RoundVoters:
    from workers.node.handlers.relay import registered_key

    holders, keys, candidates = {}, {}, []
    for v in range(num_validators):
        slot = ctx.view.read(ctx.deployment.state, "slotOf", task_id, Role.VALIDATOR, v)
        holders[v] = slot.node
        keys[v] = (0, 0, 0, 0)
        if int(slot.node, 16) == 0 or slot.sinceRound > round_:
            continue
        keys[v] = registered_key(ctx.deployment, slot.node)[0]
        if any(keys[v]) and sealed(ctx, task_id, round_, v):
            candidates.append(v)
    return _RoundVoters(holders, keys, candidates)


def _attest_alone(ctx: NodeContext, task_id: int, round_: int, bitmap: int, salt: bytes) -> None:
    send(ctx, ctx.deployment.registry.functions.attest(task_id, round_, bitmap, salt),
         done=or_task_ended("AlreadyAttested"))


def vote(ctx: NodeContext, task, slot: int, bitmap: int, salt: bytes) -> None:
    """Opens this node's sealed vote `bitmap` (committed with `salt`) for its validator slot: its
    BLS signature and salt go to the relay, and the
    round's aggregator (workers.roles.aggregation.choose_aggregator) sends one attestAggregate for
    every validator that agrees; a node without a relay or a registered key, a round with fewer
    validators that can join than the node's aggregate_min_signers (aggregation.worth_aggregating:
    an aggregate would cost more gas), one that disagrees with the aggregator's bitmap, and one no
    aggregate covered by its fallback time attest alone."""
    from workers.node.handlers.relay import RelayEntry, has_key
    from workers.roles import aggregation

    task_id, round_ = task.task_id, task.round
    min_signers = ctx.settings.aggregate_min_signers

    def alone() -> None:
        _attest_alone(ctx, task_id, round_, bitmap, salt)

    def too_few(candidates: int) -> bool:
        if aggregation.worth_aggregating(candidates, min_signers):
            return False
        log.info("task %d round %d: %d validators can join an aggregate (fewer than %d): attesting alone, which "
                 "costs less gas", task_id, round_, candidates, min_signers)
        return True

    if too_few(task.num_validators):  # no round of this task can pay: decided without a chain read
        return alone()
    relay = _relay(ctx)
    if relay is None:
        return alone()
    if not has_key(ctx.deployment, ctx.address, _bls_key(ctx)):
        log.warning("task %d round %d: this node's BLS key is not registered (decentrl node start registers it); "
                    "attesting alone", task_id, round_)
        return alone()
    voters = _round_voters(ctx, task_id, round_, task.num_validators)
    if too_few(len(voters.candidates)):
        return alone()
    signature = _signature(ctx, task_id, round_, bitmap)
    try:
        relay.post(task_id, round_, slot, RelayEntry(bitmap, signature, ctx.address, salt))
    except RelayUnavailable as exc:  # intentional: a relay that is down costs gas, not the vote
        log.warning("task %d round %d: attestation relay unavailable (%s); attesting alone", task_id, round_, exc)
        return alone()
    left = task.phase_deadline - ctx.view.protocol_time()
    plan = aggregation.plan(time.time(), left, ctx.settings.aggregate_wait_s, ctx.settings.attest_fallback_s)
    args = {"taskId": task_id, "round": round_, "slot": slot, "bitmap": bitmap, "salt": "0x" + salt.hex(),
            "aggregateBy": plan.aggregate_by, "fallbackAt": plan.fallback_at, "hop": 0}
    aggregator = aggregation.choose_aggregator(task_id, round_, voters.candidates)
    log.info("task %d round %d: posted slot %d's vote %s to the relay; aggregator slot %s", task_id, round_, slot,
             bin(bitmap), aggregator)
    if aggregator == slot:
        _aggregate_step(ctx, args, read=(task, voters))
        return
    try:
        theirs = relay.entries(task_id, round_, task.num_validators).get(aggregator)
    except RelayUnavailable:
        theirs = None  # posted a moment ago: the relay is likely back; the fallback covers it if not
    if aggregator is None or (theirs is not None and theirs.accept_bitmap != bitmap):
        log.info("task %d round %d: the aggregator votes another bitmap; attesting alone", task_id, round_)
        return alone()
    _schedule_vote_check(ctx, "AttestFallback", args, max(0.0, plan.fallback_at - time.time()))


def _schedule_vote_check(ctx: NodeContext, name: str, args: dict, countdown: float) -> None:
    key = f"{'fallback' if name == 'AttestFallback' else 'aggregate'}:{args['taskId']}:{args['round']}:" \
          f"{args['slot']}:{args['hop']}"
    schedule_check(ctx, name, key, args, countdown)


def _aggregate_step(ctx: NodeContext, args: dict, read: tuple | None = None) -> None:
    """The aggregator's turn: once every candidate posted (or at aggregateBy), aggregate the votes
    that agree with its own, simulate the call and drop what would make it revert
    (aggregation.settle), and send; with fewer than two votes left, attest alone. `read`: the
    task and _RoundVoters its caller (vote) has just read from the chain, not read again."""
    from workers.crypto.attest_messages import aggregate_args
    from workers.crypto.bls import is_g1
    from workers.node.handlers.relay import RelayEntry
    from workers.roles import aggregation

    task_id, round_, slot, bitmap = (int(args[k]) for k in ("taskId", "round", "slot", "bitmap"))
    salt = bytes.fromhex(args["salt"][2:])
    aggregate_by = float(args["aggregateBy"])
    if aggregation.relay_look_only(time.time(), aggregate_by, args.get("chainLookAt")):
        try:  # a cheap look: has everyone the last chain read counted posted yet?
            posted = _relay(ctx).entries(task_id, round_, int(args["validators"]))
        except RelayUnavailable:
            posted = None  # the full look below reports it
        if posted is not None and any(v not in posted for v in args["candidates"]):
            return _wait(ctx, args, aggregate_by)
    if read is None:
        task = current(ctx, task_id, round_, Phase.ATTEST_REVEAL)
        if task is None or my_slot(ctx, task_id, Role.VALIDATOR, round_) != slot:
            return
        voters = _round_voters(ctx, task_id, round_, task.num_validators)
    else:
        task, voters = read
        if voters.holders[slot].lower() != ctx.address.lower():
            return  # no longer ours (what my_slot checks; `candidates` has the round)
    if slot not in voters.candidates:
        return  # voted already
    try:
        entries = _relay(ctx).entries(task_id, round_, task.num_validators)
    except RelayUnavailable as exc:  # intentional: the relay going down costs gas, not the vote
        log.warning("task %d round %d: attestation relay unavailable (%s); attesting alone", task_id, round_, exc)
        return _attest_alone(ctx, task_id, round_, bitmap, salt)
    waiting = [v for v in voters.candidates if v not in entries]
    if waiting and time.time() < aggregate_by:
        return _wait(ctx, {**args, "candidates": voters.candidates, "validators": task.num_validators,
                      "chainLookAt": time.time() + aggregation.CHAIN_LOOK_S}, aggregate_by)
    entries[slot] = RelayEntry(bitmap, _signature(ctx, task_id, round_, bitmap), ctx.address, salt)  # ours
    votes, left_out = aggregation.agreeing(entries, bitmap, voters.holders, voters.candidates, voters.keys, is_g1)
    for v, why in left_out.items():
        log.info("task %d round %d: relay entry of slot %d left out: %s", task_id, round_, v, why)

    def call(slots):
        chosen = {v: (list(votes[v].signature), list(votes[v].pubkey_g2)) for v in slots}
        salts = {v: votes[v].salt for v in slots}  # a wrong one is named by the chain (settle drops it)
        args_ = aggregate_args(task_id, round_, bitmap, chosen, salts, registered_keys=True)  # keys: the chain's
        return ctx.deployment.registry.functions.attestAggregate(*args_)

    chosen = aggregation.settle(votes, lambda slots: _simulate(ctx, call(slots)),
                                log=lambda msg: log.info("task %d round %d: %s", task_id, round_, msg))
    if chosen is None:
        log.info("task %d round %d: no aggregate of two or more votes (waiting for %s); attesting alone", task_id,
                 round_, waiting or "nobody")
        return _attest_alone(ctx, task_id, round_, bitmap, salt)
    try:
        send(ctx, call(chosen), done=or_task_ended("AlreadyAttested"))
    except TxReverted as exc:  # intentional: a vote raced in after the simulation; ours still counts
        log.warning("task %d round %d: attestAggregate reverted (%s); attesting alone", task_id, round_,
                    exc.error.name)
    if not voted(ctx, task_id, round_, slot):
        _attest_alone(ctx, task_id, round_, bitmap, salt)


def _wait(ctx: NodeContext, args: dict, aggregate_by: float) -> None:
    """The aggregator's next look, aggregation.next_look from now: soon at first, then up to every
    RELAY_LOOK_S (a re-scheduled Celery check, not a blocked worker)."""
    from workers.roles.aggregation import next_look

    hop = int(args["hop"])
    _schedule_vote_check(ctx, "AggregateCheck", {**args, "hop": hop + 1}, next_look(time.time(), aggregate_by, hop))


def _simulate(ctx: NodeContext, call):
    """Why `call` would revert now (an aggregation.Rejection), or None: an eth_call, nothing sent."""
    from web3.exceptions import ContractLogicError, Web3RPCError

    from workers.chain.errors import decode_revert, revert_data_of
    from workers.roles.aggregation import Rejection

    try:
        call.call({"from": ctx.address})
    except (ContractLogicError, Web3RPCError) as exc:
        data = revert_data_of(exc)
        if data is None:
            raise
        error = decode_revert(data)
        return Rejection(error.name, error.kwargs)
    return None


@on("AggregateCheck", "validator")
def aggregate_check(ctx: NodeContext, ev: HandledEvent) -> None:
    """The aggregator's next look at the relay (scheduled by vote / itself)."""
    _aggregate_step(ctx, ev.args)


@on("AttestFallback", "validator")
def attest_fallback(ctx: NodeContext, ev: HandledEvent) -> None:
    """A validator's fallback: if no aggregate covered its slot by fallbackAt, it attests alone."""
    args = ev.args
    task_id, round_, slot = int(args["taskId"]), int(args["round"]), int(args["slot"])
    if current(ctx, task_id, round_, Phase.ATTEST_REVEAL) is None:
        return
    if my_slot(ctx, task_id, Role.VALIDATOR, round_) != slot:
        return
    if voted(ctx, task_id, round_, slot):
        return
    early = float(args["fallbackAt"]) - time.time()
    if early > 0:  # a long wait is a chain of checks (_schedule_check caps each countdown)
        _schedule_vote_check(ctx, "AttestFallback", {**args, "hop": int(args["hop"]) + 1}, early)
        return
    log.info("task %d round %d: no aggregate covered slot %d by its fallback time; attesting alone", task_id,
             round_, slot)
    _attest_alone(ctx, task_id, round_, int(args["bitmap"]), bytes.fromhex(args["salt"][2:]))
