"""A decentrl network of separate hosts (workers.localnet.hosts.network): a chain host, a
requester host and the demo's six operators (2 samplers, 1 trainer, 3 validators), each in its
own network namespace with its own folder, IPFS node, Redis and `decentrl node start`. Built
once for the folder's tests (tests/conftest.py keeps its files on one test worker); `nodes` starts
the operators' nodes, recording first what each IPFS node was connected to. Needs root: without
it the tests fail, saying so (CI runs as root)."""
from pathlib import Path

import pytest

from workers.localnet.hosts.netns import require_root

OPERATORS = [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
             ("validator0", "validator"), ("validator1", "validator"), ("validator2", "validator")]


@pytest.fixture(scope="session")
def hosts(tmp_path_factory):
    from workers.localnet.hosts.network import HostsNetwork

    require_root()
    with HostsNetwork(tmp_path_factory.mktemp("hosts"), OPERATORS) as net:
        yield net


@pytest.fixture(scope="session")
def nodes(hosts):
    """Every operator's node running (`decentrl node start` on its host) until the session ends;
    hosts.peers_before_nodes: the peers each operator's IPFS node had before."""
    from workers.storage.swarm_peers import SwarmPeers

    hosts.peers_before_nodes = {op.name: op.host.call(SwarmPeers(op.ipfs.api, []).connected)
                                for op in hosts.operators.values()}
    hosts.start_nodes()
    yield hosts.operators
    hosts.stop_nodes()


def pytest_collection_modifyitems(items):
    # ipfshttpclient 0.7.0 passes urllib3 2 a deprecated `strict` argument; harmless until urllib3 3.
    for item in items:
        if Path(item.fspath).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.filterwarnings("ignore:The 'strict' parameter:FutureWarning"))

