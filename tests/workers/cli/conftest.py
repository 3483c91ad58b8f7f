"""A real anvil on a free port of 8670-8679 with the protocol deployed by plain web3, and node
folders for the CLI tests, which run `decentrl` through click's CliRunner."""

import pytest
from cli_support import PASSWORD
from eth_account import Account

from tests.workers.deployed_chain import deployed_chain, node_folders
from workers.localnet.chain import Anvil

ANVIL_PORTS = range(8670, 8680)

anvil, w3, admin, deployment_file, contracts = deployed_chain(lambda: Anvil(ANVIL_PORTS), "cli-test")
invoke, node = node_folders(PASSWORD)


@pytest.fixture
def key():
    return Account.create()
