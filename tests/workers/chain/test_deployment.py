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
    recorded = json.loads(deployment_file.read_text())["contracts"]["TaskRegistry"]
    assert load_deployment(w3, "chain-test").registry.address == recorded


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


def test_another_chain_with_the_same_id_and_contracts_is_a_wrong_network(w3, admin, deployment_file, tmp_path):
    """Two local chains (or one restarted) share chain id 31337, and the same deployer gives the
    same addresses on both: only the genesis block tells them apart."""
    from chain_services import ANVIL_PORTS

    from workers.chain.deployment import genesis_hash
    from workers.localnet.chain import Anvil, deploy_protocol

    record = json.loads(deployment_file.read_text())
    assert record["genesisHash"] == genesis_hash(w3)
    other = Anvil(ANVIL_PORTS)
    try:
        other_w3 = http_w3(other.http_url)
        other_record = deploy_protocol(other_w3, admin, treasury=other_w3.eth.accounts[9], network="chain-test")
        assert other_record["contracts"]["TaskRegistry"] == record["contracts"]["TaskRegistry"]
        assert other_w3.eth.get_code(record["contracts"]["TaskRegistry"])  # the old check passed it
        with pytest.raises(WrongNetwork, match=rf"wrong network: the RPC at {other.http_url} is another chain "
                                               rf"with id 31337 \(genesis block 0x[0-9a-f]{{16}}\.\., the "
                                               rf"deployment's is {record['genesisHash'][:18]}\.\.\): point --rpc"):
            load_deployment(other_w3, path=deployment_file)
        other_path = tmp_path / "other.json"
        other_path.write_text(json.dumps(other_record))
        assert load_deployment(other_w3, path=other_path).registry.address == record["contracts"]["TaskRegistry"]
    finally:
        other.stop()


def test_a_record_without_a_genesis_hash_is_checked_by_chain_id_alone(w3, deployment_file, tmp_path):
    record = json.loads(deployment_file.read_text())
    del record["genesisHash"]  # written before records held it
    path = tmp_path / "old.json"
    path.write_text(json.dumps(record))
    assert load_deployment(w3, path=path).registry.address == record["contracts"]["TaskRegistry"]
