"""Stops brownie 1.22 from calling a mined transaction "dropped" on anvil.

Brownie decides a transaction was dropped when the sender's nonce has moved past it but no receipt
is found. anvil advances the nonce a moment before it stores the receipt, so under load brownie
now and then raises "Tx dropped without known replacement" for a transaction that was mined.
`install()` makes brownie look again for the receipt (for up to 10 s) before it gives up; a
transaction that really was dropped is still reported as dropped.
"""

import time

from brownie import web3
from brownie.exceptions import TransactionError
from brownie.network.account import _PrivateKeyAccount
from brownie.network.transaction import Status
from web3.exceptions import TransactionNotFound

RECHECK_SECONDS = 10.0
_original = _PrivateKeyAccount._await_confirmation


def _mined_receipt(txid: str):
    deadline = time.monotonic() + RECHECK_SECONDS
    while time.monotonic() < deadline:
        try:
            receipt = web3.eth.get_transaction_receipt(txid)
        except TransactionNotFound:
            receipt = None
        if receipt is not None and receipt["blockHash"] is not None:
            return receipt
        time.sleep(0.05)
    return None


def _await_confirmation(self, receipt, required_confs, gas_strategy, gas_iter):
    try:
        return _original(self, receipt, required_confs, gas_strategy, gas_iter)
    except TransactionError as exc:
        if "dropped without known replacement" not in str(exc):
            raise
        mined = _mined_receipt(receipt.txid)
        if mined is None:
            raise
        # Re-run brownie's own confirmation now that the receipt exists: it sets status, events, gas.
        receipt.status = Status.Pending
        receipt._confirmed.clear()
        receipt._await_confirmation(mined["blockNumber"], required_confs)
        return receipt


def install() -> None:
    """Idempotent: patches brownie's accounts once per process."""
    _PrivateKeyAccount._await_confirmation = _await_confirmation
