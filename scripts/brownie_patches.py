"""Four fixes for brownie 1.22, installed by tests/conftest.py and the scripts.

1. A mined transaction called "dropped". Brownie decides a transaction was dropped when the
   sender's nonce has moved past it but no receipt is found. anvil advances the nonce a moment
   before it stores the receipt, so under load brownie now and then raises "Tx dropped without
   known replacement" for a transaction that was mined. Brownie now looks again for the receipt
   (for up to 10 s) before it gives up; a transaction that really was dropped still raises.

2. Reverted transactions coming back. Every attribute access on brownie's TxHistory re-filters and
   re-assigns its list, and a receipt's confirmation thread reads the history after it has
   signalled confirmation. When that thread is slow (a loaded machine) its re-assignment can land
   after a chain revert pruned the list, resurrecting transactions of a reverted test; the next
   transaction from the same sender then waits forever in `_pending_nonce` for a nonce the chain
   will never reach. One lock now serialises every access to the history.

3. Live networks' deployments database. On a network with a chain id (every live one) brownie
   records each contract it deploys or attaches to in its own deployments.db, and 1.22's compiled
   `_add_deployment` rejects a project contract (`TypeError: dict object expected; got
   brownie.project.sources.Sources`): `Container.at` raised, so scripts/submit_task.py could not
   run on a live network, and a live deploy printed a traceback per contract from brownie's
   confirmation threads. The project keeps its own record (deployments/<network>.json, written by
   scripts/deploy.py), so brownie's database is not written.

4. anvil's old states filling the disk. anvil writes the states it evicts from memory to
   ~/.foundry/anvil/tmp/anvil-state-*, and removes them only on a graceful exit; brownie kills it
   (SIGKILL), so each test session left up to ~740 MB behind (72 GB had piled up on one machine).
   The anvil brownie launches now keeps them in a folder of its own (`--cache-path`), removed when
   brownie kills it (its exit hook does too).
"""

import shutil
import tempfile
import threading
import time

from brownie import web3
from brownie.exceptions import TransactionError
from brownie.network.account import _PrivateKeyAccount
from brownie.network.state import TxHistory
from brownie.network.transaction import Status
from web3.exceptions import TransactionNotFound

RECHECK_SECONDS = 10.0
_original_await = _PrivateKeyAccount._await_confirmation
_original_getattribute = TxHistory.__getattribute__
_history_lock = threading.RLock()


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
        return _original_await(self, receipt, required_confs, gas_strategy, gas_iter)
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


def _locked_getattribute(self, name):
    with _history_lock:
        return _original_getattribute(self, name)


def _locked(method):
    def locked(self, *args, **kwargs):
        with _history_lock:
            return method(self, *args, **kwargs)

    return locked


def _no_deployments_db(*args, **kwargs) -> None:
    """brownie's deployments.db is not written (fix 3)."""


_anvil_caches: list[str] = []


def _remove_anvil_caches() -> None:
    while _anvil_caches:
        shutil.rmtree(_anvil_caches.pop(), ignore_errors=True)


def _launching_with_own_cache(launch):
    def launch_with_own_cache(cmd: str, **kwargs):
        cache = tempfile.mkdtemp(prefix="decentrl-anvil-cache-")
        _anvil_caches.append(cache)
        return launch(f"{cmd} --cache-path {cache}" if cmd.split(" ")[0].endswith("anvil") else cmd, **kwargs)
    return launch_with_own_cache


def _killing_and_removing_caches(kill):
    def kill_and_remove_caches(self, exc: bool = True) -> None:
        try:
            kill(self, exc)
        finally:
            _remove_anvil_caches()
    return kill_and_remove_caches


def install() -> None:
    """Idempotent: patches brownie once per process."""
    if getattr(TxHistory, "_decentrl_patched", False):
        return
    import brownie.network.contract as contract_module  # pure Python: its calls go through this name

    contract_module._add_deployment = _no_deployments_db
    from brownie.network.rpc import Rpc
    from brownie.network.rpc import anvil as anvil_backend

    anvil_backend.launch = _launching_with_own_cache(anvil_backend.launch)
    Rpc.kill = _killing_and_removing_caches(Rpc.kill)  # brownie's exit hook kills through it
    _PrivateKeyAccount._await_confirmation = _await_confirmation
    TxHistory.__getattribute__ = _locked_getattribute
    for name in ("_revert", "_add_tx", "_reset", "clear", "filter", "from_sender", "to_receiver", "copy"):
        setattr(TxHistory, name, _locked(getattr(TxHistory, name)))
    TxHistory._decentrl_patched = True
