"""The attestation relay over real online js-ipfs nodes (tools/ipfs_node.py) on 127.0.0.1, each
with its own Redis and relay bridge (workers/node/handlers/relay_bridge.py): an entry a validator
posts through its node reaches the other node's relay; garbage and forgeries published on the
topic are dropped; a bridge whose IPFS node restarted subscribes again, and an entry posted while
it was down reaches it when its poster publishes it again.

The bridges' gate is the chain's answer "Alice holds slot 2 of task 3 and slot 0 of task 4, Bob
slot 1 of task 5, in round 1 (and of task 5 in round 2)" (the chain gate is tested on its own: test_relay_gate.py)."""
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests
from eth_account import Account

from tests.ports import ipfs_api_port
from workers.node.handlers.relay import AttestRelay, RelayEntry
from workers.node.handlers.relay_bridge import Inbox, bridge
from workers.node.handlers.relay_gate import NOT_HOLDER, Refusal
from workers.node.handlers.relay_gossip import GossipRelay, Outbox
from workers.node.handlers.relay_wire import relay_topic, sign_entry
from workers.node.processes import redis_service
from workers.storage.ipfs_pubsub import multibase, publish

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import ipfs_node  # noqa: E402

REGISTRY = "0x" + "Ab" * 20
CHAIN = 31337
TOPIC = relay_topic(CHAIN, REGISTRY)
ALICE, BOB, MALLORY = (Account.from_key(bytes([i]) * 32) for i in (1, 2, 3))
HOLDERS = {(3, 1, 2): ALICE.address, (4, 1, 0): ALICE.address, (5, 1, 1): BOB.address, (5, 2, 1): BOB.address}
WAIT_S = 20.0


class Holders:
    def check(self, task_id, round_, slot, node):
        return None if HOLDERS.get((task_id, round_, slot)) == node else Refusal(NOT_HOLDER, "not the slot's holder")


def free_swarm() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"/ip4/127.0.0.1/tcp/{s.getsockname()[1]}"


def topic_peers(node) -> set[str]:
    answer = requests.post(f"http://127.0.0.1:{node.port}/api/v0/pubsub/peers",
                           params={"arg": multibase(TOPIC.encode())}, timeout=5)
    return set(answer.json().get("Strings") or [])


def eventually(predicate, what: str, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.05)


class Host:
    """One validator's host: its own IPFS node, Redis and bridge."""

    def __init__(self, workdir: Path, name: str, account, port: int):
        self.name, self.workdir, self.account = name, workdir, account
        self.redis = redis_service.start_embedded(workdir / f"redis-{name}")
        self.relay = AttestRelay(self.redis.client(), CHAIN, REGISTRY)
        self.inbox = Inbox(self.relay, Holders(), CHAIN, REGISTRY)
        self.swarm, self.port = free_swarm(), port
        self.start_ipfs()
        self.stop = threading.Event()
        threading.Thread(target=bridge, args=(self.ipfs.api, TOPIC, self.inbox,
                                              Outbox(self.relay.client, CHAIN, REGISTRY), self.stop),
                         daemon=True, name=f"bridge-{name}").start()
        self.gossip = GossipRelay(self.relay, account, CHAIN, REGISTRY, self.ipfs.api)

    def start_ipfs(self, peers=()):
        self.ipfs = ipfs_node.start(self.workdir / f"ipfs-{self.name}", self.port, swarm=self.swarm,
                                    peers=tuple(peers))

    def close(self):
        self.stop.set()
        ipfs_node.stop(self.ipfs.pid)
        self.redis.stop()


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("relay-ipfs")
    made = []
    try:
        with ThreadPoolExecutor(2) as pool:  # js-ipfs takes seconds to start: both at once
            port_a = ipfs_api_port(ipfs_node)
            port_b = ipfs_node.free_api_port(ipfs_node.API_PORTS.index(port_a) + 1)  # probed before either binds
            starting = [pool.submit(Host, workdir, name, account, port)
                        for name, account, port in (("a", ALICE, port_a), ("b", BOB, port_b))]
            made += [f.result() for f in starting if f.exception() is None]
            for f in starting:
                f.result()
        a, b = made
        assert ipfs_node.connect(b.ipfs.port, a.ipfs.swarm), "b cannot dial a"
        eventually(lambda: b.ipfs.peer_id in topic_peers(a.ipfs) and a.ipfs.peer_id in topic_peers(b.ipfs),
                   "each node sees the other subscribed to the relay topic", timeout=60)
        yield SimpleNamespace(a=a, b=b)
    finally:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(Host.close, made))


def entry(account, bitmap=0b101):
    return RelayEntry(bitmap, (5, 7), account.address, b"\x5a" * 32)


def test_an_entry_posted_on_one_host_reaches_the_others_relay(hosts):
    hosts.a.gossip.post(3, 1, 2, entry(ALICE))
    assert hosts.a.relay.entries(3, 1, 4) == {2: entry(ALICE)}  # its own, at once
    eventually(lambda: hosts.b.relay.entries(3, 1, 4) == {2: entry(ALICE)}, "Alice's entry in b's relay")
    hosts.b.gossip.post(5, 1, 1, entry(BOB))
    eventually(lambda: hosts.a.relay.entries(5, 1, 4) == {1: entry(BOB)}, "Bob's entry in a's relay")


def test_garbage_and_forgeries_on_the_topic_are_dropped(hosts):
    inbox = hosts.a.inbox
    before = sum(inbox.dropped.values())
    forged = RelayEntry(0b111, (5, 7), MALLORY.address, b"\x42" * 32)
    for data in (b"garbage", b'{"task": 4}', sign_entry(MALLORY, CHAIN, REGISTRY, 4, 1, 0, forged),
                 sign_entry(ALICE, CHAIN, REGISTRY, 4, 0, 0, entry(ALICE))):  # Alice's slot, another round
        publish(hosts.b.ipfs.api, TOPIC, data)
    eventually(lambda: sum(inbox.dropped.values()) >= before + 4, "a's bridge dropped the four messages")
    assert hosts.a.relay.entries(4, 1, 4) == {} and hosts.a.relay.entries(4, 0, 4) == {}
    assert inbox.dropped["not a signed relay entry of this deployment"] >= 2
    assert inbox.dropped["not the slot's holder"] >= 2


def test_a_bridge_subscribes_again_after_its_ipfs_node_restarts(hosts):
    a, b = hosts.a, hosts.b
    ipfs_node.stop(b.ipfs.pid)
    a.gossip.post(4, 1, 0, entry(ALICE))  # b is down: nobody gets it now
    time.sleep(1.0)
    b.start_ipfs(peers=(a.ipfs.swarm,))  # same repo, API port and swarm address
    eventually(lambda: b.relay.entries(4, 1, 4) == {0: entry(ALICE)},
               "the entry posted while b's IPFS node was down, published again, in b's relay", timeout=40)
    b.gossip.post(5, 2, 1, entry(BOB, bitmap=0b11))
    eventually(lambda: a.relay.entries(5, 2, 4) == {1: entry(BOB, bitmap=0b11)}, "b posts again after its restart")
