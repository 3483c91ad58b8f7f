"""EventWatcher: follows the protocol's events and hands them, in (block, logIndex) order, to a
callback, with a persisted cursor.

Transport: a websocket subscription (`eth_subscribe` of `logs` for the watched addresses, and
`newHeads` when confirmations are asked) runs in a helper thread and only wakes the watcher: its
notifications are not even parsed (the `websockets` client alone: web3.py's AsyncWeb3 formatted
every notification, a cost every node paid per log). The watcher then
reads the new range with eth_getLogs over HTTP. So the websocket gives the latency and HTTP gives
completeness: a missed or late notification costs nothing, because the watcher also re-checks
every `resync_interval`; when the websocket cannot connect or breaks, the watcher polls every
`poll_interval` (the HTTP polling fallback) and subscribes again after `resubscribe_s`, doubling
the wait after each failed try up to RESUBSCRIBE_MAX_S, so that an endpoint that restarted or
closed an idle socket is not polled many times a second for good. mode="poll" never opens a
websocket.

Chain reads that fail (the node unreachable, an HTTP error, an error answer) do not stop the
watcher: it logs them and reads again after 1 s, doubling the wait up to 64 s (the design's
backoff), so a chain node that restarts costs a gap, not a crashed process restarted in a loop.

Confirmations: a block is read only once `confirmations` more blocks sit on top of it
(0 = as soon as mined). A reorganisation deeper than that replaces blocks whose events were
delivered: the cursor keeps the hashes of the last KEPT_HASHES blocks it passed, and each read of
new blocks asks (in the same JSON-RPC batch) for the hash of the last one; when the chain's is
another, the watcher finds the newest kept block still on the chain, logs the replaced range as
an error, reports it to its observer (a node counts it: decentrl_chain_reorgs_total) and
delivers the events from there again. The replacement's events reach the consumers, whose dedupe
on `txHash:logIndex` passes over the ones they had; what was done for an event the replacement
lacks stays done (its transactions, if any, revert on the new chain).

Cursor: a small SQLite file (WAL) holding the position (block, logIndex) of the last event whose
callback returned, or (block, END) once a whole block is done: "last fully processed block" is
`block` if the log index is END, else block - 1. The cursor moves only after the callback returns,
one event at a time, so a watcher stopped (or crashed) mid-block resumes at the next event: a
clean stop delivers nothing twice; a crash between a callback's return and the cursor write
delivers that one event again (at-least-once). Consumers dedupe on ChainEvent.key
(`txHash:logIndex`). SQLite rather than Redis because the embedded Redis keeps no data across
restarts. A callback's exception stops the watcher and propagates; its event is delivered again
on the next start."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from eth_abi import decode
from eth_utils import event_abi_to_log_topic
from web3.exceptions import Web3RPCError

from workers.chain.abi import canonical_type, load_abi, typed_value
from workers.chain.observer import IGNORED, ChainObserver
from workers.chain.rpc import raw_batch, raw_request, result_of

log = logging.getLogger(__name__)

END = 2**62  # log index meaning "the whole block"
KEPT_HASHES = 256  # blocks whose hashes the cursor keeps, to find where a reorganisation forked
PRUNE_EVERY = 16  # the cursor drops hashes older than KEPT_HASHES once per this many blocks
REWIND_BATCH = 32  # kept blocks asked for per round trip while looking for that fork
RESUBSCRIBE_MAX_S = 60.0  # the longest wait between two tries to subscribe again
READ_RETRY_S = (1.0, 64.0)  # the first and the longest wait before reading the chain again after a failed read
_DYNAMIC = ("string", "bytes")
_UNREAD = object()


class ChainReadError(Exception):
    """The chain node did not answer one of the watcher's reads (unreachable, an HTTP error, or
    an error answer)."""


@dataclass(frozen=True)
class ChainEvent:
    name: str
    args: dict
    block: int
    tx_hash: str
    log_index: int
    contract: str = ""
    address: str = field(default="", compare=False)
    timestamp: int | None = field(default=None, compare=False)
    """The block's timestamp when the node's logs carry it (`blockTimestamp`: anvil, geth), else
    None: a reader who needs it then asks for the block."""

    @property
    def key(self) -> str:
        """`txHash:logIndex`: unique per event, the id tasks and consumers dedupe on."""
        return f"{self.tx_hash}:{self.log_index}"


class SqliteFile:
    """A SQLite file (WAL) opened once per thread and process: the watcher writes to it after
    every event, and opening the file each time cost more than the write. `with connect()`
    commits; the connection stays open."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()

    def connect(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None or self._local.pid != os.getpid():  # a forked child opens its own
            db = sqlite3.connect(self.path, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db, self._local.pid = db, os.getpid()
        return db


class SqliteCursor:
    """The watcher's persisted position, one row per watcher name in a SQLite file, and the hashes
    of the last KEPT_HASHES blocks it passed (module doc: reorganisations)."""

    def __init__(self, path: str | Path, name: str = "registry"):
        file, self.name = SqliteFile(path), name
        self.path, self._connect = file.path, file.connect
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS cursor (name TEXT PRIMARY KEY, block INTEGER, log_index INTEGER)")
            db.execute("CREATE TABLE IF NOT EXISTS block_hash (name TEXT, block INTEGER, hash TEXT, "
                       "PRIMARY KEY (name, block))")

    def get(self) -> tuple[int, int] | None:
        with self._connect() as db:
            row = db.execute("SELECT block, log_index FROM cursor WHERE name = ?", (self.name,)).fetchone()
        return (row[0], row[1]) if row else None

    def set(self, block: int, log_index: int, block_hash: str | None = None) -> None:
        """Moves to (block, log_index); `block_hash` is that block's hash, kept with it."""
        with self._connect() as db:
            self._move(db, block, log_index)
            if block_hash is not None:
                db.execute("INSERT OR REPLACE INTO block_hash VALUES (?, ?, ?)", (self.name, block, block_hash))
                if log_index == END and block % PRUNE_EVERY == 0:  # not on every block: a write saved
                    db.execute("DELETE FROM block_hash WHERE name = ? AND block <= ?", (self.name, block - KEPT_HASHES))

    def kept_hashes(self) -> list[tuple[int, str]]:
        """[(block, hash)] of the kept blocks, the newest first."""
        with self._connect() as db:
            return db.execute("SELECT block, hash FROM block_hash WHERE name = ? ORDER BY block DESC",
                              (self.name,)).fetchall()

    def newest_hash(self) -> tuple[int, str] | None:
        with self._connect() as db:
            return db.execute("SELECT block, hash FROM block_hash WHERE name = ? ORDER BY block DESC LIMIT 1",
                              (self.name,)).fetchone()

    def rewind(self, block: int) -> None:
        """Back to the end of `block`: the blocks after it (and their hashes) are read again."""
        with self._connect() as db:
            db.execute("DELETE FROM block_hash WHERE name = ? AND block > ?", (self.name, block))
            self._move(db, block, END)

    def _move(self, db, block: int, log_index: int) -> None:
        db.execute("INSERT INTO cursor VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET block = excluded.block, "
                   "log_index = excluded.log_index", (self.name, block, log_index))

    def last_processed_block(self) -> int | None:
        position = self.get()
        if position is None:
            return None
        return position[0] if position[1] == END else position[0] - 1


class EventDecoder:
    """Decodes logs of the deployment's `contracts` into ChainEvents (enums and checksummed
    addresses as workers.chain.abi.typed_value gives them; indexed dynamic values stay topics).
    A log may be as web3.py formats it or as the node sent it (hex strings: the watcher's raw
    reads, workers.chain.rpc.raw_request)."""

    def __init__(self, deployment, contracts=("TaskRegistry",)):
        self._events = {}
        self._checksummed = {}
        for name in contracts:
            address = deployment.contracts[name].address
            self._checksummed[address.lower()] = address
            for item in load_abi(name):
                if item["type"] == "event" and not item.get("anonymous"):
                    self._events[(address.lower(), event_abi_to_log_topic(item))] = (name, item)

    def name_of(self, entry) -> str:
        """The event's name, from its address and first topic alone."""
        return self._events[(entry["address"].lower(), _bytes(entry["topics"][0]))][1]["name"]

    def decode(self, entry) -> ChainEvent:
        topics = [_bytes(t) for t in entry["topics"]]
        address = entry["address"].lower()
        contract, item = self._events[(address, topics[0])]
        indexed = [i for i in item["inputs"] if i["indexed"]]
        plain = [i for i in item["inputs"] if not i["indexed"]]
        args = {}
        for spec, topic in zip(indexed, topics[1:], strict=True):
            typ = canonical_type(spec)
            dynamic = typ in _DYNAMIC or typ.endswith("]") or typ.startswith("(")
            args[spec["name"]] = topic if dynamic else typed_value(spec, decode([typ], topic)[0])
        values = decode([canonical_type(i) for i in plain], _bytes(entry["data"]))
        for spec, value in zip(plain, values, strict=True):
            args[spec["name"]] = typed_value(spec, value)
        ordered = {i["name"]: args[i["name"]] for i in item["inputs"]}
        return ChainEvent(item["name"], ordered, _int(entry["blockNumber"]), _hex(entry["transactionHash"]),
                          _int(entry["logIndex"]), contract, self._checksummed[address],
                          _timestamp(entry.get("blockTimestamp")))


def _hash_of(block) -> str | None:
    """A raw eth_getBlockByNumber result's hash; None for a block the chain does not have."""
    return None if block is None else block["hash"]


def log_position(entry) -> tuple[int, int]:
    """(block, logIndex) of a log, formatted or raw."""
    return _int(entry["blockNumber"]), _int(entry["logIndex"])


def _int(value) -> int:
    return value if isinstance(value, int) else int(value, 16)


def _bytes(value) -> bytes:
    return bytes.fromhex(value[2:]) if isinstance(value, str) else bytes(value)


def _hex(value) -> str:
    return value.lower() if isinstance(value, str) else "0x" + bytes(value).hex()


def _timestamp(value) -> int | None:
    """A log's blockTimestamp (web3.py leaves it a hex string), or None when absent or unreadable:
    only a metric reads it, so it must never stop the watcher."""
    if isinstance(value, int):
        return value
    try:
        return int(value, 16)
    except (TypeError, ValueError):
        return None


class EventWatcher:
    """Delivers the watched contracts' events to `callback(ChainEvent)`; see the module docstring.

    deployment: a workers.chain.deployment.Deployment (its w3 must be an HTTP Web3).
    contracts: which of the deployment's contracts to follow.
    ws_url: the node's websocket endpoint (mode "ws"); None or mode "poll" means polling only.
    start_block: where to begin when the cursor is empty (default: the deployment's block).
    names: the only events to deliver (the rest are passed over undecoded); None: every event.
    resubscribe_s: the first wait before subscribing again once the websocket is down.
    observer: told of each reorganisation met (workers.chain.observer)."""

    def __init__(self, deployment, callback: Callable[[ChainEvent], None], cursor: SqliteCursor, *,
                 contracts=("TaskRegistry",), ws_url: str | None = None, mode: str = "ws",
                 confirmations: int = 0, poll_interval: float = 0.05, resync_interval: float = 1.0,
                 start_block: int | None = None, max_range: int = 2000, names: Collection[str] | None = None,
                 resubscribe_s: float = 1.0, observer: ChainObserver = IGNORED):
        if mode not in ("ws", "poll"):
            raise ValueError(f"mode must be 'ws' or 'poll', not {mode!r}")
        if mode == "ws" and not ws_url:
            raise ValueError("mode 'ws' needs ws_url (the node's websocket endpoint), or use mode='poll'")
        if confirmations < 0:
            raise ValueError("confirmations must be >= 0")
        self.w3 = deployment.w3
        self.callback = callback
        self.cursor = cursor
        self.observer = observer
        self.mode, self.ws_url = mode, ws_url
        self.confirmations = confirmations
        self.poll_interval, self.resync_interval = poll_interval, resync_interval
        self.resubscribe_s = resubscribe_s
        self._resubscribe_wait = resubscribe_s  # doubles with each try, back to the first once up
        self._resubscribe_at = 0.0  # time.monotonic() of the next try while the websocket is down
        self.subscriptions = 0  # how many times the websocket subscription came up
        self.max_range = max_range
        self.start_block = deployment.block if start_block is None else start_block
        self.addresses = [deployment.contracts[name].address for name in contracts]
        decoder = EventDecoder(deployment, contracts)
        self.decode, self.name_of = decoder.decode, decoder.name_of
        self.names = None if names is None else frozenset(names)
        self.transport = "poll"  # "ws" while the subscription is up
        self.delivered = 0
        self._newest = _UNREAD  # the cursor's newest kept (block, hash), read once, then what it wrote
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._ws_up = threading.Event()
        self._thread: threading.Thread | None = None
        self._ws_thread: threading.Thread | None = None
        self._ws = None  # the open websocket (websockets.sync ClientConnection) while subscribed
        self._ws_closing = threading.Event()
        self.error: BaseException | None = None

    # -- running ---------------------------------------------------------------------------

    def run(self) -> None:
        """Follows the chain until stop(); a callback's exception propagates from here."""
        self._stop.clear()
        if self.mode == "ws":
            self._start_ws()
            if self.transport != "ws":
                log.warning("websocket %s unavailable; polling every %g s", self.ws_url, self.poll_interval)
        retry_s = READ_RETRY_S[0]
        try:
            while not self._stop.is_set():
                self._wake.clear()  # before reading: a wake-up during sync() is not lost
                try:
                    self.sync()
                except ChainReadError as exc:
                    log.warning("%s; reading again in %g s", exc, retry_s)
                    self._stop.wait(retry_s)
                    retry_s = min(2 * retry_s, READ_RETRY_S[1])
                    continue
                retry_s = READ_RETRY_S[0]
                waiting = self.resync_interval if self.transport == "ws" else self.poll_interval
                if self.mode == "ws":
                    waiting = min(waiting, self._keep_subscribed())
                self._wake.wait(waiting)
        finally:
            self._stop_ws()

    def _keep_subscribed(self) -> float:
        """While the websocket is down, starts a try to subscribe again once its wait is over;
        returns the seconds until the next try is due (inf while the subscription is up)."""
        if self.transport == "ws":
            self._resubscribe_wait = self.resubscribe_s
            return float("inf")
        if self._ws_thread is not None and self._ws_thread.is_alive():
            return self.poll_interval  # a try is under way (its end wakes the watcher)
        if time.monotonic() >= self._resubscribe_at:
            self._start_ws(wait=False)
            return self.poll_interval
        return max(0.0, self._resubscribe_at - time.monotonic())

    def start(self) -> EventWatcher:
        """run() in a background thread; its error, if any, is re-raised by stop()."""
        def target():
            try:
                self.run()
            except BaseException as exc:  # handed to the thread that calls stop()
                self.error = exc

        self._thread = threading.Thread(target=target, name="event-watcher", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stops after the callback in progress returns; re-raises a background run()'s error."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise TimeoutError(f"event watcher did not stop within {timeout:g} s")
            self._thread = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # -- catching up -----------------------------------------------------------------------

    def position(self) -> tuple[int, int]:
        return self.cursor.get() or (self.start_block - 1, END)

    def sync(self) -> int:
        """Delivers every event up to the confirmed head; returns how many it delivered.
        ChainReadError when the chain node does not answer (run() reads again after a wait)."""
        delivered = 0
        block, index = self.position()
        # raw reads: this runs on every block in every node, and web3.py's formatting of the
        # answers cost more CPU than the requests themselves (EventDecoder takes raw logs)
        safe = int(self._read("eth_blockNumber", []), 16) - self.confirmations
        first = block if index != END else block + 1
        while first <= safe and not self._stop.is_set():
            last = min(safe, first + self.max_range - 1)
            # the range's logs, its last block, and the newest block passed: is it still the chain's?
            if self._newest is _UNREAD:
                self._newest = self.cursor.newest_hash()
            known = self._newest
            calls = [("eth_getLogs", [{"address": self.addresses, "fromBlock": hex(first), "toBlock": hex(last)}]),
                     ("eth_getBlockByNumber", [hex(last), False])]
            if known is not None:
                calls.append(("eth_getBlockByNumber", [hex(known[0]), False]))
            answers = self._read_batch(calls)
            logs, last_hash = answers[0], _hash_of(answers[1])
            if known is not None and _hash_of(answers[2]) != known[1]:
                self._rewind()
                block, index = self.position()
                first = block + 1
                continue
            if last_hash is None or any(entry["blockHash"] != last_hash for entry in logs
                                        if int(entry["blockNumber"], 16) == last):
                return delivered  # the chain changed between the batch's reads: read it again next time
            for entry in sorted(logs, key=log_position):
                if log_position(entry) <= (block, index):
                    continue  # delivered before a stop in the middle of this block
                if self.names is not None and self.name_of(entry) not in self.names:
                    continue  # not decoded at all: the block's end moves the cursor past it
                event = self.decode(entry)
                self.callback(event)
                block, index = event.block, event.log_index
                self.cursor.set(block, index, entry["blockHash"])
                self._newest = (block, entry["blockHash"])
                delivered += 1
                self.delivered += 1
                if self._stop.is_set():
                    return delivered
            block, index = last, END
            self.cursor.set(block, index, last_hash)
            self._newest = (block, last_hash)
            first = last + 1
        return delivered

    def _rewind(self) -> None:
        """The newest kept block was replaced: back to the newest kept block still on the chain
        (module doc), the range after it logged as replaced and counted."""
        kept, reached = self.cursor.kept_hashes(), self.position()[0]
        fork = None
        for start in range(0, len(kept), REWIND_BATCH):  # newest first: a reorganisation is shallow
            chunk = kept[start:start + REWIND_BATCH]
            answers = self._read_batch([("eth_getBlockByNumber", [hex(b), False]) for b, _ in chunk])
            fork = next((b for (b, h), answer in zip(chunk, answers, strict=True) if _hash_of(answer) == h), None)
            if fork is not None:
                break
        if fork is None:
            fork = kept[-1][0] - 1
            log.error("chain reorganisation deeper than the %d blocks whose hashes the watcher kept (the oldest %d): "
                      "none is on the chain any more; delivering the events from block %d again", len(kept), fork + 1,
                      fork + 1)
        else:
            log.error("chain reorganisation: blocks %d-%d, whose events were delivered, were replaced (deeper than the "
                      "%d confirmations waited for; give more with --confirmations); delivering the events from "
                      "block %d again", fork + 1, reached, self.confirmations, fork + 1)
        self.observer.chain_reorg(self.cursor.name, reached - fork)
        self.cursor.rewind(fork)
        self._newest = _UNREAD

    def _read(self, method: str, params: list):
        try:
            return raw_request(self.w3, method, params)
        except (OSError, Web3RPCError) as exc:  # OSError: sockets' errors and requests' (its RequestException)
            raise self._read_failed(method, exc) from exc

    def _read_batch(self, calls: list[tuple[str, list]]) -> list:
        """The results of `calls` read in one round trip; ChainReadError as _read."""
        try:
            answers = raw_batch(self.w3, calls)
            return [result_of(method, answer) for (method, _), answer in zip(calls, answers, strict=True)]
        except (OSError, Web3RPCError) as exc:
            raise self._read_failed("+".join(dict.fromkeys(method for method, _ in calls)), exc) from exc

    def _read_failed(self, what: str, exc: BaseException) -> ChainReadError:
        endpoint = getattr(self.w3.provider, "endpoint_uri", "the chain node")
        return ChainReadError(f"chain read {what} at {endpoint} failed: {type(exc).__name__}: {exc}")

    # -- websocket wake-ups ----------------------------------------------------------------

    def _start_ws(self, wait: bool = True) -> None:
        """Subscribes on a thread of its own; `wait`: until it is up or has failed (at most 5 s).
        Should this try fail, the next is due after the current wait, and the wait doubles."""
        self._resubscribe_at = time.monotonic() + self._resubscribe_wait
        self._resubscribe_wait = min(2 * self._resubscribe_wait, RESUBSCRIBE_MAX_S)
        self._ws_up.clear()
        self._ws_closing.clear()
        self._ws_thread = threading.Thread(target=self._ws_thread_main, name="event-watcher-ws", daemon=True)
        self._ws_thread.start()
        if wait:
            self._ws_up.wait(5.0)

    def _ws_thread_main(self) -> None:
        from websockets.sync.client import connect

        try:
            with connect(self.ws_url, open_timeout=5, close_timeout=2, max_size=None, compression=None) as ws:
                self._ws = ws
                if self._ws_closing.is_set():  # stopped while connecting
                    return
                subscribe(ws, 1, ["logs", {"address": self.addresses}])
                if self.confirmations:
                    subscribe(ws, 2, ["newHeads"])
                self.transport = "ws"
                self.subscriptions += 1
                if self.subscriptions > 1:
                    log.info("websocket %s subscribed again; events come by it again", self.ws_url)
                self._ws_up.set()
                self._wake.set()  # catch up on anything mined while subscribing
                for _ in ws:  # until closed; what arrived is read over HTTP
                    self._wake.set()
                if not self._ws_closing.is_set():
                    raise ConnectionError("the node closed the subscription")
        except Exception as exc:  # fault tolerance: fall back to HTTP polling, which stays complete
            if not self._ws_closing.is_set():
                log.warning("websocket %s failed (%s: %s); polling every %g s, subscribing again in %.1f s",
                            self.ws_url, type(exc).__name__, exc, self.poll_interval,
                            max(0.0, self._resubscribe_at - time.monotonic()))
        finally:
            self._ws = None
            self.transport = "poll"
            self._ws_up.set()
            self._wake.set()

    def _stop_ws(self) -> None:
        if self._ws_thread is None:
            return
        self._ws_closing.set()
        ws = self._ws
        if ws is not None:
            ws.close()  # ends the thread's iteration
        self._ws_thread.join(10)
        self._ws_thread = None
        self.transport = "poll"


def subscribe(ws, request_id: int, params: list, timeout: float = 5.0) -> str:
    """eth_subscribe over `ws`; the subscription id, or RuntimeError with the node's error."""
    ws.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "eth_subscribe", "params": params}))
    while True:
        answer = json.loads(ws.recv(timeout))
        if answer.get("id") != request_id:
            continue  # a notification of an earlier subscription
        if "error" in answer:
            raise RuntimeError(f"eth_subscribe {params[0]}: {answer['error']}")
        return answer["result"]
