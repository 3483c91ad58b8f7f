"""The validators' keeper duties: advance a phase whose deadline passed, and fail a task nobody
filled within its claim window (workers.node.handlers.table, WHO DOES WHAT)."""
from __future__ import annotations

from workers.node.handlers.common import current, on, schedule_check, send
from workers.node.handlers.context import NodeContext
from workers.node.handlers.keeper_turns import turn_delay_s
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Status


def schedule_deadline(ctx: NodeContext, args: dict, origin: str, countdown: float | None = None, hop: int = 0) -> None:
    """Send a DeadlineReached event for (task, round, phase) to this node's validator queue."""
    key = f"deadline:{args['taskId']}:{args['round']}:{args['phase']}:{hop}"
    check = {"taskId": int(args["taskId"]), "round": int(args["round"]), "phase": int(args["phase"]),
             "deadline": int(args["deadline"]), "hop": hop, "origin": origin}
    if args.get("turn_waited"):
        check["turn_waited"] = True
    schedule_check(ctx, "DeadlineReached", key, check, countdown)


@on("DeadlineReached", "validator")
def deadline_reached(ctx: NodeContext, ev: HandledEvent) -> None:
    args = ev.args
    task_id, round_, phase = int(args["taskId"]), int(args["round"]), Phase(int(args["phase"]))
    task = current(ctx, task_id, round_, phase)
    if task is None:
        return  # the phase ended on its own
    left = int(args["deadline"]) - ctx.view.protocol_time()
    if left >= 0:
        schedule_deadline(ctx, args, args["origin"], countdown=left + 1, hop=int(args["hop"]) + 1)
        return
    # every validator of the task keeps its phases' deadlines: they take turns (keeper_turns)
    subject = b"advance" + b"".join(int(x).to_bytes(32, "big") for x in (task_id, round_, phase, args["deadline"]))
    if not args.get("turn_waited") and (wait := turn_delay_s(ctx, subject, task.num_validators)) > 0:
        schedule_deadline(ctx, {**args, "turn_waited": True}, args["origin"], countdown=wait, hop=int(args["hop"]) + 1)
        return
    # estimated at "pending": at "latest" a chain that mines only on transactions is still before
    # the deadline (workers.chain.stalls)
    send(ctx, ctx.deployment.registry.functions.advance(task_id),
         done=("WrongPhase", "WrongStatus", "DeadlineNotReached"), estimate_at="pending")


FIRST_CLAIM_CHECK_S = 10.0
"""When a validator first looks at a new task's claims. Most tasks are filled by then; at the
creation itself every claiming node's lane works on the task, and a look then took CPU from them."""


@on("TaskCreated", "validator")
def keep_claim_window(ctx: NodeContext, ev: HandledEvent) -> None:
    """A task nobody fills within its claim window can only fail (refunding its requester), and
    someone must call advance() for that: schedule a look at the task FIRST_CLAIM_CHECK_S after
    its creation, which reschedules itself to the claim deadline while the task is unfilled.
    Nothing is read from the chain now."""
    task_id = int(ev.args["taskId"])
    schedule_check(ctx, "ClaimDeadlineReached", f"claim-deadline:{task_id}:0",
                   {"taskId": task_id, "hop": 0, "origin": ev.key}, countdown=FIRST_CLAIM_CHECK_S)


@on("ClaimDeadlineReached", "validator")
def claim_deadline_reached(ctx: NodeContext, ev: HandledEvent) -> None:
    args = ev.args
    task_id = int(args["taskId"])
    task = ctx.view.task(task_id)
    if task.status not in (Status.OPEN, Status.DRAWING):
        return  # filled (or ended) in time
    left = task.claim_deadline - ctx.view.protocol_time()
    hop = int(args["hop"]) + 1
    if left >= 0:
        schedule_check(ctx, "ClaimDeadlineReached", f"claim-deadline:{task_id}:{hop}", {**args, "hop": hop},
                       countdown=left + 1)
        return
    # every validator keeps every task's claim window: the pool takes turns (keeper_turns)
    subject = b"advance" + task_id.to_bytes(32, "big") + task.claim_deadline.to_bytes(32, "big")
    if not args.get("turn_waited") and (wait := turn_delay_s(ctx, subject)) > 0:
        schedule_check(ctx, "ClaimDeadlineReached", f"claim-deadline:{task_id}:{hop}",
                       {**args, "hop": hop, "turn_waited": True}, countdown=wait)
        return
    send(ctx, ctx.deployment.registry.functions.advance(task_id), done=("WrongStatus", "DeadlineNotReached"),
         estimate_at="pending")
