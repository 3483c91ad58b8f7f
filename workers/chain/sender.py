"""One transaction sender per account, shared by every process of a node.

Every send takes a per-account Redis lock around "allocate nonce, sign, send", so however many
Celery workers, threads or processes send from the account, nonces come out as one contiguous
sequence. The next nonce lives in Redis (`decentrl:nonce:<chainId>:<genesis>:<address>`, a chain
being its id and its genesis block: a restarted dev chain with the same id is a new chain, where a
nonce kept for the old one would queue every send behind a gap nobody fills); it is taken from
the chain's pending nonce when the key is missing, and resynced from it after a 'nonce too low'
/ 'nonce too high' answer, a failed send, or a dropped transaction; an 'already known' answer
means the node holds this very transaction, which is then taken as sent. Gas is estimated (a revert
there raises TxReverted before anything is sent); the receipt is awaited outside the lock with a
timeout (30 s by default) and polled every 0.02 s on a chain on this machine, every 0.5 s on any
other (someone's RPC service, which counts requests). A transaction still pending at the timeout
is sent again at its nonce with its fees raised by FEE_BUMP (a wallet's "speed up": the node's
pool replaces the old one), up to max_bumps times, each waited for as long; whichever of them is
mined is the transaction, and one that none of them became is dropped. An account may cap what
it pays per gas (max_fee_per_gas: a fee spike on a public chain): fees are cut to the cap, a base
fee above it sends nothing (FeeCapExceeded, retried later), and a speed-up the cap leaves
under the pools' +10% is not sent (the pending one goes on waiting). A mined revert is
re-simulated with eth_call at its block to recover the custom error. The key signs locally and is
never logged."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter
from dataclasses import dataclass

from eth_abi import encode
from eth_abi.exceptions import EncodingError
from eth_utils import function_abi_to_4byte_selector, keccak
from web3.exceptions import ContractLogicError, TimeExhausted, TransactionNotFound, Web3RPCError

from workers.chain.abi import canonical_type
from workers.chain.deployment import genesis_hash
from workers.chain.errors import (
    DecodedError,
    DroppedTransaction,
    FeeCapExceeded,
    TxReverted,
    decode_revert,
    gwei,
    revert_data_of,
)
from workers.chain.observer import IGNORED, ChainObserver
from workers.chain.rpc import is_local_url, raw_batch, result_of

log = logging.getLogger(__name__)

RESYNC_MESSAGES = ("nonce too low", "nonce too high")
ALREADY_SENT_MESSAGES = ("already known", "already imported")
"""The node already holds this very transaction (geth: "already known", anvil: "transaction already
imported"): the same signed bytes, so the same hash and nonce."""
FEE_BUMP = 1.25
"""A replacement's fees against the transaction it replaces: pools take a replacement at +10% or
more of both the tip and the fee cap (geth, anvil: REPLACEMENT_MIN)."""
REPLACEMENT_MIN = 1.10
LOCAL_POLL_S, REMOTE_POLL_S = 0.02, 0.5
"""How often a receipt is asked for: a local chain answers in a millisecond and mines at once; a
remote one makes a block every few seconds and its provider counts the requests."""


@dataclass(frozen=True)
class SentTx:
    tx_hash: str
    nonce: int
    tx: dict
    description: str


class TxSender:
    """Signs and sends transactions for one account; see the module docstring."""

    def __init__(self, w3, account, redis, *, receipt_timeout: float = 30.0, poll_latency: float | None = None,
                 gas_multiplier: float = 1.2, lock_timeout: float = 30.0, lock_poll: float = 0.002,
                 max_resyncs: int = 3, max_bumps: int = 3, max_fee_per_gas: int | None = None,
                 key_prefix: str = "decentrl", observer: ChainObserver = IGNORED):
        self.w3 = w3
        self._account = account
        self.redis = redis
        self.chain_id = w3.eth.chain_id
        self.receipt_timeout = receipt_timeout
        if poll_latency is None:
            local = is_local_url(str(getattr(w3.provider, "endpoint_uri", "") or ""))
            poll_latency = LOCAL_POLL_S if local else REMOTE_POLL_S
        self.poll_latency = poll_latency
        self.max_bumps = max_bumps
        if max_fee_per_gas is not None and max_fee_per_gas <= 0:
            raise ValueError(f"max_fee_per_gas must be > 0 wei, got {max_fee_per_gas}")
        self.max_fee_per_gas = max_fee_per_gas
        self.gas_multiplier = gas_multiplier
        self.lock_timeout = lock_timeout
        self.lock_poll = lock_poll  # redis-py polls a held lock; its default 0.1 s idles the account
        self.max_resyncs = max_resyncs
        chain = f"{self.chain_id}:{genesis_hash(w3)[2:18]}"
        self.nonce_key = f"{key_prefix}:nonce:{chain}:{account.address}"
        self.lock_key = f"{key_prefix}:nonce-lock:{chain}:{account.address}"
        self.stats = Counter()
        self._stats_lock = threading.Lock()
        self.observer = observer
        """Told of every send, mined transaction and failure (workers.chain.observer)."""

    def __repr__(self) -> str:
        return f"TxSender({self.address}, chain {self.chain_id})"

    @property
    def address(self) -> str:
        return self._account.address

    def _count(self, what: str) -> None:
        with self._stats_lock:
            self.stats[what] += 1

    # -- building ---------------------------------------------------------------------------

    def build(self, call=None, *, to: str | None = None, value: int = 0, data: bytes = b"",
              gas: int | None = None, estimate_at: str | None = None) -> dict:
        """An unsigned EIP-1559 transaction without nonce: `call` is a web3 ContractFunction
        (`registry.functions.commit(task, c)`), or give `to`/`data`/`value` directly.
        `estimate_at`: the block the gas estimate runs in (the node's default, "latest", when
        None; "pending" for a call that must run after the head block)."""
        tx = {"from": self.address, "value": value, "chainId": self.chain_id}
        if call is not None:
            to = call.address
            data = call_data(call, tx)
        tx["to"] = to
        tx["data"] = data if isinstance(data, str) else "0x" + bytes(data).hex()
        # one round trip for the estimate and the fee reads (raw: web3.py formats the whole head
        # block to give one field; every transaction of the node pays this)
        estimate = [] if gas is not None else [self._estimate_request(tx, estimate_at)]
        answers = raw_batch(self.w3, estimate + [("eth_maxPriorityFeePerGas", []),
                                                 ("eth_getBlockByNumber", ["latest", False])])
        if gas is None:
            try:
                gas = int(self._estimated(tx, estimate_at, answers[0]) * self.gas_multiplier)
            except (ContractLogicError, Web3RPCError) as exc:
                data_ = revert_data_of(exc)
                if data_ is None:
                    self.observer.tx_failed(fn_name(_describe(call, to)), type(exc).__name__, "estimate")
                    raise
                error = decode_revert(data_)
                self.observer.tx_failed(fn_name(_describe(call, to)), error.name, "estimate")
                raise TxReverted(error, call=_describe(call, to)) from None
        tx["gas"] = gas
        tip = int(result_of("eth_maxPriorityFeePerGas", answers[-2]), 16)
        base = int(result_of("eth_getBlockByNumber", answers[-1])["baseFeePerGas"], 16)
        cap = self.max_fee_per_gas
        if cap is not None and base > cap:
            self.observer.tx_failed(fn_name(_describe(call, to)), "FeeCapExceeded", "estimate")
            raise FeeCapExceeded(base, cap, _describe(call, to))
        tx["maxFeePerGas"] = fee = _under_cap(2 * base + tip, cap)
        tx["maxPriorityFeePerGas"] = min(tip, fee)
        tx["type"] = 2
        return tx

    @staticmethod
    def _estimate_request(tx: dict, block: str | None) -> tuple[str, list]:
        request = {k: (hex(v) if isinstance(v, int) else v) for k, v in tx.items() if k != "chainId"}
        return "eth_estimateGas", [request] if block is None else [request, block]  # None: the node's default

    def _estimated(self, tx: dict, block: str | None, answer: dict) -> int:
        """The raw eth_estimateGas answer's gas. A revert answer carrying its data raises as is
        (Web3RPCError: `revert_data_of` reads the data from it; a lost claim race is one, so it
        is not simulated twice); any other error answer is asked again through web3.py, which
        raises it as its callers expect."""
        try:
            return int(result_of("eth_estimateGas", answer), 16)
        except Web3RPCError as error:
            if revert_data_of(error) is not None:
                raise
            return self.w3.eth.estimate_gas(tx, block)

    # -- sending ----------------------------------------------------------------------------

    def send(self, call=None, *, to: str | None = None, value: int = 0, data: bytes = b"",
             gas: int | None = None, wait: bool = True, estimate_at: str | None = None):
        """Builds, signs and sends; returns the receipt (wait=True) or a SentTx to `wait` on."""
        tx = self.build(call, to=to, value=value, data=data, gas=gas, estimate_at=estimate_at)
        sent = self.send_built(tx, _describe(call, to))
        return self.wait(sent) if wait else sent

    def send_built(self, tx: dict, description: str = "") -> SentTx:
        """Allocates the next nonce under the account's Redis lock, signs and sends `tx`."""
        lock = self.redis.lock(self.lock_key, timeout=self.lock_timeout, blocking_timeout=self.lock_timeout,
                               sleep=self.lock_poll)
        if not lock.acquire():
            raise TimeoutError(f"nonce lock {self.lock_key} not acquired within {self.lock_timeout:g} s")
        try:
            resyncs = 0
            while True:
                stored = self.redis.get(self.nonce_key)
                if stored is None:
                    nonce = self._chain_nonce()
                else:
                    nonce = int(stored)
                signed = self._account.sign_transaction({**tx, "nonce": nonce})
                tx_hash = "0x" + keccak(signed.raw_transaction).hex()
                try:
                    self.w3.eth.send_raw_transaction(signed.raw_transaction)
                except Web3RPCError as exc:
                    message = str(exc.message or exc).lower()
                    if any(m in message for m in ALREADY_SENT_MESSAGES):
                        # An earlier send of this transaction reached the node, and the stored
                        # nonce was not moved past it (its process was killed in between): it is
                        # sent. Signing it again at a fresh nonce would make the call twice.
                        self._count("already_known")
                        log.warning("%s: %s is already at the node (nonce %d); taking it as sent",
                                    self.address, tx_hash, nonce)
                    elif any(m in message for m in RESYNC_MESSAGES) and resyncs < self.max_resyncs:
                        resyncs += 1
                        self._count("nonce_too_low" if "too low" in message else "nonce_too_high")
                        # handled: one readable line at info, not the node's raw JSON-RPC error
                        log.info("%s: nonce %d was refused (%s): taking the next nonce from the chain",
                                 self.address, nonce, rpc_words(exc))
                        self.redis.delete(self.nonce_key)
                        continue
                    else:
                        self.redis.delete(self.nonce_key)  # unknown state: take the chain's word next time
                        self.observer.tx_failed(fn_name(description), type(exc).__name__, "send")
                        raise
                except BaseException as exc:
                    self.redis.delete(self.nonce_key)
                    self.observer.tx_failed(fn_name(description), type(exc).__name__, "send")
                    raise
                self.redis.set(self.nonce_key, nonce + 1)
                self._count("sent")
                self.observer.tx_sent(fn_name(description))
                log.debug("%s sent %s nonce %d: %s", self.address, description, nonce, tx_hash)
                return SentTx(tx_hash, nonce, {**tx, "nonce": nonce}, description)
        finally:
            _release(lock)

    def _chain_nonce(self) -> int:
        self._count("nonce_syncs")
        return self.w3.eth.get_transaction_count(self.address, "pending")

    def resync_nonce(self) -> None:
        """Forget the stored nonce: the next send takes the chain's pending nonce."""
        with self.redis.lock(self.lock_key, timeout=self.lock_timeout, blocking_timeout=self.lock_timeout):
            self.redis.delete(self.nonce_key)

    def wait(self, sent: SentTx, timeout: float | None = None):
        """Waits for the receipt, speeding a transaction still pending at the timeout up (module
        doc); DroppedTransaction when none of its sends was mined, TxReverted with the decoded
        error for a mined revert."""
        timeout = self.receipt_timeout if timeout is None else timeout
        try:
            receipt = self.w3.eth.wait_for_transaction_receipt(sent.tx_hash, timeout=timeout,
                                                               poll_latency=self.poll_latency)
        except TimeExhausted:
            receipt, sent = self._speed_up(sent, timeout)
        fn = fn_name(sent.description)
        self.observer.tx_mined(fn, receipt["gasUsed"])
        if receipt["status"] == 1:
            log.info("%s mined in block %d, gas %d: %s", fn, receipt["blockNumber"], receipt["gasUsed"],
                     sent.tx_hash)
            return receipt
        self._count("reverted")
        error = self._why_reverted(sent, receipt)
        self.observer.tx_failed(fn, error.name, "mined")
        raise TxReverted(error, tx_hash=sent.tx_hash, receipt=receipt, call=sent.description)

    def _speed_up(self, sent: SentTx, timeout: float):
        """(receipt, the send that was mined) of a transaction not mined within `timeout`: sent
        again with raised fees while any of its sends is still at the node, each waited for
        `timeout`; DroppedTransaction when none is left or max_bumps replacements were not mined."""
        sends, waited = [sent], timeout
        for _ in range(self.max_bumps):  # a replacement the node refuses counts too: no endless wait
            if not any(self._at_node(s.tx_hash) for s in sends):
                break
            replacement = self._replace(sends[-1], timeout)
            if replacement is not None:
                sends.append(replacement)
            found = self._first_mined(sends, timeout)
            waited += timeout
            if found is not None:
                return found
        found = self._first_mined(sends, 0)  # one mined just now
        if found is not None:
            return found
        self._count("dropped")
        self.observer.tx_failed(fn_name(sent.description), "Dropped", "mined")
        self.resync_nonce()
        cap = self.max_fee_per_gas
        at_cap = cap is not None and sends[-1].tx["maxFeePerGas"] * REPLACEMENT_MIN > cap
        why = f"; its fees are at this account's cap of {gwei(cap)} gwei (--max-fee-gwei)" if at_cap else ""
        pending = tuple(s.tx_hash for s in sends if self._at_node(s.tx_hash))
        raise DroppedTransaction(sent.tx_hash, sent.nonce, waited, why, tuple(s.tx_hash for s in sends),
                                 pending) from None

    def _at_node(self, tx_hash: str) -> bool:
        try:
            return self.w3.eth.get_transaction(tx_hash) is not None
        except TransactionNotFound:
            return False

    def _first_mined(self, sends: list[SentTx], timeout: float):
        deadline = time.monotonic() + timeout
        while True:
            for s in sends:
                try:
                    receipt = self.w3.eth.get_transaction_receipt(s.tx_hash)
                except TransactionNotFound:
                    continue
                if receipt is not None:
                    return receipt, s
            if time.monotonic() >= deadline:
                return None
            time.sleep(self.poll_latency)

    def _replace(self, last: SentTx, waited: float) -> SentTx | None:
        """`last` again at its nonce, its fees raised by FEE_BUMP and to the chain's current
        ones if those are higher, but not over the account's fee cap; None when the cap leaves
        no room for a replacement the pools take, or when the node refuses it (an earlier send
        was mined meanwhile: nonce too low; or it holds it already), which the caller's wait
        then sees."""
        answers = raw_batch(self.w3, [("eth_maxPriorityFeePerGas", []), ("eth_getBlockByNumber", ["latest", False])])
        tip_now = int(result_of("eth_maxPriorityFeePerGas", answers[0]), 16)
        base_now = int(result_of("eth_getBlockByNumber", answers[1])["baseFeePerGas"], 16)
        last_tip, last_fee = last.tx["maxPriorityFeePerGas"], last.tx["maxFeePerGas"]
        tip = max(tip_now, math.ceil(last_tip * FEE_BUMP))
        fee = _under_cap(max(2 * base_now + tip, math.ceil(last_fee * FEE_BUMP)), self.max_fee_per_gas)
        tip = min(tip, fee)
        if fee < last_fee * REPLACEMENT_MIN or tip < last_tip * REPLACEMENT_MIN:
            log.warning("%s: %s (nonce %d) not mined within %g s; not sped up: its fees are at this account's "
                        "cap of %s gwei (base fee %s gwei)", self.address, last.tx_hash, last.nonce, waited,
                        gwei(self.max_fee_per_gas), gwei(base_now))
            return None
        tx = {**last.tx, "maxPriorityFeePerGas": tip, "maxFeePerGas": fee}
        signed = self._account.sign_transaction(tx)
        tx_hash = "0x" + keccak(signed.raw_transaction).hex()
        try:
            self.w3.eth.send_raw_transaction(signed.raw_transaction)
        except Web3RPCError as exc:
            log.warning("%s: %s (nonce %d) not replaced: %s", self.address, last.tx_hash, last.nonce,
                        rpc_words(exc))
            return None
        self._count("replaced")
        self.observer.tx_sent(fn_name(last.description))
        log.warning("%s: %s (nonce %d) not mined within %g s; sent again as %s, tip %d and fee cap %d wei",
                    self.address, last.tx_hash, last.nonce, waited, tx_hash, tip, tx["maxFeePerGas"])
        return SentTx(tx_hash, last.nonce, tx, last.description)

    def _why_reverted(self, sent: SentTx, receipt) -> DecodedError:
        tx = sent.tx
        call = {k: tx[k] for k in ("from", "to", "data", "value", "gas")}
        try:
            self.w3.eth.call(call, block_identifier=receipt["blockNumber"])
        except (ContractLogicError, Web3RPCError) as exc:
            data = revert_data_of(exc)
            if data is None:
                raise
            return decode_revert(data)
        if receipt["gasUsed"] >= tx["gas"]:
            return DecodedError("OutOfGas", (tx["gas"],), ("gasLimit",))
        return DecodedError("Unknown")


def _under_cap(fee: int, cap: int | None) -> int:
    return fee if cap is None else min(fee, cap)


def call_data(call, tx: dict) -> bytes | str:
    """A ContractFunction's calldata, encoded with eth_abi from the function's ABI: web3.py's
    build_transaction spent ~1.7 ms of CPU normalizing a transaction whose other fields we set
    ourselves. Arguments that eth_abi does not take as they are (a hex string for bytes, keyword
    arguments) go through web3.py as before."""
    if not call.kwargs:
        try:
            return (function_abi_to_4byte_selector(call.abi)
                    + encode([canonical_type(i) for i in call.abi["inputs"]], call.args))
        except EncodingError:
            pass
    return call.build_transaction({**tx, "gas": 1, "maxFeePerGas": 1, "maxPriorityFeePerGas": 1, "nonce": 0})["data"]


def fn_name(description: str) -> str:
    """'commit(3, 0x..)' -> 'commit': the contract function of a transaction's description (SentTx),
    by which its observer counts it."""
    words = (description or "").split("(", 1)[0].split()
    return words[0] if words else "unknown"


def _describe(call, to) -> str:
    if call is None:
        return f"transfer to {to}"
    return f"{call.fn_name}({', '.join(map(_short, call.args))})"


def _short(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()[:16] + ("…" if len(value) > 8 else "")
    return str(value)


def rpc_words(exc) -> str:
    """The chain node's own words for a refused request ("nonce too low"), not web3's rendering of
    the whole JSON-RPC error object ("{'code': -32003, 'message': ...}")."""
    error = (getattr(exc, "rpc_response", None) or {}).get("error")
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return str(getattr(exc, "message", None) or exc)


def _release(lock) -> None:
    """Releases the nonce lock; one no longer ours (it lapsed, or Redis restarted meanwhile, or the
    release was sent again after its reply was lost) is not an error: the send itself is done,
    and the nonce stored with it."""
    from redis.exceptions import LockNotOwnedError

    try:
        lock.release()
    except LockNotOwnedError:
        log.warning("nonce lock %s was no longer held when released (it lapsed, or Redis restarted)", lock.name)
