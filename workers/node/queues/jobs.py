"""Job records and leases in Redis: one record per (role, event key), event key = txHash:logIndex.

Record (hash decentrl:<node>:job:<role>:<key>): status queued|running|done|failed, attempts
(handler runs started), last_error, event, updated (unix seconds), run (the run's event args and
block, JSON: what `stale` sends again), requeued (times it was). A lease
(decentrl:<node>:lease:<role>:<key>) marks a handler as running; its owner renews it while the
handler runs, so it lapses soon after a worker dies and a redelivered task can run again. A
record left `running` with no lease (its worker died, or Redis was down as the run ended and its
outcome was never recorded), or left `queued` with its message gone (taken by a worker as Redis
died), is found by `stale` and sent again (the watcher's sweep, tasks.make_enqueue): a job is never
left waiting for a message that nobody will deliver.
A run starts (the done check, the lease, the record read under it: `JobStore.acquire`) and ends
(its outcome recorded, the lease released: `Lease.release`) in one round trip each: every job of
every worker pays them, and a node's Redis may be across a network.
"""
from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from dataclasses import dataclass, field

import redis

log = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
EVENT_KEY = re.compile(r"0x[0-9a-f]{64}:\d+")
"""A chain event's key (txHash:logIndex); a scheduled check (workers.node.handlers.common.
schedule_check) has its own."""

# KEYS lease; ARGV token, ttl ms. Renew our lease, or take it again when it lapsed meanwhile (Redis
# was down longer than the TTL, and came back without it): the handler is still running, and a
# lease left lapsed would let the stale-job sweep send it again beside itself. 0: another run holds it.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
"""
# KEYS job record, lease; ARGV token, ttl ms, the done status. A run's start in one round trip: a
# job done already takes no lease ({0}); a lease held by another delivery gives its time left
# ({-1, ms}); else the lease is taken (or kept, when it is ours already: this call sent again after
# its reply was lost with the connection) and the record read under it ({1, flat record}).
_ACQUIRE = """
if redis.call('HGET', KEYS[1], 'status') == ARGV[3] then return {0} end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('PEXPIRE', KEYS[2], ARGV[2])
elseif not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {-1, redis.call('PTTL', KEYS[2])} end
return {1, redis.call('HGETALL', KEYS[1])}
"""
# KEYS job record, lease; ARGV the status the sweep saw, queued, now. Mark the record queued again
# if it still has that status and no lease is held on it (1), else leave it (0): checked and changed
# at once, so a record that a run took (or ended) meanwhile is left as that run has it.
_REQUEUE = """
if redis.call('HGET', KEYS[1], 'status') ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'requeued', 1)
return 1
"""
# KEYS job record, lease; ARGV token, then the record's fields and values to set, if any. A run's
# end in one round trip: its outcome recorded, then its lease released (if it is still ours).
_FINISH = """
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2)) end
if redis.call('GET', KEYS[2]) == ARGV[1] then return redis.call('DEL', KEYS[2]) end
return 0
"""


def _run(args: dict, block: int | None, until: float | None) -> str:
    """A record's "run" field: what sending the job again needs (JobRecord.run)."""
    run = {"args": args, "block": block}
    if until is not None:
        run["until"] = until
    return json.dumps(run)


def status_fields(status: str, error: str | None = None) -> dict:
    """A job record's fields for a new status (and its error, cut to 2000 characters)."""
    fields = {"status": status, "updated": repr(time.time())}
    if error is not None:
        fields["last_error"] = error[:2000]
    return fields


@dataclass(frozen=True)
class JobRecord:
    status: str | None
    attempts: int
    last_error: str
    event: str
    run: dict | None = None
    """The last run's event args and block, and the job's deadline if it has one ({"args": ...,
    "block": ..., "until": ...}); None before a run."""
    requeued: int = 0
    """Times `stale` found it lost and it was sent again."""
    updated: float = field(default=0.0, compare=False)
    """When its status last changed (unix seconds)."""

    @classmethod
    def parse(cls, raw: dict) -> JobRecord:
        raw = {k.decode(): v.decode() for k, v in raw.items()}
        return cls(status=raw.get("status"), attempts=int(raw.get("attempts", 0)),
                   last_error=raw.get("last_error", ""), event=raw.get("event", ""),
                   run=json.loads(raw["run"]) if "run" in raw else None, requeued=int(raw.get("requeued", 0)),
                   updated=float(raw.get("updated", 0.0)))


class JobStore:
    def __init__(self, client: redis.Redis, prefix: str):
        self.client, self.prefix = client, prefix
        self._renew = client.register_script(_RENEW)
        self._acquire = client.register_script(_ACQUIRE)
        self._finish = client.register_script(_FINISH)
        self._requeue = client.register_script(_REQUEUE)

    def job_key(self, role: str, event_key: str) -> str:
        return f"{self.prefix}:job:{role}:{event_key}"

    def lease_key(self, role: str, event_key: str) -> str:
        return f"{self.prefix}:lease:{role}:{event_key}"

    def get(self, role: str, event_key: str) -> JobRecord:
        return JobRecord.parse(self.client.hgetall(self.job_key(role, event_key)))

    def mark_queued(self, role: str, event_key: str, event: str, args: dict | None = None,
                    block: int | None = None, until: float | None = None) -> bool:
        """Create the record as queued (with the event's `args`, `block` and the job's deadline
        `until`, for `stale`); False (and nothing changed) if it already exists."""
        key = self.job_key(role, event_key)
        created = self.client.hsetnx(key, "status", QUEUED)
        if created:
            fields = {"event": event, "attempts": 0, "updated": time.time()}
            if args is not None:
                fields["run"] = _run(args, block, until)
            self.client.hset(key, mapping=fields)
        return bool(created)

    def start_attempt(self, role: str, event_key: str, event: str, args: dict | None = None,
                      block: int | None = None, until: float | None = None) -> int:
        """Marks the job running and counts the attempt; `args`, `block` (the event's) and `until`
        (the job's deadline) are kept so that `stale` can send the job again as it was."""
        key = self.job_key(role, event_key)
        fields = {"status": RUNNING, "event": event, "updated": time.time()}
        if args is not None:
            fields["run"] = _run(args, block, until)
        pipe = self.client.pipeline()
        pipe.hincrby(key, "attempts", 1)
        pipe.hset(key, mapping=fields)
        return int(pipe.execute()[0])

    def stale(self, older_than_s: float) -> list[tuple[str, str, JobRecord]]:
        """(role, event key, record) of every job whose status has not changed for `older_than_s`
        and that no run holds: running with no lease (its handler died, or its outcome was lost
        with Redis), or queued (its message may be waiting, or gone: the caller looks). The
        caller sends each one it finds lost again, then marks it (`requeued`). A record without a
        run to send (written before records kept one) is left out."""
        cutoff = time.time() - older_than_s
        keys = list(self.client.scan_iter(match=self.job_key("*", "*"), count=1000))
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.hmget(key, "status", "updated", "run")
        found = []
        for key, (status, updated, run) in zip(keys, pipe.execute(), strict=True):
            if status not in (RUNNING.encode(), QUEUED.encode()) or run is None or float(updated or 0) > cutoff:
                continue
            role, _, event_key = key.decode()[len(self.prefix) + len(":job:"):].partition(":")
            if not self.client.exists(self.lease_key(role, event_key)):
                found.append((role, event_key, self.get(role, event_key)))
        return found

    def requeued(self, role: str, event_key: str, seen: str) -> bool:
        """Marks a job `stale` found (with status `seen`) queued again, counting it, unless a run
        took its lease or changed it meanwhile; whether it did (the caller sends the job again only then)."""
        keys = [self.job_key(role, event_key), self.lease_key(role, event_key)]
        return bool(self._requeue(keys=keys, args=[seen, QUEUED, repr(time.time())]))

    def unfinished_events(self) -> list[tuple[str, str]]:
        """(role, event key) of every chain event's job still queued or running."""
        found = []
        for key in self.client.scan_iter(match=self.job_key("*", "*"), count=1000):
            role, _, event_key = key.decode()[len(self.prefix) + len(":job:"):].partition(":")
            if EVENT_KEY.fullmatch(event_key) and self.get(role, event_key).status in (QUEUED, RUNNING):
                found.append((role, event_key))
        return found

    def acquire(self, role: str, event_key: str, ttl_s: float) -> tuple[JobRecord | None, Lease | None]:
        """A run's start, in one round trip: (None, None) when the job is done already; LeaseHeld
        when another delivery holds its lease; else its record, read under the lease now held
        (and renewed until `Lease.release`)."""
        lease = Lease(self, self.lease_key(role, event_key), ttl_s)
        answer = self._acquire(keys=[self.job_key(role, event_key), lease.key], args=[lease.token, lease.ttl_ms, DONE])
        if answer[0] == 0:
            return None, None
        if answer[0] == -1:
            raise LeaseHeld(f"{lease.key} is held for another {max(answer[1], 0) / 1000:.1f} s")
        flat = answer[1]
        lease.renew_until_released()
        return JobRecord.parse(dict(zip(flat[::2], flat[1::2], strict=True))), lease


class LeaseHeld(RuntimeError):
    """Another worker is running this job now (or died less than a lease ago)."""


class Lease:
    """A SET NX PX lease (taken by JobStore.acquire) renewed by a daemon thread every ttl/3 until released."""

    def __init__(self, store: JobStore, key: str, ttl_s: float):
        self.store, self.key, self.ttl_ms = store, key, max(1, int(ttl_s * 1000))
        self.token = uuid.uuid4().hex
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def renew_until_released(self) -> None:
        self._thread = threading.Thread(target=self._renew_loop, daemon=True)
        self._thread.start()

    def _renew_loop(self) -> None:
        # A renewal that fails (Redis restarting, a dropped connection) is tried again a third of
        # the TTL later: the lease holds while a renewal gets through within its TTL, and a loop
        # that ended at the first error would let it lapse under a handler that is still running.
        # (The node's client itself waits out an outage, and the first renewal after it takes the
        # lease again if it lapsed meanwhile.)
        while not self._stop.wait(self.ttl_ms / 3000):
            try:
                self.store._renew(keys=[self.key], args=[self.token, self.ttl_ms])
            except redis.RedisError as exc:
                log.warning("lease %s not renewed (%s: %s); trying again in %.1f s", self.key,
                            type(exc).__name__, exc, self.ttl_ms / 3000)

    def release(self, job_key: str | None = None, status: str | None = None, error: str | None = None) -> None:
        """Stops renewing and releases the lease; with `status`, first records it (and `error`) in
        the job record at `job_key`, in the same round trip."""
        self._stop.set()
        if self._thread:
            self._thread.join()
        fields = [] if status is None else [x for pair in status_fields(status, error).items() for x in pair]
        self.store._finish(keys=[job_key or self.key, self.key], args=[self.token, *fields])
