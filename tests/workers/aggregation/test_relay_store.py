"""workers/node/handlers/relay.py on a real Redis: entries per (chain, registry, task, round) and
slot, with a TTL; whatever is not a well-formed entry of a slot of the task is ignored (the relay
is untrusted)."""
import pytest

from workers.node.handlers.relay import OFF, RELAY_TTL_S, AttestRelay, RelayEntry, relay_url
from workers.node.processes import redis_service

REGISTRY = "0x" + "Ab" * 20
NODE = "0x" + "12" * 20


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    service = redis_service.start_embedded(tmp_path_factory.mktemp("relay-redis"), ports=range(9230, 9240))
    yield service
    service.stop()


@pytest.fixture
def relay(redis_server):
    client = redis_server.client()
    client.flushdb()
    yield AttestRelay(client, 31337, REGISTRY)
    client.close()


def test_an_entry_round_trips_per_task_round_and_slot(relay):
    entry = RelayEntry(0b101, (5, 7), NODE, b"\x5a" * 32)
    relay.post(3, 1, 2, entry)
    assert relay.entries(3, 1, num_validators=4) == {2: entry}
    assert relay.entries(3, 0, num_validators=4) == {} and relay.entries(4, 1, num_validators=4) == {}
    assert relay.key(3, 1) == f"decentrl:attest-relay:31337:{REGISTRY.lower()}:3:1"
    assert 0 < relay.client.ttl(relay.key(3, 1)) <= RELAY_TTL_S


def test_another_chain_or_registry_sees_nothing(relay):
    relay.post(3, 1, 0, RelayEntry(1, (5, 7), NODE, b"\x5a" * 32))
    assert AttestRelay(relay.client, 1, REGISTRY).entries(3, 1, 4) == {}
    assert AttestRelay(relay.client, 31337, "0x" + "cd" * 20).entries(3, 1, 4) == {}


def test_garbage_is_ignored(relay):
    good = RelayEntry(0b11, (5, 7), NODE, b"\x5a" * 32)
    relay.post(9, 0, 0, good)
    key = relay.key(9, 0)
    salt = "0x" + "5a" * 32
    relay.client.hset(key, mapping={"1": "not json", "2": '{"acceptBitmap": 1, "signature": [1], "node": "0x"}',
                                    "x": good.to_json(), "7": good.to_json(),
                                    "3": f'{{"acceptBitmap": -1, "signature": ["1", "2"], "node": "{NODE}", '
                                         f'"salt": "{salt}"}}'})
    assert relay.entries(9, 0, num_validators=4) == {0: good}
    # no salt, or a short one: the sealed vote could not be opened with it
    assert RelayEntry.parse(f'{{"acceptBitmap": 1, "signature": ["1", "2"], "node": "{NODE}"}}') is None
    assert RelayEntry.parse(f'{{"acceptBitmap": 1, "signature": ["1", "2"], "node": "{NODE}", "salt": "0x5a"}}') is None


def test_relay_url_defaults_to_the_nodes_redis_and_can_be_off():
    assert relay_url(None, "redis://h:1/3") == "redis://h:1/3"
    assert relay_url("redis://relay:6379/0", "redis://h:1/3") == "redis://relay:6379/0"
    assert relay_url(OFF, "redis://h:1/3") is None
