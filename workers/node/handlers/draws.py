"""A worker's forced-error draw (SPECIFICATION.md 12.4): the salt that hides its result of round r
is the commitment to its draw secret of round r + 1 (`salt_for`); when it works in a round it
learns from that secret and the round's seed whether the round forces it to plant its error
(`is_forced_now`); and in the round's AttestReveal, once every vote is sealed, it opens the secret
(`open_draw`) so that the chain can tell a planted error from a fault."""
from __future__ import annotations

import logging
import os

from workers.node.handlers.common import ZERO32, current, send, submission
from workers.node.handlers.context import NodeContext
from workers.protocol import Phase, Role, draw_commitment, is_forced

log = logging.getLogger(__name__)


def salt_for(ctx: NodeContext, task, round_: int) -> bytes:
    """The salt of this node's result commitment of `round_`: its draw commitment for the next
    round (the secret is stored first, so a restarted node can still open it), or fresh random
    bytes in the task's last round, which has no next draw."""
    if round_ + 1 >= task.num_rounds:
        return os.urandom(32)
    secret = ctx.secrets.draw_secret(task.task_id, round_ + 1)
    return draw_commitment(task.task_id, round_ + 1, ctx.address, secret)


def is_forced_now(ctx: NodeContext, task_id: int, round_: int) -> bool:
    """Whether this node's draw forces it to plant its error in `round_`. False in a node's first
    round of a slot (no draw was committed for it). A committed draw whose secret this node no
    longer holds cannot be opened: that is logged, and the node works unforced (it will be
    vacated as Withheld at the round's end)."""
    state = ctx.deployment.state
    committed = bytes(ctx.view.read(state, "drawCommitmentOf", task_id, round_, ctx.address))
    if committed == ZERO32:
        return False
    secret = ctx.secrets.draw_secret(task_id, round_)
    if draw_commitment(task_id, round_, ctx.address, secret) != committed:
        log.error("task %d round %d: the committed draw does not open with the secret in %s (was the "
                  "node directory replaced?); the draw cannot be opened", task_id, round_, ctx.secrets.path)
        return False
    seed = bytes(ctx.view.read(state, "roundSeed", task_id, round_))
    return is_forced(secret, seed, ctx.view.read(state, "forcedErrorBps"))


def open_draw(ctx: NodeContext, task_id: int, round_: int, role: Role) -> None:
    """AttestReveal: opens this node's draw of the round if it revealed a result this round under
    a committed draw and has not opened it yet."""
    if current(ctx, task_id, round_, Phase.ATTEST_REVEAL) is None:
        return
    m = ctx.view.membership(task_id, ctx.address)
    if not m.assigned or m.role != role:
        return
    sub = submission(ctx, task_id, round_, role, m.slot)
    if sub.node != ctx.address or not sub.revealed:
        return
    state = ctx.deployment.state
    if bytes(ctx.view.read(state, "drawCommitmentOf", task_id, round_, ctx.address)) == ZERO32:
        return  # the node's first round in this slot: nothing to open
    secret = ctx.secrets.draw_secret(task_id, round_)
    send(ctx, ctx.deployment.registry.functions.openDraw(task_id, round_, secret), done=("AlreadyOpened",))


def commit_first_draw(ctx: NodeContext, task_id: int, role: Role) -> None:
    """Right after this node took a slot: commits its draw for the first round it works in, which
    no earlier reveal of its own committed (commitDraw). Too late once that round has begun (its
    seed is fixed): the round is then unforced for this node, as the chain enforces."""
    m = ctx.view.membership(task_id, ctx.address)
    if not m.assigned or m.role != role:
        return
    first = ctx.view.read(ctx.deployment.state, "slotOf", task_id, role, m.slot).sinceRound
    if bytes(ctx.view.read(ctx.deployment.state, "roundSeed", task_id, first)) != ZERO32:
        return  # its first round has begun
    commitment = draw_commitment(task_id, first, ctx.address, ctx.secrets.draw_secret(task_id, first))
    send(ctx, ctx.deployment.registry.functions.commitDraw(task_id, commitment),
         done=("DrawTooLate", "AlreadyCommitted"))
