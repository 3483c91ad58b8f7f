"""workers.chain.deployment: records + committed ABIs -> contract objects; clear errors."""

import json

import pytest

from chain_services import http_w3
from workers.chain.deployment import DeploymentError, WrongNetwork, load_deployment


def test_binds_every_contract_to_its_address(deployment, deployment_file):
    record = json.loads(deployment_file.read_text())
    for name in ("TaskRegistry", "StakeManager", "Reputation", "RewardVault", "RLToken", "KeyringBoard"):
        assert deployment.contracts[name].address == record["contracts"][name]
    assert deployment.chain_id == 31337
    # calls reach the right contracts (state-independent: other tests share this chain)
    assert deployment.registry.functions.stakes().call() == record["contracts"]["StakeManager"]
    assert deployment.token.functions.totalSupply().call() == 1_000_000_000 * 10**18


def test_loads_by_network_name_from_the_deployments_dir(w3, deployment_file, monkeypatch):
    monkeypatch.setenv("DECENTRL_DEPLOYMENTS_DIR", str(deployment_file.parent))
    assert load_deployment(w3, "chain-test").registry.address == json.loads(deployment_file.read_text())["contracts"]["TaskRegistry"]


def test_missing_file_says_how_to_deploy(w3, tmp_path, monkeypatch):
    monkeypatch.setenv("DECENTRL_DEPLOYMENTS_DIR", str(tmp_path))
    with pytest.raises(DeploymentError, match=r"sepolia\.json not found: a network's operators publish its record "
                                              r".*scripts/deploy.py live --network sepolia"):
        load_deployment(w3, "sepolia")


def test_other_chain_id_is_a_wrong_network(anvil, deployment_file, tmp_path):
    record = json.loads(deployment_file.read_text())
    record["chainId"] = 11155111
    path = tmp_path / "sepolia.json"
    path.write_text(json.dumps(record))
    with pytest.raises(WrongNetwork, match=rf"wrong network: deployment is for chain 11155111, the RPC at "
                                           rf"{anvil.http_url} is chain 31337"):
        load_deployment(http_w3(anvil.http_url), path=path)


def test_no_code_at_the_registry_means_a_reset_chain(w3, deployment_file, tmp_path):
    record = json.loads(deployment_file.read_text())
    record["contracts"]["TaskRegistry"] = "0x" + "ab" * 20
    path = tmp_path / "stale.json"
    path.write_text(json.dumps(record))
    with pytest.raises(DeploymentError, match="no contract at TaskRegistry .*deploy again"):
        load_deployment(w3, path=path)
