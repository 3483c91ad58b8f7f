"""Whether a node can finish a slot's work of a round inside the task's window: its work
(workers.spec_work.RoundWork) at the node's measured rates (workers.node.market.throughput), with
a safety margin (NodeSettings.feasibility_margin: estimated time <= margin x window).

The window is the phase the work is done in: the commit window for a sampler's rollout and a
trainer's update, the attest window for a validator's checks. A validator replays at its replay
rate and re-executes the trainer's gradient steps at its update rate."""
from __future__ import annotations

from dataclasses import dataclass

from workers.node.market.pricing import steps_text
from workers.protocol import Role
from workers.spec_work import RoundWork

KINDS = {Role.SAMPLER: ("rollout",), Role.TRAINER: ("update",), Role.VALIDATOR: ("replay", "update")}
"""The rates (steps or samples per second) each role's work is estimated with."""


@dataclass(frozen=True)
class Estimate:
    seconds: float
    window_s: int
    margin: float
    text: str
    """What the work is and the rates it is estimated at ("shards of 200k steps need ~410 s at 490 steps/s")."""

    @property
    def feasible(self) -> bool:
        return self.seconds <= self.margin * self.window_s


def window_of(task, role: Role) -> int:
    """Seconds of the phase `role` works in."""
    return int(task.attest_window if Role(role) == Role.VALIDATOR else task.commit_window)


def estimate(role: Role, work: RoundWork, rates: dict[str, float], window_s: int, margin: float) -> Estimate:
    """The time `work` takes at `rates` (kind -> per second, KINDS) against `margin` x `window_s`."""
    role = Role(role)
    if role == Role.SAMPLER:
        seconds = work.rollout_steps / rates["rollout"]
        text = (f"shards of {steps_text(work.rollout_steps)} steps need ~{seconds:,.0f} s at "
                f"{rates['rollout']:,.0f} steps/s")
    elif role == Role.TRAINER:
        seconds = work.update_samples / rates["update"]
        text = (f"an update over {steps_text(work.update_samples)} samples needs ~{seconds:,.0f} s at "
                f"{rates['update']:,.0f} samples/s")
    else:
        seconds = work.rollout_steps / rates["replay"] + work.update_samples / rates["update"]
        text = (f"checks of {steps_text(work.rollout_steps)} replayed steps and {steps_text(work.update_samples)} "
                f"re-trained samples need ~{seconds:,.0f} s at {rates['replay']:,.0f} and {rates['update']:,.0f}/s")
    return Estimate(seconds, window_s, margin, text)


def infeasible(est: Estimate, role: Role) -> str | None:
    """Why the work cannot be finished in time, or None when it can."""
    if est.feasible:
        return None
    phase = "attest" if Role(role) == Role.VALIDATOR else "commit"
    return f"{est.text}, {phase} window {est.window_s} s (at most {est.margin:g} of it is used)"
