"""A Celery consumer that reconnects to the node's Redis within about a second of its return and
hands back the messages it held when the connection dropped.

Celery's consumer retries a lost broker connection at 2, 4, 6 ... 30 s intervals (kombu's
defaults; its transport options do not reach this path), so a worker whose Redis came back after
half a minute idled up to 12 s more before it took a job again. This one probes every
transient.PROBE_S at most, for as long as the outage lasts (broker_connection_max_retries=None in
celery_app), like the node's own Redis clients (transient.redis_client).

The messages a worker holds unacknowledged (the job it runs, the retries and scheduled checks
waiting for their time) are put back in their queues when its channel closes; with Redis down that
fails, and kombu 5.7 then raises AttributeError from the close (a collected channel has no
connection left), which stopped the worker. Here the failed close is let go, and the held messages
are put back as soon as the connection is made again: otherwise they would wait out the visibility
timeout (15 minutes by default) before any worker got them.
"""
from __future__ import annotations

import functools
import logging

from celery.worker.consumer import Consumer

from workers.node.queues.transient import PROBE_S

log = logging.getLogger(__name__)


class QuickReconnect(Consumer):
    _held: tuple = ()
    """Delivery tags of the messages held when the connection dropped, to be put back."""

    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(conn.ensure_connection, interval_start=0,
                                                   interval_step=PROBE_S / 4, interval_max=PROBE_S)
        return super().ensure_connected(conn)

    def on_connection_error_after_connected(self, exc):
        self._held = held_tags(self.connection)
        try:
            super().on_connection_error_after_connected(exc)
        except AttributeError as error:  # kombu 5.7: closing a Redis channel that collect() emptied
            log.info("broker connection closed with %d message(s) held (%s); they are put back on reconnecting",
                     len(self._held), error)

    def connect(self):
        conn = super().connect()
        held, self._held = self._held, ()
        if held:
            qos = conn.default_channel.qos
            for tag in held:
                qos.restore_by_tag(tag)  # a message already put back (or acknowledged) is left as it is
            log.info("put back %d message(s) held when the broker connection dropped", len(held))
        return conn


def held_tags(connection) -> tuple:
    """The delivery tags of the unacknowledged messages on `connection`'s channel (the consumer's),
    read without touching the broker: kombu's virtual QoS keeps them in memory."""
    channel = getattr(connection, "_default_channel", None) if connection is not None else None
    qos = getattr(channel, "_qos", None)
    if qos is None:
        return ()
    return tuple(tag for tag in list(qos._delivered) if tag not in qos._dirty)
