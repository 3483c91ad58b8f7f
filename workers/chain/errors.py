"""Revert decoding and retry classification.

`decode_revert(data)` turns revert data into a DecodedError for any custom error in the committed
ABIs (ours and the OpenZeppelin ones our contracts inherit), Error(string) and Panic(uint256);
enum arguments come back as the workers.protocol enums. `is_retryable(exc)` says whether sending
again can help: transport failures, timeouts, nonce races and fee races can; a revert the
contract chose (WrongPhase, DeadlinePassed, AlreadyCommitted, ...) cannot, except the few that
only mean "not yet" (RETRY_LATER)."""

from __future__ import annotations

import asyncio
import re
import socket
from dataclasses import dataclass
from functools import lru_cache

from eth_abi import decode
from eth_utils import keccak
from web3.exceptions import (
    ContractLogicError,
    TimeExhausted,
    TransactionNotFound,
    Web3RPCError,
)

from workers import protocol
from workers.chain.abi import CONTRACTS, canonical_type, load_abi, typed_value

ERROR_STRING = bytes.fromhex("08c379a0")  # Error(string)
PANIC = bytes.fromhex("4e487b71")  # Panic(uint256)
PANIC_REASONS = {
    0x00: "generic compiler panic",
    0x01: "assert failed",
    0x11: "arithmetic overflow or underflow",
    0x12: "division or modulo by zero",
    0x21: "invalid enum value",
    0x22: "bad storage byte array encoding",
    0x31: "pop on an empty array",
    0x32: "array index out of bounds",
    0x41: "out of memory",
    0x51: "call to an uninitialized function",
}

# Reverts that only mean "not yet": the same call can succeed a few blocks or seconds later.
RETRY_LATER = frozenset({"DrawNotReady", "DeadlineNotReached"})

# Node answers to a send that another try (with a fresh nonce or fee) can fix.
RETRYABLE_RPC_MESSAGES = re.compile(
    r"nonce too low|nonce too high|replacement transaction underpriced|transaction underpriced|"
    r"already known|already imported|fee too low|max fee per gas less than block base fee|"
    r"timeout|timed out|temporarily unavailable|too many requests|rate limit|header not found",
    re.I,
)


HINTS = {"BountyTooSmall": "the bounty is below the protocol's minimum for this task's shape "
                           "(ProtocolConfig.minBountyPerSlotRound per slot and round): raise it",
         "EnforcedPause": "the protocol is paused by its guardian (no new tasks, claims or round work until it "
                          "is unpaused); try again later",
         # disputes (SPECIFICATION.md 13; `decentrl dispute`)
         "AlreadyDisputed": "that verdict is disputed already: follow it with `decentrl dispute status ID`",
         "BondTooLow": "post at least the minimum bond (ProtocolConfig.minBond; `--bond`)",
         "DisputeWindowClosed": "the round's dispute window has closed: its verdicts are final",
         "DisputeWindowOpen": "the round's dispute window is still open: its held pay is released after it",
         "DisputesPending": "a dispute of the round is still open: its held pay is released once it is settled",
         "NotDisputable": "only a decided verdict (see `decentrl task status`) of a sampler or the trainer can be "
                          "disputed",
         "InvalidEvidence": "a sampler's evidence is an episode, a trainer's a transition or data chunk; a dispute "
                            "of a rejected verdict names no item (the whole submission)",
         "DisputeNotFound": "no dispute has that id: `decentrl dispute status --task T` lists a task's",
         "WrongDisputeStatus": "the dispute is not in the phase this needs: see `decentrl dispute status ID`",
         "NoFaultProven": "the episode shows no fault the chain can check; the jury decides",
         "NotInRoot": "the episode and proof do not lead to the submission's root",
         "InsufficientOwed": "the DisputeManager owes less than that: see StateView.owedOf"}
"""What a revert means where its name alone does not say (OpenZeppelin's errors)."""


@dataclass(frozen=True)
class DecodedError:
    """A decoded revert: `name` as in Solidity, `args` in declaration order, `arg_names` to match."""

    name: str
    args: tuple = ()
    arg_names: tuple = ()
    data: bytes = b""

    @property
    def kwargs(self) -> dict:
        return dict(zip(self.arg_names, self.args, strict=True))

    @property
    def message(self) -> str:
        if self.name == "Error" and self.args:
            return f"reverted: {self.args[0]}"
        if self.name == "Panic" and self.args:
            code = self.args[0]
            return f"panic 0x{code:02x}: {PANIC_REASONS.get(code, 'unknown panic code')}"
        if self.name == "Unknown":
            return f"reverted with unrecognised data 0x{self.data.hex()}" if self.data else "reverted without data"
        shown = ", ".join(f"{n}={_show(v)}" if n else _show(v) for n, v in zip(self.arg_names, self.args, strict=True))
        hint = HINTS.get(self.name)
        return f"{self.name}({shown})" + (f": {hint}" if hint else "")

    @property
    def retryable(self) -> bool:
        return self.name in RETRY_LATER

    def __str__(self) -> str:
        return self.message


def _show(value) -> str:
    if isinstance(value, protocol.IntEnum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, bytes):
        return "0x" + value.hex()
    return str(value)


@lru_cache(maxsize=1)
def error_table() -> dict:
    """{4-byte selector: error ABI item} over every committed ABI."""
    table = {}
    for contract in CONTRACTS:
        for item in load_abi(contract):
            if item["type"] != "error":
                continue
            signature = f'{item["name"]}({",".join(canonical_type(i) for i in item["inputs"])})'
            table.setdefault(keccak(text=signature)[:4], item)
    return table


def decode_revert(data: bytes | str | None) -> DecodedError:
    """Decodes revert data; unknown or empty data gives DecodedError("Unknown", data=...)."""
    if isinstance(data, str):
        data = bytes.fromhex(data[2:] if data.startswith("0x") else data)
    data = bytes(data or b"")
    selector, body = data[:4], data[4:]
    try:
        if selector == ERROR_STRING:
            return DecodedError("Error", (decode(["string"], body)[0],), ("reason",), data)
        if selector == PANIC:
            return DecodedError("Panic", (decode(["uint256"], body)[0],), ("code",), data)
        item = error_table().get(selector)
        if item is None:
            return DecodedError("Unknown", data=data)
        values = decode([canonical_type(i) for i in item["inputs"]], body)
    except Exception:  # malformed body under a known selector: report the raw data
        return DecodedError("Unknown", data=data)
    args = tuple(typed_value(spec, value) for spec, value in zip(item["inputs"], values, strict=True))
    return DecodedError(item["name"], args, tuple(i["name"] for i in item["inputs"]), data)


def revert_data_of(exc: BaseException) -> bytes | None:
    """The revert data a web3 exception carries, or None when it is not a revert."""
    if isinstance(exc, ContractLogicError):
        data = exc.data
        if isinstance(data, dict):  # some nodes nest {"data": "0x..."}
            data = data.get("data")
        if isinstance(data, str) and data.startswith("0x"):
            return bytes.fromhex(data[2:])
        return b""
    if isinstance(exc, Web3RPCError):
        error = (exc.rpc_response or {}).get("error") or {}
        data = error.get("data")
        if isinstance(data, str) and data.startswith("0x") and "revert" in str(error.get("message", "")).lower():
            return bytes.fromhex(data[2:])
    return None


class ChainError(Exception):
    """Base of the chain layer's own errors."""


class TxReverted(ChainError):
    """A call or transaction reverted; `error` is the decoded reason."""

    def __init__(self, error: DecodedError, *, tx_hash: str | None = None, receipt=None, call: str = ""):
        self.error = error
        self.tx_hash = tx_hash
        self.receipt = receipt
        where = f" (tx {tx_hash}, block {receipt['blockNumber']})" if receipt is not None else ""
        super().__init__(f"{call + ': ' if call else ''}{error.message}{where}")


class DroppedTransaction(ChainError):
    """A sent transaction was not mined within the timeout. `sends`: the hashes of every send of it
    (the first, then its sped-up replacements at the same nonce); `pending`: those the chain node
    still held when it was given up, one of which may yet be mined."""

    def __init__(self, tx_hash: str, nonce: int, timeout: float, why: str = "", sends: tuple = (),
                 pending: tuple = ()):
        self.tx_hash, self.nonce, self.timeout = tx_hash, nonce, timeout
        self.sends, self.pending = tuple(sends) or (tx_hash,), tuple(pending)
        others = f" (sent {len(self.sends)} times: {', '.join(self.sends)})" if len(self.sends) > 1 else ""
        still = (f"; {self.pending[-1]} is still at the chain node and may yet be mined: check whether it was "
                 "before doing this again" if self.pending else "")
        super().__init__(f"transaction {tx_hash} (nonce {nonce}) not mined within {timeout:g} s{others}{why}{still}")


class FeeCapExceeded(ChainError):
    """The chain's base fee is above the account's fee cap: nothing was sent. Fees fall again, so
    trying later can succeed."""

    def __init__(self, base_fee: int, cap: int, call: str = ""):
        self.base_fee, self.cap, self.call = base_fee, cap, call
        super().__init__(f"{call + ': ' if call else ''}not sent: the chain's base fee is {gwei(base_fee)} gwei, above "
                         f"this account's fee cap of {gwei(cap)} gwei (--max-fee-gwei / $DECENTRL_MAX_FEE_GWEI); "
                         "it is sent once the base fee falls under the cap, or raise the cap")


def gwei(wei: int) -> str:
    return f"{wei / 1e9:.9g}"


def is_retryable(exc: BaseException) -> bool:
    """True when trying the same thing again later can succeed."""
    if isinstance(exc, TxReverted):
        return exc.error.retryable
    if isinstance(exc, ContractLogicError):
        return decode_revert(revert_data_of(exc)).retryable
    if isinstance(exc, (DroppedTransaction, FeeCapExceeded, TimeExhausted, TransactionNotFound)):
        return True
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, ConnectionError, socket.timeout)):
        return True
    if isinstance(exc, Web3RPCError):
        if revert_data_of(exc) is not None:
            return decode_revert(revert_data_of(exc)).retryable
        return bool(RETRYABLE_RPC_MESSAGES.search(str(exc.message or exc)))
    name = type(exc).__module__ + "." + type(exc).__name__
    # requests / aiohttp / websockets transport failures, without importing each library
    return any(part in name for part in ("ConnectionError", "ConnectTimeout", "ReadTimeout",
                                         "ClientConnectorError", "ConnectionClosed", "ProviderConnectionError"))
