"""What a task is waiting for, and until when: the one place that reads it from the chain, for
`decentrl task status` and the explorer, so that no task sits without a reason anyone can read.

- open: the sampler and trainer slots nobody has claimed yet, until the claim deadline;
- drawing: the validator draw, which needs a block mined after the seed block (a chain that mines
  only on transactions needs one more transaction), until the claim deadline;
- active: the nodes that have yet to act in the current phase (commit, reveal, attest), until the
  phase deadline.

Past a deadline anyone may send `advance` (`decentrl task advance ID`), which moves the task on."""

from __future__ import annotations

from dataclasses import dataclass

from workers.protocol import Phase, Role, Status

ZERO32 = b"\x00" * 32

PHASE_ACTS = {
    Phase.SAMPLE_COMMIT: (Role.SAMPLER, "commit its shard"),
    Phase.SAMPLE_REVEAL: (Role.SAMPLER, "reveal its shard"),
    Phase.TRAIN_COMMIT: (Role.TRAINER, "commit its checkpoint"),
    Phase.TRAIN_REVEAL: (Role.TRAINER, "reveal its checkpoint"),
    Phase.ATTEST: (Role.VALIDATOR, "commit its sealed vote"),
    Phase.ATTEST_REVEAL: (Role.VALIDATOR, "reveal its vote"),
}
"""Who acts in each phase, and what it has to send."""


@dataclass(frozen=True)
class Pending:
    """One slot whose node has yet to act (node None: the slot is vacant, waiting for a claim)."""

    role: Role
    slot: int
    node: str | None
    act: str


@dataclass(frozen=True)
class Waiting:
    """What the task waits for; `lines` says it in words."""

    task_id: int
    status: Status
    waiting_for: str
    """In a few words: "claims", "the validator draw", "sample commit" ..."""
    pending: tuple[Pending, ...]
    deadline: int
    """Protocol time (TaskRegistry.protocolTime) by which it must happen."""
    seconds_left: int
    """deadline - now; negative once it has passed."""
    seed_block: int | None = None
    """Drawing: the block whose hash seeds the draw; the draw needs a later block."""
    current_block: int | None = None

    @property
    def overdue(self) -> bool:
        return self.seconds_left < 0

    def lines(self) -> list[str]:
        out = [f"waiting for {self.waiting_for}"
               + (f" (seed block {self.seed_block}, current block {self.current_block})"
                  if self.seed_block is not None else "")]
        if self.seed_block is not None:
            out.append(f"  the draw can be made now: a node draws, or `decentrl task advance {self.task_id}` "
                       "(anyone may send it)" if self.current_block > self.seed_block else
                       f"  it needs block {self.seed_block + 1}: a chain that mines only on transactions mines it "
                       f"with the next transaction (nodes send one; so does `decentrl task advance {self.task_id}`)")
        for p in self.pending:  # vacant slots are in the slot list already
            if p.node:
                out.append(f"  {p.role.name.lower():<10}{p.slot}  {p.node} has yet to {p.act}")
            elif self.status == Status.ACTIVE:
                out.append(f"  {p.role.name.lower():<10}{p.slot}  vacant: waiting for a node to claim it")
        what = "claim deadline" if self.status in (Status.OPEN, Status.DRAWING) else "phase deadline"
        if not self.overdue:
            out.append(f"until the {what}, in {self.seconds_left} s")
            return out
        moves = ("fails the task and refunds its bounty" if self.status in (Status.OPEN, Status.DRAWING) else
                 "closes the phase: the nodes that did not act are vacated and the task moves on")
        out.append(f"the {what} passed {-self.seconds_left} s ago: `decentrl task advance {self.task_id}` "
                   f"(anyone may send it) {moves}")
        return out


def waiting_for(view, task, now: int, block_number: int) -> Waiting | None:
    """What `task` (a workers.chain.view.TaskInfo) waits for at protocol time `now` (read as a
    transaction sent now sees it: ChainView.protocol_time) and chain height `block_number`; None
    once it has ended."""
    if task.status == Status.OPEN:
        pending = tuple(Pending(s.role, s.slot, None, "claim") for s in view.slots(task.task_id)
                        if s.node is None and s.role != Role.VALIDATOR)
        return Waiting(task.task_id, task.status, "claims of " + _slots(pending), pending, task.claim_deadline,
                       task.claim_deadline - now)
    if task.status == Status.DRAWING:
        return Waiting(task.task_id, task.status, "the validator draw", (), task.claim_deadline,
                       task.claim_deadline - now, seed_block=task.seed_block, current_block=block_number)
    if task.status != Status.ACTIVE:
        return None
    role, act = PHASE_ACTS[task.phase]
    pending = tuple(Pending(role, s.slot, s.node, act) for s in view.slots(task.task_id, role)
                    if s.node is None or not _acted(view, task, role, s.slot))
    phase = task.phase.name.lower().replace("_", " ")
    what = f"{phase} of round {task.round + 1}" + (f": {_nodes(pending)}" if pending else
                                                   ": every node has acted; the phase closes with its next "
                                                   "transaction")
    return Waiting(task.task_id, task.status, what, pending, task.phase_deadline, task.phase_deadline - now)


def _acted(view, task, role: Role, slot: int) -> bool:
    """Whether the node in `slot` has done what the current phase asks of it this round."""
    state, registry, t, r = view.deployment.state, view.deployment.registry, task.task_id, task.round
    if role == Role.VALIDATOR:
        if task.phase == Phase.ATTEST:
            return bytes(view.read(state, "attestCommitmentOf", t, r, slot)) != ZERO32
        return view.read(registry, "attestationOf", t, r, slot).voted
    sub = view.read(state, "submissionOf", t, r, role, slot)
    if task.phase in (Phase.SAMPLE_COMMIT, Phase.TRAIN_COMMIT):
        return bytes(sub.commitment) != ZERO32
    return sub.revealed


def _slots(pending) -> str:
    samplers = sum(p.role == Role.SAMPLER for p in pending)
    parts = ([f"{samplers} sampler slot{'s' if samplers != 1 else ''}"] if samplers else []) + \
        (["the trainer slot"] if any(p.role == Role.TRAINER for p in pending) else [])
    return " and ".join(parts) or "no slot (every one is filled)"


def _nodes(pending) -> str:
    n = len(pending)
    return f"{n} node{'s' if n != 1 else ''} to act"
