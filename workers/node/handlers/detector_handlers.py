"""The detector's side of disputes (SPECIFICATION.md 13, "The detector disputes"): a validator
whose checks found a fault that the round's verdict did not act on states its evidence itself.

- RoundFinalized, validator (its own tasks only: workers.node.queues.interest): for each
  submission this node rejected in the round (its verdict note, workers.node.handlers.validator_handlers)
  whose verdict is Accepted (it dissented) or Inconclusive and that nobody disputed yet, it opens a
  dispute naming the item its check failed on (`openDispute(..., evidence, item)`), posting the
  protocol's minimum bond. For a sampler's shard it then looks for an episode with a fault the
  chain can check (workers.roles.fault_proof, the named episode first; the CLI's `dispute prove`
  uses the same search) and offers it with its Merkle proof (`proveFault`): the dispute is then
  upheld at once; otherwise the jurors re-execute the named episode, transition or chunk.

Why the node does this on its own: a dissent is not paid for the round (the quorum accepted), so
a validator that saw a fault is paid for it only through the dispute (its bond back and the
winner's part of the slashes); a detector that stayed silent would have worked for nothing."""
from __future__ import annotations

import logging

from workers.chain.errors import TxReverted
from workers.node.handlers.common import on, send
from workers.node.handlers.context import NodeContext
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Evidence, Role, Verdict

log = logging.getLogger(__name__)

DISPUTED_VERDICTS = (Verdict.ACCEPTED, Verdict.INCONCLUSIVE)
"""The verdicts a rejection is disputed against: the ones that did not reject the work."""


def rejections(note: dict) -> list[tuple[Role, int, Evidence, int, str]]:
    """(role, slot, evidence, item, reason) of each submission a verdict note rejects (a note
    written before notes carried evidence names the whole submission). A planted judgement (its
    fifth entry: only the forced-error plant was found, the vote's plant bit) is no rejection: a
    plant vote is never disputed (SPECIFICATION.md 5.5.3, "Disputes")."""
    judged = [(Role.SAMPLER, int(slot), j) for slot, j in (note.get("samplers") or {}).items()]
    if note.get("trainer") is not None:
        judged.append((Role.TRAINER, 0, note["trainer"]))
    out = []
    for role, slot, j in sorted(judged, key=lambda x: (x[0], x[1])):
        if j[0] or (len(j) >= 5 and j[4]):
            continue
        kind, item = (Evidence(int(j[2])), int(j[3])) if len(j) >= 4 else (Evidence.WHOLE, 0)
        out.append((role, slot, kind, item, str(j[1])))
    return out


def _verdict_note(ctx: NodeContext, task_id: int, round_: int) -> dict | None:
    notes = [n["data"] for n in ctx.secrets.notes(task_id)
             if n["kind"] == "verdict" and int(n["round"]) == round_ and int(n["role"]) == Role.VALIDATOR]
    return notes[-1] if notes else None


def _state(ctx: NodeContext, name: str, *args):
    return ctx.view.read(ctx.deployment.state, name, *args)


@on("RoundFinalized", "validator")
def dispute_what_it_saw_fail(ctx: NodeContext, ev: HandledEvent) -> None:
    task_id, round_ = int(ev.args["taskId"]), int(ev.args["round"])
    if _state(ctx, "disputeManager") == "0x" + "00" * 20:
        return  # disputes are not active on this deployment
    note = _verdict_note(ctx, task_id, round_)
    if note is None:
        return  # it did not judge this round
    for role, slot, evidence, item, reason in rejections(note):
        sub = _state(ctx, "submissionOf", task_id, round_, role, slot)
        if Verdict(int(sub.verdict)) not in DISPUTED_VERDICTS:
            continue
        if _state(ctx, "disputeIdOf", task_id, round_, role, slot) == 0:
            if not _open(ctx, task_id, round_, role, slot, evidence, item, reason):
                continue
        dispute_id = _state(ctx, "disputeIdOf", task_id, round_, role, slot)
        if role == Role.SAMPLER:
            _prove(ctx, dispute_id, task_id, round_, slot, sub, item if evidence == Evidence.EPISODE else -1)


def _open(ctx: NodeContext, task_id: int, round_: int, role: Role, slot: int, evidence: Evidence, item: int,
          reason: str) -> bool:
    """Opens the dispute with the minimum bond; False when this node cannot pay it (logged)."""
    d = ctx.deployment
    bond = d.config.functions.minBond().call()
    balance = d.token.functions.balanceOf(ctx.address).call()
    if balance < bond:
        log.error("task %d round %d: %s %d failed this node's check (%s) but was not rejected; disputing it "
                  "needs a bond of %d wei DRL and the account holds %d: top it up to dispute", task_id, round_,
                  role.name.lower(), slot, reason, bond, balance)
        return False
    if d.token.functions.allowance(ctx.address, d.disputes.address).call() < bond:
        send(ctx, d.token.functions.approve(d.disputes.address, bond))
    log.info("task %d round %d: disputing %s %d (%s %d: %s)", task_id, round_, role.name.lower(), slot,
             evidence.name.lower(), item, reason)
    send(ctx, d.disputes.functions.openDispute(task_id, round_, int(role), slot, bond, int(evidence), item),
         done=("AlreadyDisputed",))
    return True


def proof_candidates(blob: bytes, root: bytes, round_: int, slot: int, named: int):
    """The shard's episodes with a fault the chain can check (workers.roles.fault_proof), the one
    the dispute names first: what to offer proveFault. Empty when there is none (or the blob does
    not reach its root): the jurors judge."""
    from workers.roles.fault_proof import NotAShard, provable_faults, shard_items

    try:
        items = shard_items(blob, root)
    except NotAShard:
        return []
    return sorted(provable_faults(items, round_, slot), key=lambda f: f.index != named)


def _prove(ctx: NodeContext, dispute_id: int, task_id: int, round_: int, slot: int, sub, named: int) -> None:
    """Proves the dispute on-chain where the shard has a fault the chain checks (the chain stays the
    judge: a refused proof is logged and left to the jurors)."""
    for fault in proof_candidates(ctx.store.get(sub.cid), bytes(sub.root), round_, slot, named):
        try:
            send(ctx, ctx.deployment.disputes.functions.proveFault(dispute_id, fault.item, fault.proof),
                 done=("WrongDisputeStatus",))
            return
        except TxReverted as exc:
            if exc.error.name not in ("NoFaultProven", "MalformedEpisode"):
                raise
            log.info("dispute %d: the chain refused episode %d (%s)", dispute_id, fault.index, exc.error.name)
    log.info("dispute %d: no episode of task %d round %d shard %d has a fault the chain can check: the jurors "
             "re-execute the evidence", dispute_id, task_id, round_, slot)
