"""Fixtures of the suites that run against a real anvil with the protocol deployed by plain web3
(workers.localnet.chain). Each suite's conftest binds them to its own anvil, so that parallel
test workers never share a chain:

    anvil, w3, admin, deployment_file, contracts = deployed_chain(start_anvil, "cli-test")
    invoke, node = node_folders(PASSWORD)
"""

import json
import re

import pytest
from click.testing import CliRunner

from workers.chain.deployment import load_deployment
from workers.localnet.chain import TOKEN, deploy_protocol, fund, http_w3


def deployed_chain(start_anvil, network: str, deployment_name: str = "contracts"):
    """Session fixtures: `anvil` (from `start_anvil()`), `w3`, `admin` (anvil's first account:
    deploys and governs), `deployment_file` (the record, written as `<network>.json`) and the
    loaded deployment under `deployment_name`."""

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
        record = deploy_protocol(w3, admin, treasury=w3.eth.accounts[9], network=network)
        path = tmp_path_factory.mktemp("deployments") / f"{network}.json"
        path.write_text(json.dumps(record, indent=2))
        return path

    @pytest.fixture(scope="session", name=deployment_name)
    def deployment(w3, deployment_file):
        return load_deployment(w3, path=deployment_file)

    return anvil, w3, admin, deployment_file, deployment


def account_of(output: str) -> str:
    """The address `node init` printed."""
    return re.search(r"^account (0x[0-9a-fA-F]{40})$", output, re.M).group(1)


def node_folders(password: str):
    """`invoke` and `node`, over the fixtures of `deployed_chain` (deployment named `contracts`):

    - `invoke(node_dir, *args, input=None, password=password)` runs `decentrl --rpc ..
      --deployment .. --node-dir node_dir *args` through click's CliRunner; the keystore password
      goes through the environment unless it is None (then it is prompted for, from `input`);
    - `node(drl=0, eth=10)` makes a node folder with a fresh keystore (low scrypt cost) whose
      account holds `drl` DRL and `eth` ETH, and returns (node_dir, address)."""

    @pytest.fixture
    def invoke(anvil, deployment_file, monkeypatch):
        from workers.cli import cli

        monkeypatch.delenv("REDIS_URL", raising=False)

        def run(node_dir, *args, input=None, password=password, deployment=deployment_file):
            if password is None:
                monkeypatch.delenv("DECENTRL_KEYSTORE_PASSWORD", raising=False)
            env = {"DECENTRL_KEYSTORE_PASSWORD": password} if password is not None else {}
            return CliRunner().invoke(cli, ["--rpc", anvil.http_url, "--deployment", str(deployment),
                                            "--node-dir", str(node_dir), *args],
                                      input=input, env=env, catch_exceptions=False)

        return run

    @pytest.fixture
    def node(tmp_path, invoke, w3, contracts, admin):
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

    return invoke, node
