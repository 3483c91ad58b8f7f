"""Session services for the chain-layer tests: one anvil (own port in 8631-8639), one Redis
(own port in 16391-16399), the protocol deployed on that anvil with plain web3 and its record
written where workers.chain.deployment reads it."""

import pytest
from chain_services import ANVIL_PORTS, REDIS_PORTS, fund
from eth_account import Account

from tests.workers.deployed_chain import deployed_chain
from workers.localnet.chain import Anvil
from workers.node.processes.redis_service import start_embedded

anvil, w3, admin, deployment_file, deployment = deployed_chain(lambda: Anvil(ANVIL_PORTS), "chain-test",
                                                               deployment_name="deployment")


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


@pytest.fixture
def new_account(w3):
    """`new_account(eth=1000)`: a fresh local key funded with ETH."""

    def make(eth: int = 1000):
        account = Account.create()
        fund(w3, account.address, eth * 10**18)
        return account

    return make
