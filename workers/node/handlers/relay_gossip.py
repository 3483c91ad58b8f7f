"""The attestation relay over IPFS pubsub (`--attest-relay ipfs`, SPECIFICATION.md 5.5.2), as a
validator's handlers use it: the same post/entries as AttestRelay, on the node's own Redis.

`post` signs the entry with the node's account (relay_wire), publishes it on the deployment's
topic through the node's IPFS node, writes it into the node's own relay and puts it in the node's
outbox; the node's relay bridge (relay_bridge, a supervised process) writes what the other
validators publish into the same relay, and publishes the outbox's entries again a few times
(REPUBLISH_AFTER_S): pubsub delivers a message only to the peers subscribed when it is sent, so a
peer whose IPFS node or bridge restarted, or that joined the topic a moment late, still gets it.
`entries` reads the node's own relay, like any AttestRelay."""
from __future__ import annotations

import hashlib
import json
import logging
import time

from workers.node.handlers.relay import RELAY_TTL_S, AttestRelay, RelayEntry
from workers.node.handlers.relay_wire import relay_topic, sign_entry

log = logging.getLogger(__name__)

REPUBLISH_AFTER_S = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
"""When, after posting, an entry is published again: past the default aggregate wait (10 s) and
fallback (20 s), by which the round's aggregate is sent or given up."""


class Outbox:
    """Entries this node posted, due to be published again (a sorted set of ids by due time and a
    hash of id -> {data, posted}, in the node's own Redis)."""

    def __init__(self, client, chain_id: int, registry: str, ttl_s: int = RELAY_TTL_S):
        prefix = f"decentrl:attest-relay-out:{int(chain_id)}:{registry.lower()}"
        self.client, self.due_key, self.data_key, self.ttl_s = client, prefix + ":due", prefix + ":data", ttl_s

    def add(self, data: bytes, now: float) -> None:
        id_ = hashlib.sha256(data).hexdigest()
        with self.client.pipeline() as pipe:
            pipe.hset(self.data_key, id_, json.dumps({"data": data.decode(), "posted": now}))
            pipe.zadd(self.due_key, {id_: now + REPUBLISH_AFTER_S[0]})
            pipe.expire(self.data_key, self.ttl_s)
            pipe.expire(self.due_key, self.ttl_s)
            pipe.execute()

    def due(self, now: float) -> list[tuple[str, bytes]]:
        """(id, message) of every entry due to be published again by `now`."""
        out = []
        for id_ in self.client.zrangebyscore(self.due_key, "-inf", now):
            raw = self.client.hget(self.data_key, id_)
            if raw is None:
                self.client.zrem(self.due_key, id_)
                continue
            out.append((id_.decode() if isinstance(id_, bytes) else id_, json.loads(raw)["data"].encode()))
        return out

    def published(self, id_: str, now: float) -> None:
        """Reschedules entry `id_` for its next REPUBLISH_AFTER_S, or drops it after the last."""
        raw = self.client.hget(self.data_key, id_)
        posted = json.loads(raw)["posted"] if raw is not None else None
        later = [posted + s for s in REPUBLISH_AFTER_S if posted is not None and posted + s > now]
        if later:
            self.client.zadd(self.due_key, {id_: later[0]})
        else:
            self.client.zrem(self.due_key, id_)
            self.client.hdel(self.data_key, id_)


class GossipRelay:
    """The relay of a validator with `--attest-relay ipfs` (see the module doc)."""

    def __init__(self, local: AttestRelay, account, chain_id: int, registry: str, ipfs_api: str):
        self.local, self.account, self.ipfs_api = local, account, ipfs_api
        self.chain_id, self.registry = int(chain_id), registry
        self.topic = relay_topic(chain_id, registry)
        self.outbox = Outbox(local.client, chain_id, registry, local.ttl_s)

    def post(self, task_id: int, round_: int, slot: int, entry: RelayEntry) -> None:
        """Publishes the signed entry, then keeps it in the node's relay and outbox. PubsubUnavailable
        when the IPFS node cannot be reached (the vote is then opened alone); a node that has no
        peer on the topic yet is not an error: the bridge publishes the entry again."""
        from workers.storage.ipfs_pubsub import NoSubscribers, publish

        data = sign_entry(self.account, self.chain_id, self.registry, task_id, round_, slot, entry)
        try:
            publish(self.ipfs_api, self.topic, data)
        except NoSubscribers as exc:
            log.info("task %d round %d: %s; publishing again in %g s", task_id, round_, exc, REPUBLISH_AFTER_S[0])
        self.local.post(task_id, round_, slot, entry)
        self.outbox.add(data, time.time())

    def entries(self, task_id: int, round_: int, num_validators: int) -> dict[int, RelayEntry]:
        return self.local.entries(task_id, round_, num_validators)
