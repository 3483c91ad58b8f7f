"""What the chain layer reports as it works: the transactions a TxSender sends, mines and fails,
and the reorganisations an EventWatcher meets. A node passes its metrics in
(workers.node.observe.metrics.OBSERVER); everyone else gets this base class, which ignores them.
Injected rather than imported, so that the chain layer depends on nothing above it."""
from __future__ import annotations


class ChainObserver:
    """Reports by contract function `fn` (sender.fn_name of a transaction's description); every
    method here does nothing. An observer must not raise: the chain's work goes on regardless."""

    def tx_sent(self, fn: str) -> None:
        """A transaction was sent (a replacement at the same nonce counts again)."""

    def tx_mined(self, fn: str, gas_used: int) -> None:
        """A sent transaction was mined (reverted or not), using `gas_used` gas."""

    def tx_failed(self, fn: str, reason: str, stage: str) -> None:
        """A transaction failed: `reason` is the decoded custom error, OutOfGas, Dropped,
        FeeCapExceeded or the RPC error's type; `stage` is estimate (reverted before sending), send
        (refused by the RPC) or mined (reverted on chain, or dropped)."""

    def chain_reorg(self, watcher: str, blocks: int) -> None:
        """A reorganisation replaced `blocks` blocks whose events the watcher had delivered."""


IGNORED = ChainObserver()
"""The default observer: nothing is reported anywhere."""
