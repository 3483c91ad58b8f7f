"""The observability tests' services: a real anvil (8820-8829) with the protocol deployed, an
embedded Redis (16445-16449), and one real node (prefork Celery workers, concurrency 2) whose
handlers (observe_handlers) do real work: CartPole rollouts and content-store writes."""
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from observe_support import PASSWORD, REDIS_PORTS, TOKEN, account_of, start_anvil  # noqa: E402

from workers.localnet.chain import deploy_protocol, fund, http_w3  # noqa: E402
from workers.node import redis_service  # noqa: E402


@pytest.fixture(scope="session")
def anvil():
    node = start_anvil()
    yield node
    node.stop()


@pytest.fixture(scope="session")
def w3(anvil):
    return http_w3(anvil.http_url)


@pytest.fixture(scope="session")
def admin(w3):
    return w3.eth.accounts[0]


@pytest.fixture(scope="session")
def deployment_file(w3, admin, tmp_path_factory):
    record = deploy_protocol(w3, admin, treasury=w3.eth.accounts[9], network="observe-test")
    path = tmp_path_factory.mktemp("deployments") / "observe-test.json"
    path.write_text(json.dumps(record, indent=2))
    return path


@pytest.fixture(scope="session")
def contracts(w3, deployment_file):
    from workers.chain.deployment import load_deployment

    return load_deployment(w3, path=deployment_file)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    service = redis_service.start_embedded(tmp_path_factory.mktemp("redis"), ports=REDIS_PORTS, databases=32)
    yield service
    service.stop()


@pytest.fixture
def invoke(anvil, deployment_file, monkeypatch):
    """`invoke(node_dir, *args)`: `decentrl --rpc .. --deployment .. --node-dir node_dir *args`."""
    monkeypatch.delenv("REDIS_URL", raising=False)

    def run(node_dir, *args, deployment=deployment_file):
        return CliRunner().invoke(
            __import__("workers.cli", fromlist=["cli"]).cli,
            ["--rpc", anvil.http_url, "--deployment", str(deployment), "--node-dir", str(node_dir), *args],
            env={"DECENTRL_KEYSTORE_PASSWORD": PASSWORD}, catch_exceptions=False)

    return run


@pytest.fixture
def node(tmp_path, invoke, w3, contracts, admin):
    """`node(drl=0)`: a node folder with a fresh keystore whose account holds `drl` DRL and ETH."""
    count = [0]

    def make(drl: int = 0):
        count[0] += 1
        node_dir = tmp_path / f"node{count[0]}"
        result = invoke(node_dir, "node", "init", "--scrypt-n", "1024")
        assert result.exit_code == 0, result.output
        address = account_of(result.output)
        fund(w3, address, 10 * TOKEN)
        if drl:
            tx = contracts.token.functions.transfer(address, drl * TOKEN).transact({"from": admin})
            assert w3.eth.wait_for_transaction_receipt(tx).status == 1
        return node_dir, address

    return make

