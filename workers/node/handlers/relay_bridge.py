"""The relay bridge of a validator node with `--attest-relay ipfs` (SPECIFICATION.md 5.5.2):
`python -m workers.node.handlers.relay_bridge`, a child of the node's Supervisor (restarted when
it dies, like the watcher; config from DECENTRL_NODE_CONFIG).

It follows the deployment's relay topic on the node's IPFS node (subscribing again whenever the
subscription is lost: the IPFS node restarted) and writes into the node's own relay each entry
that is signed by the node it names (relay_wire) and that the chain says holds the slot in the
task's current round (relay_gate); everything else is dropped and counted. Meanwhile it publishes
the node's own posted entries again as its outbox schedules them (relay_gossip.REPUBLISH_AFTER_S).

A process of its own rather than a thread of the watcher or a worker: the subscription is a
stream that blocks, its failures (an IPFS node restarting) are its own, and the Supervisor gives
it restarts, a log file (logs/relay.log) and a line in `node status` without touching the
processes that follow the chain and run the work."""
from __future__ import annotations

import collections
import hashlib
import logging
import threading
import time

from workers.node.handlers.relay import AttestRelay
from workers.node.handlers.relay_wire import open_entry
from workers.node.observe import metrics
from workers.node.queues.transient import TRANSIENT

log = logging.getLogger(__name__)

REPUBLISH_LOOK_S = 0.25
SUMMARY_S = 60.0
"""Dropped messages are logged as counts by reason this often (a flood must not flood the log);
the metric decentrl_relay_entries_total counts them as they come, by kind (the gate's Refusal.kind,
or the bridge's own: repeat, unsigned, unavailable)."""
SEEN_CAP = 4096
REWRITE_S = 0.5
"""A message written this recently is not looked at again (a replayed one costs nothing); its
poster's next publication, at least a second later, writes it again (a Redis that restarted
empty gets it back)."""


class Inbox:
    """Takes the topic's messages into the node's relay (see the module doc)."""

    def __init__(self, relay: AttestRelay, gate, chain_id: int, registry: str, clock=time.monotonic):
        self.relay, self.gate, self.chain_id, self.registry = relay, gate, int(chain_id), registry
        self.clock = clock
        self.seen: collections.OrderedDict[bytes, float] = collections.OrderedDict()  # digest -> written at
        self.dropped: collections.Counter[str] = collections.Counter()
        self.written = 0

    def take(self, data: bytes) -> str | None:
        """Writes the message's entry into the relay; None, or why it was dropped."""
        digest = hashlib.sha256(data).digest()
        if self.clock() - self.seen.get(digest, float("-inf")) < REWRITE_S:
            return self._drop("written a moment ago", "repeat")
        signed = open_entry(data, self.chain_id, self.registry)
        if signed is None:
            return self._drop("not a signed relay entry of this deployment", "unsigned")
        refused = self.gate.check(signed.task_id, signed.round, signed.slot, signed.entry.node)
        if refused is not None:
            return self._drop(refused, refused.kind)
        self.relay.post(signed.task_id, signed.round, signed.slot, signed.entry)
        self.written += 1
        metrics.relay_entry("written")
        self.seen[digest] = self.clock()
        self.seen.move_to_end(digest)
        while len(self.seen) > SEEN_CAP:
            self.seen.popitem(last=False)
        return None

    def _drop(self, why: str, kind: str) -> str:
        self.dropped[str(why)] += 1
        metrics.relay_entry(kind)
        return why

    def summary(self) -> str:
        return f"{self.written} entries written; dropped: " + \
            (", ".join(f"{n} {why}" for why, n in self.dropped.most_common()) or "none")


def republish_due(outbox, publish, now: float) -> int:
    """Publishes every outbox entry due by `now` and reschedules it; how many were published.
    A node with no subscriber on the topic yet, or down, gets the entry at its next due time."""
    from workers.storage.ipfs_pubsub import NoSubscribers, PubsubUnavailable

    sent = 0
    for id_, data in outbox.due(now):
        try:
            publish(data)
            sent += 1
        except NoSubscribers:
            pass
        except PubsubUnavailable as exc:
            log.warning("publishing a posted entry again: %s", exc)
        outbox.published(id_, now)
    return sent


def _republish_forever(outbox, publish, stop: threading.Event) -> None:
    while not stop.wait(REPUBLISH_LOOK_S):
        try:
            republish_due(outbox, publish, time.time())
        except TRANSIENT as exc:  # intentional: Redis back soon; a late republish costs gas at worst
            log.warning("outbox: %s: %s", type(exc).__name__, exc)


def bridge(ipfs_api: str, topic: str, inbox: Inbox, outbox, stop: threading.Event) -> None:
    """Follows `topic` at the IPFS node `ipfs_api` into `inbox`, and publishes `outbox`'s due
    entries there, until `stop` is set."""
    from web3.exceptions import Web3RPCError

    from workers.storage.ipfs_pubsub import follow, publish

    threading.Thread(target=_republish_forever, args=(outbox, lambda data: publish(ipfs_api, topic, data), stop),
                     daemon=True, name="republish").start()
    summary_at = [time.monotonic() + SUMMARY_S]

    def on_message(message) -> None:
        try:
            inbox.take(message.data)
        except (*TRANSIENT, Web3RPCError) as exc:  # intentional: its poster publishes it again
            inbox._drop(f"{type(exc).__name__} (chain or Redis unavailable)", "unavailable")
        if time.monotonic() >= summary_at[0]:
            log.info("relay topic %s: %s", topic, inbox.summary())
            summary_at[0] = time.monotonic() + SUMMARY_S

    log.info("relay bridge: topic %s on the IPFS node at %s into %s", topic, ipfs_api, inbox.relay.prefix)
    follow(ipfs_api, topic, on_message, stop)


def run(config, stop: threading.Event) -> None:
    """The bridge of the node of `config` (NodeConfig): its deployment's topic, its IPFS node, its
    own Redis, the chain's slot holders (relay_gate.chain_gate)."""
    from workers.chain.deployment import load_deployment
    from workers.chain.rpc import http_w3
    from workers.chain.view import ChainView
    from workers.node.handlers.relay_gate import chain_gate
    from workers.node.handlers.relay_gossip import Outbox
    from workers.node.handlers.relay_wire import relay_topic

    settings = config.settings
    deployment = load_deployment(http_w3(settings.rpc_url), path=settings.deployment)
    chain_id, registry = deployment.chain_id, deployment.registry.address
    relay = AttestRelay.from_url(config.redis_url, chain_id, registry)
    inbox = Inbox(relay, chain_gate(ChainView(deployment)), chain_id, registry)
    bridge(settings.ipfs_api, relay_topic(chain_id, registry), inbox, Outbox(relay.client, chain_id, registry,
                                                                             relay.ttl_s), stop)


def main() -> None:
    from workers.node.config import NodeConfig
    from workers.node.observe import logs

    logs.configure()
    run(NodeConfig.from_env(), threading.Event())


if __name__ == "__main__":
    main()
