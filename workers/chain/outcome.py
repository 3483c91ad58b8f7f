"""Why a task ended, in the words `decentrl task status/result` and the explorer show: one rule for
both, read from the task's own record (workers.chain.view.TaskInfo). SPECIFICATION.md 5.1."""

from __future__ import annotations

from workers.protocol import FINAL_STATUSES, Status

REFUNDED = "the unspent bounty was refunded (decentrl wallet claim)"


def describe_end(task) -> str:
    """How `task` ended ("" while it runs): completed, ended without a result, failed (before its
    first round, after two idle rounds, or on an upheld dispute) or cancelled."""
    if task.status not in FINAL_STATUSES:
        return ""
    if task.status == Status.COMPLETED:
        rounds = f"{task.num_rounds} round{'' if task.num_rounds == 1 else 's'}"
        return f"completed after {rounds}: its last accepted checkpoint is the result"
    if task.status == Status.NO_RESULT:
        return "ended without a result: no round's checkpoint was accepted"
    if task.status == Status.CANCELLED:
        return "cancelled by its requester before its rounds started"
    if not task.started:
        return "failed before its first round: its slots were not all filled within the claim window"
    where = f"failed in round {task.round + 1} of {task.num_rounds}"
    if task.idle_rounds >= 2:
        return f"{where}: two rounds in a row ended without an accepted checkpoint"
    return f"{where}: a dispute proved work of the task bad"
