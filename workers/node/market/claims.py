"""Whether a node takes a slot: its share of the bounty covers the operator's price for the work
the spec implies (pricing), and the node can finish that work inside the task's window
(feasibility). A slot it does not take is recorded with why (MarketBook.pass_over, the
`decentrl_tasks_passed_over` metric, a log line), for `decentrl node status`.

A validator cannot decline: the draw assigns it (SPECIFICATION 5.3), and pausing itself around a
draw is the manipulation that section leaves open. So for a validator the same check only records
a drawn slot that pays less than its price or that it cannot verify in time ("drawn-priced-out",
"drawn-infeasible"): the operator's signal to raise its capacity or leave the pool (unstake)."""
from __future__ import annotations

import logging

from workers.node.market import throughput
from workers.node.market.feasibility import KINDS, estimate, infeasible, window_of
from workers.node.market.pricing import priced_out
from workers.node.observe import metrics
from workers.payouts import slot_share
from workers.protocol import Role
from workers.spec_work import round_work

log = logging.getLogger(__name__)


def refusal(ctx, task, spec, role: Role, calibrate: bool = True) -> tuple[str, str] | None:
    """(code, why) when this node should not work `role` on `task` (a TaskInfo) with `spec`: code
    "priced-out" or "infeasible"; None when it should. Without `calibrate`, an env and policy size
    the node has no rate for yet is not judged for time (a drawn validator's check: it runs on the
    round's critical path, and a calibration would delay its vote)."""
    role = Role(role)
    work = round_work(spec, role, task.num_samplers)
    why = priced_out(slot_share(task, role), ctx.settings.price_of(role), work.priced_steps)
    if why:
        return "priced-out", why
    rates = throughput.rates(ctx, spec, KINDS[role], calibrate=calibrate)
    if rates is None:
        return None
    why = infeasible(estimate(role, work, rates, window_of(task, role), ctx.settings.feasibility_margin), role)
    if why:
        return "infeasible", why
    return None


def pass_over(ctx, task_id: int, role: Role, code: str, why: str) -> None:
    """Record (MarketBook, metric, log) that the node did not take `role` on the task, and why."""
    name = Role(role).name.lower()
    log.info("task %d: not taking the %s slot: %s", task_id, name, why)
    metrics.passed_over(name, code)
    try:
        throughput.book(ctx).pass_over(task_id, name, code, why)
    except Exception as exc:  # noqa: BLE001 - a record for the operator; the decision stands
        log.warning("could not record passing over task %d: %s: %s", task_id, type(exc).__name__, exc)
