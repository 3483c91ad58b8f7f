"""A Celery consumer that reconnects to the node's Redis within about a second of its return.

Celery's consumer retries a lost broker connection at 2, 4, 6 ... 30 s intervals (kombu's
defaults; its transport options do not reach this path), so a worker whose Redis came back after
half a minute idled up to 12 s more before it took a job again. This one probes every
transient.PROBE_S at most, for as long as the outage lasts (broker_connection_max_retries=None in
celery_app), like the node's own Redis clients (transient.redis_client).
"""
from __future__ import annotations

import functools

from celery.worker.consumer import Consumer

from workers.node.queues.transient import PROBE_S


class QuickReconnect(Consumer):
    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(conn.ensure_connection, interval_start=0,
                                                   interval_step=PROBE_S / 4, interval_max=PROBE_S)
        return super().ensure_connected(conn)
