"""The relay over IPFS pubsub (workers/node/handlers/relay_*.py): a real Redis for the relay and
outbox of each test; js-ipfs nodes for the tests that need them (test_relay_over_ipfs.py)."""
import pytest

from workers.node.processes import redis_service

REDIS_PORTS = range(9340, 9350)


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    service = redis_service.start_embedded(tmp_path_factory.mktemp("relay-redis"), ports=REDIS_PORTS)
    yield service
    service.stop()


@pytest.fixture
def redis_client(redis_server):
    client = redis_server.client()
    client.flushall()
    yield client
    client.close()
