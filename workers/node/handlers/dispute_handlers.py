"""The node's side of disputes (SPECIFICATION.md 13): juror duty for validators and the release
of held pay for every role. Registered with the same DISPATCH as workers.node.handlers.table (which
lists this module among the node's handler modules); the watcher follows DisputeManager's
events beside TaskRegistry's.

- JurorDrawArmed, validator (keeper): drawJurors as soon as seedBlock is mined (as the
  registry's validator draw: assignment_handlers.send_draw); a dispute no longer Drawing is done.
- VotingStarted, validator: if this node holds a seat, re-verify the disputed round with the
  validator's own verification (workers.roles.validator.verify_round, every artifact fetched by
  CID and checked) and commit its vote, hidden: uphold when its judgement of the disputed
  submission differs from the disputed verdict (`vote_for`); the vote and its salt are stored
  before the commit. It schedules RevealDue at the commit deadline. Every validator (keeper) also
  schedules SettleDue there.
- JurorCommitted, validator: once every juror committed, a seated juror reveals at once.
- RevealDue, validator: a synthetic event at the commit deadline: a juror that committed reveals
  (and again PAUSED_RECHECK_S after a reveal that a guardian's pause refused).
- JurorVoted, validator (keeper): once every juror revealed (or, past the commit deadline, every
  juror that committed), settle() at once.
- SettleDue, validator: a synthetic event at the commit deadline, then at the reveal deadline:
  settle() a dispute still Voting once it can be.
- RewardEarned (naming this node, of its role): with a dispute manager set, the pay is held;
  schedule PayReleaseDue at the round's dispute window end (`release_due_in`).
- PayReleaseDue (every role): releasePay(task, round, self) once the window has passed and no
  dispute of the round is open (else checked again later); nothing held means done.
- DisputeSettled (every role): the round's disputes may all be settled now: release this node's
  held pay of that round if the window is over (a PayReleaseDue may be waiting on DisputesPending).

Every handler reads the chain first and counts the contracts' "already done" reverts as done."""
from __future__ import annotations

import logging
import time

from workers.chain.errors import TxReverted
from workers.node.handlers.assignment_handlers import send_draw
from workers.node.handlers.common import fetch, on, schedule_check, send, spec_of
from workers.node.handlers.context import NodeContext
from workers.node.handlers.keeper_turns import turn_delay_s, wait_for_turn
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import DisputeStatus, Evidence, Role, Verdict, vote_commitment

log = logging.getLogger(__name__)

ZERO_ADDRESS = "0x" + "00" * 20

PAUSED_RECHECK_S = 60.0
"""How long a juror whose reveal met a guardian's pause waits before it tries again (protocol time,
and with it the reveal deadline, stands still while the registry is paused)."""

PENDING_RECHECK_S = 30.0
"""How long a pay release waits before it looks again when a dispute of its round is open (a
DisputeSettled also triggers a release at once)."""

ROLE_NAMES = {Role.SAMPLER: "sampler", Role.TRAINER: "trainer", Role.VALIDATOR: "validator"}


# -- pure decisions ----------------------------------------------------------------------------

def vote_for(disputed: Verdict, accepted: bool) -> bool:
    """A juror's vote (True = uphold the dispute) from the disputed verdict and the juror's own
    judgement of the submission. A dispute of an Accepted or Inconclusive verdict says the work is
    bad (uphold when the juror rejects it); one of a Rejected verdict says it is good (uphold when
    the juror accepts it)."""
    if disputed not in (Verdict.ACCEPTED, Verdict.REJECTED, Verdict.INCONCLUSIVE):
        raise ValueError(f"only Accepted, Rejected and Inconclusive verdicts are disputed, not {disputed!r}")
    return bool(accepted) if disputed == Verdict.REJECTED else not accepted


def can_settle(dispute, now: int) -> bool:
    """DisputeManager.settle's condition: every juror revealed; or the commits closed and every
    committed vote is open; or the reveals closed."""
    votes = int(dispute.upholdVotes) + int(dispute.dismissVotes)
    return (votes == int(dispute.jurorCount) or (now > int(dispute.voteDeadline) and votes == int(dispute.commits))
            or now > int(dispute.revealDeadline))


def release_due_in(window_end: int, now: int, open_disputes: int, held: int) -> float | None:
    """When to try releasing held pay: None = nothing held (done), 0 = now, else seconds to wait
    (releasePay needs protocol time past the window end and no open dispute of the round)."""
    if held == 0:
        return None
    if now <= window_end:
        return float(window_end - now + 1)
    if open_disputes:
        return PENDING_RECHECK_S
    return 0.0


# -- juror duty --------------------------------------------------------------------------------

def _disputes(ctx: NodeContext):
    return ctx.deployment.disputes.functions


def _read(ctx: NodeContext, name: str, *args):
    """StateView.name(*args) (the dispute records), read through the node's ChainView (workers.chain.calls)."""
    return ctx.view.read(ctx.deployment.state, name, *args)


def _now(ctx: NodeContext) -> int:
    """The registry's protocol time (it stands still while the registry is paused)."""
    return ctx.view.protocol_time()


@on("JurorDrawArmed", "validator")
def draw_jurors(ctx: NodeContext, ev: HandledEvent) -> None:
    dispute_id = int(ev.args["disputeId"])
    if _read(ctx, "disputeOf", dispute_id).status != DisputeStatus.DRAWING:
        return  # drawn already (a draw re-arms while seats remain)
    send_draw(ctx, ev, "drawJurors", dispute_id, int(ev.args["seedBlock"]), _disputes(ctx).drawJurors(dispute_id),
              done=("WrongDisputeStatus",))


def my_seat(ctx: NodeContext, dispute_id: int, jurors: int):
    """(seat, Juror) of this node in the dispute, or None."""
    for seat in range(jurors):
        juror = _read(ctx, "jurorOf", dispute_id, seat)
        if juror.node == ctx.address:
            return seat, juror
    return None


def previous_checkpoint(ctx: NodeContext, task, spec, round_: int) -> bytes | None:
    """The checkpoint bundle round `round_` started from: what round - 1 finalized with (its
    RoundFinalized event), else the task's initial bundle (None without encrypted inputs)."""
    from workers.node.handlers.encrypted_inputs import initial_bundle
    from workers.roles.trainer import verify_checkpoint

    if round_ > 0:
        logs = ctx.deployment.registry.events.RoundFinalized().get_logs(
            from_block=ctx.deployment.block, argument_filters={"taskId": task.task_id, "round": round_ - 1})
        if not logs:
            raise RuntimeError(f"task {task.task_id}: no RoundFinalized for round {round_ - 1}")
        args = logs[-1].args
        if args.checkpointCid:
            bundle = ctx.store.get(args.checkpointCid)
            verify_checkpoint(bundle, bytes(args.checkpointRoot))
            return bundle
    return initial_bundle(ctx, task, spec)


def forced_submission(ctx: NodeContext, task, round_: int, role: Role, slot: int) -> bool:
    """Whether the chain says submission (role, slot) of the round was forced: its bit of
    StateView.forcedMask (sampler slot i: bit i, the trainer: bit numSamplers). False on a
    deployment whose StateView has no forcedMask (no forced errors there)."""
    state = ctx.deployment.state
    if not any(i.get("type") == "function" and i.get("name") == "forcedMask" for i in state.abi):
        return False
    bit = slot if role == Role.SAMPLER else int(task.num_samplers)
    return bool(int(_read(ctx, "forcedMask", task.task_id, round_)) >> bit & 1)


def judge(ctx: NodeContext, ev: HandledEvent, dispute):
    """This node's Judgement of the disputed submission: the disputed round verified as a
    validator of it would (its own secret challenge seed, every artifact checked), re-executing the
    item the dispute names as its evidence besides its own challenges. Plant-aware: where the
    chain says the submission was forced, finding only the forced-error plant is good work
    (Focus.forced); in unforced work a plant is a fault."""
    from workers.roles.validator import Focus, verify_round

    task_id, round_ = int(dispute.taskId), int(dispute.round)
    task = ctx.view.task(task_id)
    spec = spec_of(ctx, task)
    prev = previous_checkpoint(ctx, task, spec, round_)
    subs = ctx.view.submissions(task_id, round_)
    samplers = [(s.slot, bytes(s.root), fetch(ctx, s.cid, ev)) for s in subs if s.role == Role.SAMPLER and s.revealed]
    trainer = next(((bytes(s.root), fetch(ctx, s.cid, ev)) for s in subs
                    if s.role == Role.TRAINER and s.revealed), None)
    role, slot = Role(int(dispute.role)), int(dispute.slot)
    focus = Focus(role, slot, Evidence(int(dispute.evidence)), int(dispute.item),
                  forced=forced_submission(ctx, task, round_, role, slot))
    verdict = verify_round(spec, task_id, round_, prev, samplers, trainer,
                           ctx.secrets.challenge_seed(task_id, round_), lambda cid: fetch(ctx, cid, ev), focus=focus)
    judgement = verdict.trainer if role == Role.TRAINER else verdict.samplers.get(slot)
    if judgement is None:
        raise RuntimeError(f"dispute of task {task_id} round {round_}: {role.name.lower()} {slot} "
                           "has no revealed submission to judge")
    return judgement


@on("VotingStarted", "validator")
def voting_started(ctx: NodeContext, ev: HandledEvent) -> None:
    dispute_id, deadline = int(ev.args["disputeId"]), int(ev.args["deadline"])
    schedule_check(ctx, "SettleDue", f"settle:{dispute_id}:0", {"disputeId": dispute_id, "hop": 0, "origin": ev.key},
                   countdown=_until(ctx, deadline))
    dispute = _read(ctx, "disputeOf", dispute_id)
    if dispute.status != DisputeStatus.VOTING:
        return
    seated = my_seat(ctx, dispute_id, int(dispute.jurorCount))
    if seated is None:
        return
    schedule_check(ctx, "RevealDue", f"reveal:{dispute_id}:0", {"disputeId": dispute_id, "hop": 0, "origin": ev.key},
                   countdown=_until(ctx, deadline))
    if seated[1].commitment != bytes(32):
        return  # committed before a restart
    vote = ctx.secrets.juror_vote(dispute_id)
    if vote is None:
        judgement = judge(ctx, ev, dispute)
        uphold = vote_for(Verdict(int(dispute.verdict)), judgement.accepted)
        ctx.secrets.note(int(dispute.taskId), int(dispute.round), Role.VALIDATOR, f"juror:{dispute_id}", {
            "dispute": dispute_id, "role": int(dispute.role), "slot": int(dispute.slot),
            "accepted": judgement.accepted, "planted": judgement.planted, "reason": judgement.reason,
            "uphold": uphold})
        log.info("dispute %d: %s %d judged %s (%s): voting %s", dispute_id, Role(int(dispute.role)).name.lower(),
                 dispute.slot, "good" if judgement.accepted else "bad", judgement.reason,
                 "uphold" if uphold else "dismiss")
        vote = ctx.secrets.save_juror_vote(dispute_id, uphold)  # stored before it is committed
    uphold, salt = vote
    send(ctx, _disputes(ctx).commitVote(dispute_id, vote_commitment(dispute_id, ctx.address, uphold, salt)),
         done=("AlreadyCommitted",))


def _until(ctx: NodeContext, deadline: int) -> float:
    """Seconds until one past `deadline` (protocol time)."""
    return deadline - _now(ctx) + 1


def _voting(ctx: NodeContext, dispute_id: int):
    """The dispute, if it is Voting (else None: settled already)."""
    dispute = _read(ctx, "disputeOf", dispute_id)
    return dispute if dispute.status == DisputeStatus.VOTING else None


def _reveal(ctx: NodeContext, dispute_id: int) -> None:
    """Opens this node's committed vote, if it is a juror that committed and has not revealed."""
    dispute = _voting(ctx, dispute_id)
    if dispute is None:
        return
    seated = my_seat(ctx, dispute_id, int(dispute.jurorCount))
    if seated is None or seated[1].voted or seated[1].commitment == bytes(32):
        return
    vote = ctx.secrets.juror_vote(dispute_id)
    if vote is None:
        log.error("dispute %d: this node committed a vote but its secrets DB holds none (node folder replaced?): "
                  "it cannot reveal, and will be slashed as withholding", dispute_id)
        return
    uphold, salt = vote
    try:
        send(ctx, _disputes(ctx).revealVote(dispute_id, uphold, salt), done=("AlreadyVoted",))
    except TxReverted as exc:
        if exc.error.name != "DisputesPaused":
            raise
        # A vote left shut is slashed: keep trying until the guardian unpauses.
        log.warning("dispute %d: reveal refused while disputes are paused; trying again in %g s",
                    dispute_id, PAUSED_RECHECK_S)
        schedule_check(ctx, "RevealDue", f"reveal:{dispute_id}:paused:{time.time_ns()}",
                       {"disputeId": dispute_id, "hop": 0, "origin": "paused"}, countdown=PAUSED_RECHECK_S)


@on("JurorCommitted", "validator")
def juror_committed(ctx: NodeContext, ev: HandledEvent) -> None:
    """The last commitment opens the reveals: a seated juror reveals at once."""
    dispute_id = int(ev.args["disputeId"])
    dispute = _read(ctx, "disputeOf", dispute_id)
    if int(ev.args["commits"]) == int(dispute.jurorCount):
        _reveal(ctx, dispute_id)


@on("RevealDue", "validator")
def reveal_due(ctx: NodeContext, ev: HandledEvent) -> None:
    """The commit deadline passed (or is still ahead: look again then): reveal."""
    dispute = _voting(ctx, int(ev.args["disputeId"]))
    if dispute is None:
        return
    left = _until(ctx, int(dispute.voteDeadline))
    if left > 0 and int(dispute.commits) < int(dispute.jurorCount):
        _check_again(ctx, "RevealDue", "reveal", ev.args, left)
        return
    _reveal(ctx, int(ev.args["disputeId"]))


def _check_again(ctx: NodeContext, event_name: str, prefix: str, args: dict, countdown: float, **more) -> None:
    """The next hop of a dispute's chain of synthetic checks, `countdown` s ahead."""
    hop = int(args["hop"]) + 1
    schedule_check(ctx, event_name, f"{prefix}:{args['disputeId']}:{hop}", {**args, **more, "hop": hop},
                   countdown=countdown)


def _settle(ctx: NodeContext, dispute_id: int) -> None:
    send(ctx, _disputes(ctx).settle(dispute_id), done=("WrongDisputeStatus",), estimate_at="pending")


def _settle_subject(dispute_id: int) -> bytes:
    return b"settle" + dispute_id.to_bytes(32, "big")


@on("JurorVoted", "validator")
def juror_voted(ctx: NodeContext, ev: HandledEvent) -> None:
    """Every validator sees the last juror's reveal: the pool takes turns at settling (keeper_turns)."""
    dispute = _read(ctx, "disputeOf", int(ev.args["disputeId"]))
    if dispute.status == DisputeStatus.VOTING and can_settle(dispute, _now(ctx)):
        wait_for_turn(ctx, ev, _settle_subject(int(ev.args["disputeId"])), due_block=ev.block)
        _settle(ctx, int(ev.args["disputeId"]))


@on("SettleDue", "validator")
def settle_due(ctx: NodeContext, ev: HandledEvent) -> None:
    """At the commit deadline, then (while committed votes are still shut) at the reveal deadline."""
    args = ev.args
    dispute_id = int(args["disputeId"])
    dispute = _voting(ctx, dispute_id)
    if dispute is None:
        return  # settled already
    now = _now(ctx)
    if not can_settle(dispute, now):
        deadline = int(dispute.voteDeadline) if now <= int(dispute.voteDeadline) else int(dispute.revealDeadline)
        _check_again(ctx, "SettleDue", "settle", args, deadline - now + 1)
        return
    if not args.get("turn_waited") and (wait := turn_delay_s(ctx, _settle_subject(dispute_id))) > 0:
        _check_again(ctx, "SettleDue", "settle", args, wait, turn_waited=True)
        return
    _settle(ctx, dispute_id)


# -- held pay ----------------------------------------------------------------------------------

def _disputes_active(ctx: NodeContext) -> bool:
    return _read(ctx, "disputeManager") != ZERO_ADDRESS


def _release(ctx: NodeContext, task_id: int, round_: int, role: str, hop: int, origin: str) -> None:
    """Release this node's held pay of (task, round) now if it can be, else check again later."""
    held = ctx.view.read(ctx.deployment.vault, "heldOf", task_id, round_, ctx.address)
    if held == 0:
        return  # released (by anyone) or reclaimed
    window_end = _read(ctx, "windowEndOf", task_id, round_)
    now = _now(ctx)
    wait = release_due_in(window_end, now, _read(ctx, "openDisputesOf", task_id, round_), held)
    if wait:
        schedule_check(ctx, "PayReleaseDue", f"release:{task_id}:{round_}:{hop + 1}",
                       {"taskId": task_id, "round": round_, "hop": hop + 1, "origin": origin}, countdown=wait,
                       role=role)
        return
    send(ctx, _disputes(ctx).releasePay(task_id, round_, ctx.address), done=("NothingHeld",))


def _pay_held(ctx: NodeContext, ev: HandledEvent, role: Role) -> None:
    if ev.args["node"] != ctx.address or Role(int(ev.args["role"])) != role or not _disputes_active(ctx):
        return
    _release(ctx, int(ev.args["taskId"]), int(ev.args["round"]), ev.role, -1, ev.key)


def _release_due(ctx: NodeContext, ev: HandledEvent) -> None:
    _release(ctx, int(ev.args["taskId"]), int(ev.args["round"]), ev.role, int(ev.args["hop"]),
             ev.args["origin"])


def _dispute_settled(ctx: NodeContext, ev: HandledEvent) -> None:
    dispute = _read(ctx, "disputeOf", int(ev.args["disputeId"]))
    task_id, round_ = int(dispute.taskId), int(dispute.round)
    if ctx.view.read(ctx.deployment.vault, "heldOf", task_id, round_, ctx.address) == 0:
        return
    if _read(ctx, "openDisputesOf", task_id, round_):
        return  # another dispute of the round is open: its settlement comes back here
    if _now(ctx) <= _read(ctx, "windowEndOf", task_id, round_):
        return  # the PayReleaseDue scheduled at RewardEarned releases it at the window's end
    send(ctx, _disputes(ctx).releasePay(task_id, round_, ctx.address), done=("NothingHeld",))


for _role, _name in ROLE_NAMES.items():
    on("RewardEarned", _name)(lambda ctx, ev, role=_role: _pay_held(ctx, ev, role))
    on("PayReleaseDue", _name)(_release_due)
    on("DisputeSettled", _name)(_dispute_settled)
