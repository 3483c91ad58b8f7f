"""Failures of the node's own infrastructure that pass (its Redis restarting, a dropped connection),
named once: the dispatcher retries a handler that raises one (dispatch.retryable_errors), and the
node's Redis clients (`redis_client`) ride out an outage of up to OUTAGE_S by probing every
PROBE_S at most, so a job that meets one pauses and goes on within about a second of Redis's
return, instead of failing or waiting out a retry's backoff.

redis-py's ConnectionError and TimeoutError are not the built-in ones, and kombu wraps them (and
the socket's) in its OperationalError when Celery sends a message: each is listed here.
"""
from __future__ import annotations

import kombu.exceptions
import redis
from redis.backoff import EqualJitterBackoff
from redis.retry import Retry

REDIS_ERRORS: tuple[type[BaseException], ...] = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
"""redis-py's errors for a server that cannot be reached or did not answer in time."""

TRANSIENT: tuple[type[BaseException], ...] = (
    TimeoutError, ConnectionError, *REDIS_ERRORS, kombu.exceptions.OperationalError)
"""Every infrastructure error that trying again later can get past."""

PROBE_S = 1.0
"""The longest wait between two tries of a Redis that is down (jittered: each wait is drawn from
[half, all] of the current step, which doubles from 50 ms up to this)."""

OUTAGE_S = 120.0
"""How long a node's Redis client keeps trying one command (a node's health check restarts its
embedded Redis within a minute); a longer outage raises, and the job is retried or re-queued."""


def outage_retry(outage_s: float = OUTAGE_S, probe_s: float = PROBE_S) -> Retry:
    """redis-py's retry policy for a command that meets REDIS_ERRORS: tries again, probe_s/2 to
    probe_s apart once the first quick tries failed, for outage_s to twice that."""
    return Retry(EqualJitterBackoff(cap=probe_s, base=0.05), retries=max(1, int(outage_s / (probe_s / 2))),
                 supported_errors=REDIS_ERRORS)


def redis_client(url: str, outage_s: float = OUTAGE_S, probe_s: float = PROBE_S) -> redis.Redis:
    """A client of the node's Redis whose commands ride out an outage (outage_retry). Its
    commands must be safe to send twice (a reply lost with the connection): the job records'
    and the nonce's are (jobs.py, workers.chain.sender)."""
    return redis.Redis.from_url(url, retry=outage_retry(outage_s, probe_s), retry_on_error=list(REDIS_ERRORS),
                                socket_connect_timeout=2)
