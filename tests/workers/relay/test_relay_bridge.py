"""workers/node/handlers/relay_bridge.py and relay_gossip.Outbox on a real Redis: what the bridge
takes from the topic into the node's relay, and when the node's own entries are published again."""
import json

import pytest
from eth_account import Account

from workers.node.handlers.relay import AttestRelay, RelayEntry
from workers.node.handlers.relay_bridge import REWRITE_S, Inbox, republish_due
from workers.node.handlers.relay_gate import NOT_HOLDER, Refusal
from workers.node.handlers.relay_gossip import REPUBLISH_AFTER_S, Outbox
from workers.node.handlers.relay_wire import sign_entry
from workers.node.observe.metrics import DECLARED
from workers.storage.ipfs_pubsub import NoSubscribers, PubsubUnavailable

REGISTRY = "0x" + "Ab" * 20
CHAIN = 31337
ALICE, MALLORY = Account.from_key(b"\x01" * 32), Account.from_key(b"\x02" * 32)


class HolderGate:
    """A gate whose chain says Alice holds slot 2 of task 3 in round 1."""

    def check(self, task_id, round_, slot, node):
        return None if (task_id, round_, slot, node) == (3, 1, 2, ALICE.address) else \
            Refusal(NOT_HOLDER, "not the slot's holder")


def entry(account, bitmap=0b101):
    return RelayEntry(bitmap, (5, 7), account.address, b"\x5a" * 32)


def test_the_holders_signed_entry_is_written_and_the_rest_dropped(redis_client):
    relay = AttestRelay(redis_client, CHAIN, REGISTRY)
    inbox = Inbox(relay, HolderGate(), CHAIN, REGISTRY)
    assert inbox.take(b"garbage") == "not a signed relay entry of this deployment"
    assert inbox.take(sign_entry(MALLORY, CHAIN, REGISTRY, 3, 1, 2, entry(MALLORY))) == "not the slot's holder"
    assert inbox.take(sign_entry(ALICE, CHAIN, REGISTRY, 3, 0, 2, entry(ALICE))) == "not the slot's holder"
    assert relay.entries(3, 1, 4) == {} and relay.entries(3, 0, 4) == {}
    assert inbox.take(sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry(ALICE))) is None
    assert relay.entries(3, 1, 4) == {2: entry(ALICE)}
    assert inbox.written == 1 and sum(inbox.dropped.values()) == 3


def relay_counts() -> dict[str, float]:
    return {s.labels["outcome"]: s.value for m in DECLARED.collect() if m.name == "decentrl_relay_entries"
            for s in m.samples if s.name.endswith("_total")}


def test_every_message_is_counted_by_outcome_in_the_nodes_metrics(redis_client):
    inbox = Inbox(AttestRelay(redis_client, CHAIN, REGISTRY), HolderGate(), CHAIN, REGISTRY)
    before = relay_counts()
    data = sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry(ALICE))
    for message in (b"garbage", sign_entry(MALLORY, CHAIN, REGISTRY, 3, 1, 2, entry(MALLORY)), data, data):
        inbox.take(message)
    after = relay_counts()
    assert {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)} == \
        {"unsigned": 1, "not-holder": 1, "written": 1, "repeat": 1}


def test_a_replayed_message_is_written_again_only_after_a_pause(redis_client):
    relay = AttestRelay(redis_client, CHAIN, REGISTRY)
    clock = [0.0]
    inbox = Inbox(relay, HolderGate(), CHAIN, REGISTRY, clock=lambda: clock[0])
    data = sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry(ALICE))
    assert inbox.take(data) is None
    assert inbox.take(data) == "written a moment ago"
    redis_client.flushall()  # the node's Redis restarted empty
    clock[0] += REWRITE_S  # the poster's next publication
    assert inbox.take(data) is None and relay.entries(3, 1, 4) == {2: entry(ALICE)}


def test_the_outbox_publishes_each_entry_again_on_its_schedule_then_forgets_it(redis_client):
    outbox = Outbox(redis_client, CHAIN, REGISTRY)
    data = sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry(ALICE))
    outbox.add(data, now=1000.0)
    sent = []

    def publish(message):
        sent.append(message)

    assert republish_due(outbox, publish, 1000.0 + REPUBLISH_AFTER_S[0] - 0.01) == 0
    times = []
    t = 1000.0
    while t < 1000.0 + REPUBLISH_AFTER_S[-1] + 5:
        if republish_due(outbox, publish, t):
            times.append(round(t - 1000.0, 2))
        t += 0.25
    assert times == list(REPUBLISH_AFTER_S) and set(sent) == {data}
    assert redis_client.zcard(outbox.due_key) == 0 and redis_client.hlen(outbox.data_key) == 0
    assert 0 < redis_client.ttl(outbox.due_key) or not redis_client.exists(outbox.due_key)


def test_an_ipfs_node_down_or_without_peers_keeps_the_schedule(redis_client):
    outbox = Outbox(redis_client, CHAIN, REGISTRY)
    outbox.add(sign_entry(ALICE, CHAIN, REGISTRY, 3, 1, 2, entry(ALICE)), now=0.0)

    def down(message):
        raise PubsubUnavailable("IPFS node unreachable")

    def alone(message):
        raise NoSubscribers("no peer on the topic")

    assert republish_due(outbox, down, REPUBLISH_AFTER_S[0]) == 0
    assert republish_due(outbox, alone, REPUBLISH_AFTER_S[1]) == 0
    assert json.loads(redis_client.hget(outbox.data_key, outbox.due(REPUBLISH_AFTER_S[2])[0][0]))["posted"] == 0.0


def test_posting_through_an_ipfs_node_that_is_down_is_the_relay_being_down(redis_client):
    """The validator then opens its vote alone at once (aggregate_handlers catches RelayUnavailable);
    nothing is kept to publish later."""
    from tests.ports import dead_port
    from workers.node.handlers.relay import RelayUnavailable
    from workers.node.handlers.relay_gossip import GossipRelay

    relay = AttestRelay(redis_client, CHAIN, REGISTRY)
    with dead_port() as port:
        gossip = GossipRelay(relay, ALICE, CHAIN, REGISTRY, f"/ip4/127.0.0.1/tcp/{port}/http")
        with pytest.raises(RelayUnavailable, match="unreachable for pubsub"):
            gossip.post(3, 1, 2, entry(ALICE))
    assert relay.entries(3, 1, 4) == {} and gossip.outbox.due(float("inf")) == []
