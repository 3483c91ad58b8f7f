"""A real anvil on a free port of 8670-8679 with the protocol deployed by plain web3 (the chain
tests' helpers), and node folders for the CLI tests, which run `decentrl` through click's
CliRunner."""

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from eth_account import Account

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "chain"))
from chain_services import deploy_protocol, fund, http_w3  # noqa: E402
from cli_support import PASSWORD, TOKEN, account_of  # noqa: E402

from workers.cli import cli  # noqa: E402
from workers.localnet.chain import Anvil  # noqa: E402

ANVIL_PORTS = range(8670, 8680)


@pytest.fixture(scope="session")
def anvil():
    node = Anvil(ANVIL_PORTS)
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
    record = deploy_protocol(w3, admin, treasury=w3.eth.accounts[9])
    path = tmp_path_factory.mktemp("deployments") / "cli-test.json"
    path.write_text(json.dumps(record, indent=2))
    return path


@pytest.fixture(scope="session")
def contracts(w3, deployment_file):
    from workers.chain.deployment import load_deployment

    return load_deployment(w3, path=deployment_file)


@pytest.fixture
def invoke(anvil, deployment_file, monkeypatch):
    """`invoke(node_dir, *args, input=None, password=PASSWORD)`: runs `decentrl --rpc ...
    --deployment ... --node-dir node_dir *args`; the password through the environment unless None
    (then it is prompted for and given in `input`)."""
    monkeypatch.delenv("REDIS_URL", raising=False)

    def run(node_dir, *args, input=None, password=PASSWORD, deployment=deployment_file):
        env = {"DECENTRL_KEYSTORE_PASSWORD": password} if password is not None else {}
        if password is None:
            monkeypatch.delenv("DECENTRL_KEYSTORE_PASSWORD", raising=False)
        runner = CliRunner()
        return runner.invoke(cli, ["--rpc", anvil.http_url, "--deployment", str(deployment),
                                   "--node-dir", str(node_dir), *args], input=input, env=env,
                             catch_exceptions=False)

    return run


@pytest.fixture
def node(tmp_path, invoke, w3, contracts, admin):
    """`node(drl=0, eth=10)`: a node folder with a fresh keystore (low scrypt cost) whose account
    holds `drl` DRL and `eth` ETH; returns (node_dir, address)."""
    count = [0]

    def make(drl: int = 0, eth: int = 10):
        count[0] += 1
        node_dir = tmp_path / f"node{count[0]}"
        result = invoke(node_dir, "node", "init", "--scrypt-n", "1024")
        assert result.exit_code == 0, result.output
        address = account_of(result.output)
        fund(w3, address, eth * TOKEN)
        if drl:
            tx = contracts.token.functions.transfer(address, drl * TOKEN).transact({"from": admin})
            assert w3.eth.wait_for_transaction_receipt(tx).status == 1
        return node_dir, address

    return make


@pytest.fixture
def key():
    return Account.create()
