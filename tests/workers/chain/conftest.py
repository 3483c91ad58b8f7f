"""Session services for the chain-layer tests: one anvil (own port in 8631-8639), one Redis
(own port in 16391-16399), the protocol deployed on that anvil with plain web3 and its record
written where workers.chain.deployment reads it."""

import json

import pytest
from eth_account import Account

from chain_services import REDIS_PORTS, Anvil, deploy_protocol, fund, http_w3
from workers.node.redis_service import start_embedded
from workers.chain.deployment import load_deployment


@pytest.fixture(scope="session")
def anvil():
    node = Anvil()
    yield node
    node.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = start_embedded(tmp_path_factory.mktemp("redis"), ports=REDIS_PORTS)
    yield server
    server.stop()


@pytest.fixture
def redis_client(redis_server):
    """A client on an emptied database."""
    client = redis_server.client()
    client.flushdb()
    yield client
    client.close()


@pytest.fixture(scope="session")
def w3(anvil):
    return http_w3(anvil.http_url)


@pytest.fixture(scope="session")
def admin(w3):
    """anvil's first unlocked account: deploys and governs."""
    return w3.eth.accounts[0]


@pytest.fixture(scope="session")
def deployment_file(w3, admin, tmp_path_factory):
    record = deploy_protocol(w3, admin, treasury=w3.eth.accounts[9])
    path = tmp_path_factory.mktemp("deployments") / "chain-test.json"
    path.write_text(json.dumps(record, indent=2))
    return path


@pytest.fixture(scope="session")
def deployment(w3, deployment_file):
    return load_deployment(w3, path=deployment_file)


@pytest.fixture
def new_account(w3):
    """`new_account(eth=1000)`: a fresh local key funded with ETH."""

    def make(eth: int = 1000):
        account = Account.create()
        fund(w3, account.address, eth * 10**18)
        return account

    return make
