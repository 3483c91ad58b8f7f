"""Content-addressed storage for rollouts and checkpoints.

Two implementations of one interface (`ContentStore`), giving the same CIDs for the same bytes:

- `EmbeddedStore` (the default): files under a folder, one per CID, written atomically; its CIDs
  are computed by `workers.cid`, exactly those of kubo's `ipfs add --cid-version 1`.
- `IpfsStore`: a real IPFS node's RPC API through ipfshttpclient; adds ask for CIDv1, raw leaves
  and base32, and the CID the node answers is checked against our own.

Every `get` checks the bytes against their CID before returning them (`CIDMismatch` otherwise).

Lifecycle: every `put` records a created-at time (of the latest put of those bytes) in a small
SQLite ledger. Intermediate results
(rollouts, intermediate checkpoints) are dropped by `gc()` once older than the retention
(7 days by default); `put(..., pin=True)` or `pin(cid)` keeps a result (final policies) until
`unpin`. On an IPFS node every object we add stays pinned there while we keep it, so the node's
own GC cannot drop it early; `gc`/`delete` unpin it, and the node frees the blocks in its next
repo GC.

Errors are meant for Celery's retry machinery: `StoreUnavailable` and `ContentNotFound` are
transient (`RETRYABLE`); `CIDMismatch` means bad content, to be fetched again or reported.
"""
from __future__ import annotations

import errno
import logging
import os
import sqlite3
import tempfile
import threading
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from workers.cid import CIDMismatch, compute, decode, verify

DEFAULT_TIMEOUT = 30.0  # seconds, every call to an IPFS node (the design value)
DEFAULT_RETENTION = 7 * 24 * 3600.0  # seconds an unpinned result is kept
PROBE_S = 1.0  # the longest wait between two tries of an IPFS node that cannot be reached (IpfsStore.outage_s)
log = logging.getLogger(__name__)


class StorageError(Exception):
    """Base of this module's errors."""


class ContentNotFound(StorageError):
    """No content under this CID (not stored here, deleted, or not retrievable in time)."""


class NotACid(ContentNotFound, ValueError):
    """A string that is not a CID (`decode` says why): no content is under it. Another node may
    reveal any string as its result's CID, so a node's fetch must not fail on it: as a
    ContentNotFound it becomes missing data (a rejection) once the fetch's retries are spent."""


def _a_cid(cid: str) -> str:
    """`cid`, once `decode` reads it; NotACid otherwise."""
    try:
        decode(cid)
    except ValueError as error:
        raise NotACid(str(error)) from None
    return cid


class StoreUnavailable(StorageError):
    """The IPFS node cannot be reached or answered with an error."""


RETRYABLE = (StoreUnavailable, ContentNotFound)


class StoreObserver:
    """What a store reports as it works, to whoever counts it: a node passes its metrics in
    (workers.node.observe.metrics.OBSERVER); this base class ignores everything. Injected rather
    than imported, so that storage depends on nothing above it. An observer must not raise."""

    def stored(self, op: str, nbytes: int) -> None:
        """`nbytes` were written (op "put") or read and checked (op "get")."""

    def store_error(self, op: str, error: BaseException) -> None:
        """A put or get failed with `error` (raised to the caller as well)."""


IGNORED = StoreObserver()
"""The default observer: nothing is reported anywhere."""


@dataclass(frozen=True)
class Entry:
    """One stored object, as the ledger knows it."""

    cid: str
    size: int
    created_at: float  # seconds since the epoch (the store's clock)
    pinned: bool  # kept past the retention


class _Ledger:
    """created-at and pin records, one SQLite file; a connection per call so that forked
    Celery workers never share one."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute("CREATE TABLE IF NOT EXISTS objects (cid TEXT PRIMARY KEY, size INTEGER NOT NULL,"
                       " created_at REAL NOT NULL, pinned INTEGER NOT NULL DEFAULT 0)")

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=DEFAULT_TIMEOUT)

    def _run(self, sql: str, *args) -> list[tuple]:
        db = self._db()
        try:
            with db:  # one transaction
                return db.execute(sql, args).fetchall()
        finally:
            db.close()

    def record(self, objects: list[tuple[str, int]], now: float, pin: bool) -> None:
        """(cid, size) of each object, in one transaction (a commit costs ~15 ms: its fsync)."""
        # Putting the same bytes again restarts their retention; pin only ever turns on here.
        db = self._db()
        try:
            with db:
                db.executemany("INSERT INTO objects VALUES (?, ?, ?, ?) ON CONFLICT(cid) DO UPDATE"
                               " SET created_at = max(created_at, excluded.created_at),"
                               " pinned = max(pinned, excluded.pinned)",
                               [(cid, size, now, int(pin)) for cid, size in objects])
        finally:
            db.close()

    def set_pinned(self, cid: str, pinned: bool) -> bool:
        return bool(self._run("UPDATE objects SET pinned = ? WHERE cid = ? RETURNING cid", int(pinned), cid))

    def remove(self, cid: str) -> None:
        self._run("DELETE FROM objects WHERE cid = ?", cid)

    def remove_if_expired(self, cid: str, before: float) -> bool:
        """Atomically drop the record if it is still unpinned and old (no put or pin since)."""
        return bool(self._run("DELETE FROM objects WHERE cid = ? AND pinned = 0 AND created_at <= ?"
                              " RETURNING cid", cid, before))

    def entries(self) -> list[Entry]:
        rows = self._run("SELECT cid, size, created_at, pinned FROM objects ORDER BY created_at, cid")
        return [Entry(cid, size, created, bool(pinned)) for cid, size, created, pinned in rows]

    def expired(self, before: float) -> list[str]:
        return [c for (c,) in self._run("SELECT cid FROM objects WHERE pinned = 0 AND created_at <= ?"
                                        " ORDER BY created_at, cid", before)]


class ContentStore(ABC):
    """put/get/has/pin/unpin/list/delete by CID, plus the retention GC; `observer` is told of
    every put's and get's bytes and errors."""

    def __init__(self, ledger_path: Path, *, retention: float = DEFAULT_RETENTION,
                 clock: Callable[[], float] = time.time, observer: StoreObserver = IGNORED):
        if retention <= 0:
            raise ValueError(f"retention must be positive seconds, got {retention}")
        self.retention = retention
        self.clock = clock
        self.observer = observer
        self._ledger = _Ledger(Path(ledger_path))

    @abstractmethod
    def _put(self, data: bytes, cid: str) -> None: ...

    def _put_all(self, objects: list[tuple[bytes, str]]) -> None:
        """Each (data, cid) of one put_many; a store that can make them durable together does."""
        for data, cid in objects:
            self._put(data, cid)

    @abstractmethod
    def _get(self, cid: str, timeout: float | None) -> bytes: ...

    @abstractmethod
    def has(self, cid: str) -> bool:
        """Whether the content is held here (no network fetch)."""

    @abstractmethod
    def _drop(self, cid: str) -> None: ...

    def _pin(self, cid: str) -> None:  # noqa: B027 (an optional hook, not abstract: only IpfsStore has more to do)
        pass

    def put(self, data: bytes, *, pin: bool = False) -> str:
        """Store `data`; return its CID. `pin=True` for final results (never GC'd)."""
        return self.put_many([data], pin=pin)[0]

    def put_many(self, items, *, pin: bool = False) -> list[str]:
        """Store each of `items` (as `put`), recording them all in one ledger transaction: a
        trainer stores its trace's states this way; returns their CIDs."""
        items = [bytes(data) for data in items]
        cids = [compute(data) for data in items]
        try:
            # the ledger before the bytes: no orphans
            self._ledger.record([(cid, len(data)) for cid, data in zip(cids, items, strict=True)], self.clock(), pin)
            self._put_all(list(zip(items, cids, strict=True)))
        except (StorageError, sqlite3.Error, OSError) as error:
            self.observer.store_error("put", error)
            if _disk_full(error):  # transient once space is freed: retried like an unreachable store
                raise StoreUnavailable(f"no space left for the store at {self._ledger.path.parent} ({error}): free "
                                       "some space there; the store's GC drops unpinned results older than the "
                                       "retention") from error
            raise
        self.observer.stored("put", sum(map(len, items)))
        return cids

    def get(self, cid: str, timeout: float | None = None) -> bytes:
        """The bytes named `cid`, checked against it (CIDMismatch if they do not match; NotACid if
        `cid` is no CID). `timeout`: how long a fetch from the network may take (None: the store's own)."""
        try:
            data = self._get(_a_cid(cid), timeout)
            verify(data, cid)
        except (StorageError, CIDMismatch, OSError) as error:
            self.observer.store_error("get", error)
            raise
        self.observer.stored("get", len(data))
        return data

    def pin(self, cid: str) -> None:
        """Keep `cid` past the retention. ContentNotFound if it is not stored here."""
        if not self._ledger.set_pinned(cid, True):
            raise ContentNotFound(f"cannot pin {cid}: it was not stored through this store")
        self._pin(cid)

    def unpin(self, cid: str) -> None:
        """Let `cid` expire at created-at + retention (at once if that has passed)."""
        if not self._ledger.set_pinned(cid, False):
            raise ContentNotFound(f"cannot unpin {cid}: it was not stored through this store")

    def list(self) -> list[Entry]:
        """Everything stored through this store, oldest first."""
        return self._ledger.entries()

    def delete(self, cid: str) -> None:
        """Drop `cid` now, pinned or not."""
        self._drop(cid)
        self._ledger.remove(cid)

    def gc(self) -> list[str]:
        """Delete unpinned objects whose latest put is older than the retention; return their CIDs.
        Safe beside other processes' puts and pins, except a put of the very same bytes racing
        the file's removal (then put it again)."""
        before = self.clock() - self.retention
        dropped = []
        for cid in self._ledger.expired(before):
            if self._ledger.remove_if_expired(cid, before):  # record first: no record, no object
                self._drop(cid)
                dropped.append(cid)
        return dropped


class EmbeddedStore(ContentStore):
    """Objects as files `<root>/blocks/<2 chars>/<cid>` (sharded by the CID's next-to-last two
    characters, like kubo's flatfs), ledger at `<root>/ledger.sqlite`."""

    def __init__(self, root: Path | str, **kwargs):
        self.root = Path(root)
        super().__init__(self.root / "ledger.sqlite", **kwargs)

    def _path(self, cid: str) -> Path:
        return self.root / "blocks" / cid[-3:-1] / cid

    def _put(self, data: bytes, cid: str) -> None:
        self._put_all([(data, cid)])

    def _put_all(self, objects: list[tuple[bytes, str]]) -> None:
        # Every file written before any is synced: fsyncs issued back to back share the journal's
        # commits (a trainer's 80 trace states: ~95 against ~130 ms synced one after the other).
        staged: list[tuple[int, str, Path]] = []  # (fd, temporary name, final path)
        try:
            for cid, data in {cid: data for data, cid in objects}.items():  # the same bytes once
                path = self._path(cid)
                if path.exists():
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
                staged.append((fd, tmp, path))
                with open(fd, "wb", closefd=False) as out:
                    out.write(data)
            for fd, _, _ in staged:
                os.fsync(fd)
            for _, tmp, path in staged:
                os.replace(tmp, path)  # readers see the whole file or none
        except BaseException:
            for _, tmp, _ in staged:
                Path(tmp).unlink(missing_ok=True)  # the ones not yet in place
            raise
        finally:
            for fd, _, _ in staged:
                os.close(fd)

    def _get(self, cid: str, timeout: float | None) -> bytes:
        try:
            return self._path(cid).read_bytes()
        except FileNotFoundError:
            raise ContentNotFound(f"{cid} is not in the embedded store at {self.root}") from None

    def has(self, cid: str) -> bool:
        return self._path(cid).exists()

    def _drop(self, cid: str) -> None:
        self._path(cid).unlink(missing_ok=True)


def ipfs_api_address(api: str) -> str:
    """The multiaddr of an IPFS RPC API given as one (`/ip4/127.0.0.1/tcp/5001/http`) or as the URL
    an IPFS node prints for it (`http://127.0.0.1:5001`)."""
    import ipaddress
    from urllib.parse import urlsplit

    if not api.startswith(("http://", "https://")):
        return api
    url = urlsplit(api)
    try:
        port = url.port
    except ValueError:
        port = None
    if not url.hostname or port is None or url.path not in ("", "/") or url.query:
        raise ValueError(f"bad IPFS API address {api!r}: give its host and port (http://127.0.0.1:5001) or a "
                         "multiaddr (/ip4/127.0.0.1/tcp/5001/http)")
    try:
        kind = "ip4" if ipaddress.ip_address(url.hostname).version == 4 else "ip6"
    except ValueError:
        kind = "dns"
    return f"/{kind}/{url.hostname}/tcp/{port}/{url.scheme}"


def check_ipfs_api(api: str) -> str:
    """The API's multiaddr (ipfs_api_address), or ValueError naming what is wrong with it: for a
    command that starts processes which would each fail on it."""
    import ipfshttpclient

    address = ipfs_api_address(api)
    try:
        ipfshttpclient.client.Client(addr=address).close()
    except ipfshttpclient.exceptions.AddressError as error:
        raise ValueError(f"bad IPFS API address {api!r} (expected e.g. /ip4/127.0.0.1/tcp/5001/http or "
                         f"http://127.0.0.1:5001): {error}") from None
    return address


class IpfsStore(ContentStore):
    """A real IPFS node's RPC API (kubo, or js-ipfs as in the tests). `api` is a multiaddr
    such as `/ip4/127.0.0.1/tcp/5001/http`, or its URL (`http://127.0.0.1:5001`); the ledger lives
    at `ledger_path`. `timeout`: how long each call may take (a `get` of content no reachable peer
    has ends with ContentNotFound after it). `outage_s`: how long a call waits for a node it cannot reach (its daemon
    restarting) before StoreUnavailable, trying again every second or so (a node's own store rides
    out its IPFS node's restart and goes on at once; a command line answers at once with 0)."""

    ADD_OPTS = {"cid-version": 1, "raw-leaves": True, "cid-base": "base32", "pin": True}

    def __init__(self, api: str, ledger_path: Path | str, *, timeout: float = DEFAULT_TIMEOUT, outage_s: float = 0.0,
                 **kwargs):
        import ipfshttpclient  # deferred: only IPFS users pay for its import

        # ipfshttpclient hands urllib3 a `strict` argument, which urllib3 2 answers with a
        # FutureWarning (shown by default) on every new connection: nothing an operator can act on
        warnings.filterwarnings("ignore", message="The 'strict' parameter is no longer needed", category=FutureWarning)
        self.api = check_ipfs_api(api)  # before the ledger: a bad address leaves nothing behind
        self.timeout, self.outage_s = timeout, outage_s
        self._errors = ipfshttpclient.exceptions
        # Not ipfshttpclient.connect(): it refuses every daemon newer than 0.8.
        self._client = ipfshttpclient.client.Client(addr=self.api, session=True, timeout=timeout)
        super().__init__(Path(ledger_path), **kwargs)

    def close(self) -> None:
        self._client.close()

    def _call(self, what: str, fn, *args, timeout: float | None = None, missing: str | None = None, **kwargs):
        """fn(*args) with a timeout; ipfshttpclient errors become StorageErrors that say what to fix.
        With `missing` set (a CID), a timeout or error answer means that content is not available."""
        timeout = timeout or self.timeout
        errors = self._errors
        try:
            return self._reaching(fn, *args, timeout=timeout, **kwargs)
        except errors.ConnectionError as error:
            raise StoreUnavailable(f"IPFS node at {self.api} is unreachable ({what}): start it, or set the "
                                   f"right RPC API address. {error}") from None
        except errors.TimeoutError:
            if missing:
                raise ContentNotFound(f"{missing} could not be fetched from the IPFS node at {self.api} within "
                                      f"{timeout:g} s: no reachable peer has it (never added, or collected)") from None
            raise StoreUnavailable(f"IPFS node at {self.api} did not answer {what} within {timeout:g} s") from None
        except errors.ErrorResponse as error:
            if missing:
                raise ContentNotFound(f"IPFS node at {self.api} cannot provide {missing}: {error}") from None
            raise StoreUnavailable(f"IPFS node at {self.api} failed {what}: {error}") from None
        except errors.Error as error:
            raise StoreUnavailable(f"IPFS node at {self.api} failed {what}: {error}") from None

    def _reaching(self, fn, *args, **kwargs):
        """fn(*args), tried again (each of our calls is safe to repeat) while the node cannot be
        reached or drops the connection (its daemon stopping), for up to outage_s, at most PROBE_S
        apart (jittered)."""
        import random

        give_up = time.monotonic() + self.outage_s
        while True:
            try:
                return fn(*args, **kwargs)
            except (self._errors.ConnectionError, self._errors.ProtocolError):
                if time.monotonic() >= give_up:
                    raise
                time.sleep(PROBE_S / 2 + random.uniform(0, PROBE_S / 2))

    def _put(self, data: bytes, cid: str) -> None:
        answer = self._call("add", self._client.add_bytes, data, opts=self.ADD_OPTS)
        if answer != cid:
            raise StoreUnavailable(f"IPFS node at {self.api} stored the data as {answer}, not {cid}: it must "
                                   "import with kubo's defaults (256 KiB chunks, balanced DAG)")

    def _get(self, cid: str, timeout: float | None) -> bytes:
        return self._call("cat", self._client.cat, cid, timeout=timeout, missing=cid)

    def has(self, cid: str) -> bool:
        """Whether the node holds `cid` in its pin set (pinned while we keep it)."""
        try:
            answer = self._call("pin ls", self._client.pin.ls, cid, type="recursive", missing=cid)
        except ContentNotFound:
            return False  # the node answers "not pinned" with an error
        return any(True for _ in _keys(answer))  # keys come back in the node's own base

    def _pin(self, cid: str) -> None:
        self._call("pin add", self._client.pin.add, cid)

    def _drop(self, cid: str) -> None:
        if self.has(cid):
            self._call("pin rm", self._client.pin.rm, cid)


def _disk_full(error: BaseException) -> bool:
    """A write failed for want of space (or of quota): the file system's errno, or SQLite's."""
    if isinstance(error, OSError):
        return error.errno in (errno.ENOSPC, errno.EDQUOT)
    return isinstance(error, sqlite3.OperationalError) and "disk is full" in str(error)


def _keys(answer) -> Iterator[str]:
    """CIDs of a `pin ls` answer (one dict, or a list of them when streamed)."""
    for part in answer if isinstance(answer, list) else [answer]:
        yield from part.get("Keys", {})


def gc_forever(store: ContentStore, interval: float, stop: threading.Event) -> None:
    """store.gc() now and every `interval` s until `stop` is set (each node's watcher process runs
    this in a thread). A pass that fails (an unreachable IPFS node, a ledger locked past its
    timeout, a file it cannot remove) is logged and tried again next time: a thread that died of it
    would leave the store growing, unnoticed, for the rest of the process's life."""
    while True:
        try:
            dropped = store.gc()
            if dropped:
                log.info("store gc: dropped %d results older than %.0f s", len(dropped), store.retention)
        except (StorageError, sqlite3.Error, OSError) as exc:
            log.warning("store gc skipped until the next pass in %.0f s: %s: %s", interval, type(exc).__name__, exc)
        if stop.wait(interval):
            return


def open_store(ipfs_api: str | None, root: Path | str, outage_s: float = 0.0, timeout: float = DEFAULT_TIMEOUT,
               **kwargs) -> ContentStore:
    """An IpfsStore when `ipfs_api` is set (ledger under `root`; `outage_s`, `timeout`: IpfsStore's),
    else an EmbeddedStore at `root`."""
    if ipfs_api:
        return IpfsStore(ipfs_api, Path(root) / "ipfs-ledger.sqlite", timeout=timeout, outage_s=outage_s, **kwargs)
    return EmbeddedStore(root, **kwargs)


__all__ = ["CIDMismatch", "ContentNotFound", "ContentStore", "EmbeddedStore", "Entry", "IpfsStore",
           "RETRYABLE", "StorageError", "StoreObserver", "StoreUnavailable", "gc_forever", "ipfs_api_address",
           "open_store"]
