"""Chains that mine a block only when a transaction arrives (anvil's default, the demo's chain and
the dev chain docs/requesters.md starts): on them, whatever waits for a *later block* waits for
good unless someone sends a transaction, and the head's timestamp stands still, so a deadline read
at "latest" never passes.

Two things keep a task moving there, and cost nothing on a chain that mines on its own:
- protocol time is read as a transaction sent now would see it: at the "pending" block, whose
  timestamp is the present (ChainView.protocol_time);
- a node (or `decentrl task advance`) that needs a later block while the head has stood still for
  a while sends an empty transaction to itself, which mines one (`nudge_if_stalled`)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

LOCAL_NUDGE_AFTER_S = 2.0
"""How long the head of a chain on this machine may stand still while a block is needed before a
node mines one. A local chain is a dev chain: an empty transaction there costs nothing."""


def default_nudge_after_s(rpc_url: str) -> float:
    """LOCAL_NUDGE_AFTER_S for a chain on this machine; 0 (never nudge) for any other, whose blocks
    come on their own (an operator of a remote dev chain turns it on: `node start --nudge-after`)."""
    from workers.chain.rpc import is_local_url  # here: `node start --help` reads this module, web3 is slow to import

    return LOCAL_NUDGE_AFTER_S if is_local_url(rpc_url) else 0.0


def head_age_s(w3) -> int:
    """Seconds the chain's head has stood still: the pending block's timestamp (the present, as the
    chain's clock has it, offsets included) less the head's."""
    return int(w3.eth.get_block("pending")["timestamp"]) - int(w3.eth.get_block("latest")["timestamp"])


def nudge(sender) -> int:
    """Mines one block on a chain that mines on transactions: an empty transfer from the sender to
    itself (21,000 gas). Returns the block it landed in."""
    receipt = sender.send(to=sender.address, value=0)
    return int(receipt["blockNumber"])


def nudge_if_stalled(w3, sender, after_s: float) -> bool:
    """Nudges (see `nudge`) when `after_s` > 0 and the head has stood still for at least `after_s`
    seconds; returns whether it did."""
    if after_s <= 0 or head_age_s(w3) < after_s:
        return False
    block = nudge(sender)
    log.info("the chain's head stood still for %.0f s or more: mined block %d with an empty transaction",
             after_s, block)
    return True
