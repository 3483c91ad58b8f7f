"""A live deploy that stopped partway is taken up where it stopped (scripts/deploy.py, Progress):
the contracts it deployed are reused, not deployed again, and the roles it granted are not granted
twice. Run on the development chain with the deploy stopped by a failing TaskRegistry deploy."""
import json
from types import SimpleNamespace

import pytest
from brownie import TaskRegistry

import scripts.deploy as deploy_script
from scripts.deploy import CONTRACT_GAS, DEPLOY_GAS, WIRING_GAS, DeployError, DeployParams, Progress, deploy

BEFORE_REGISTRY = ["RLToken", "StakeManager", "Reputation", "RewardVault", "ProtocolConfig", "RoundLogic",
                   "AggregateAttest", "SlotLogic"]
AFTER_REGISTRY = ["TaskRegistry", "TaskFront", "KeyringBoard", "JuryLogic", "FaultProver", "DisputeManager",
                  "StateView"]


def test_a_deploy_that_stopped_is_taken_up(admin, tmp_path, monkeypatch):
    params = DeployParams(treasury=admin.address)
    path = tmp_path / "net.partial.json"
    real = TaskRegistry.deploy

    def the_rpc_went_away(*args):
        raise ConnectionError("the RPC went away")

    monkeypatch.setattr(TaskRegistry, "deploy", the_rpc_went_away)
    with pytest.raises(ConnectionError):
        deploy(admin, params, Progress(path, admin.address, params))
    saved = json.loads(path.read_text())["contracts"]
    assert list(saved) == BEFORE_REGISTRY
    # the funds check asks for what is left: the contracts from the registry on, and the wiring
    assert Progress(path, admin.address, params).gas_left() == WIRING_GAS + sum(
        CONTRACT_GAS[name] for name in AFTER_REGISTRY)
    assert Progress(tmp_path / "none.json", admin.address, params).gas_left() == DEPLOY_GAS

    monkeypatch.setattr(TaskRegistry, "deploy", real)
    nonce = admin.nonce
    dep = deploy(admin, params, Progress(path, admin.address, params))
    addresses = dep.addresses()
    assert {name: addresses[name] for name in BEFORE_REGISTRY} == saved  # reused
    # the deploys from the registry on, five grants, setTaskFront and setDisputeManager (disputes on,
    # as deployed by default): nothing of the first run again
    assert admin.nonce - nonce == len(AFTER_REGISTRY) + 5 + 1 + 1
    assert dep.state.disputeManager() == dep.disputes
    assert dep.registry.stakes() == saved["StakeManager"]
    assert dep.stakes.hasRole(dep.stakes.PROTOCOL_ROLE(), dep.registry)
    assert json.loads(path.read_text())["contracts"] == addresses

    # taken up again (all deployed, all granted): nothing is sent
    nonce = admin.nonce
    assert deploy(admin, params, Progress(path, admin.address, params)).addresses() == addresses
    assert admin.nonce == nonce


def test_progress_of_another_deployer_or_parameters_is_not_taken_up(admin, outsider, tmp_path):
    params = DeployParams(treasury=admin.address)
    path = tmp_path / "net.partial.json"
    path.write_text(json.dumps({"key": Progress(path, admin.address, params).key,
                                "contracts": {"RLToken": "0x" + "11" * 20}}))
    assert Progress(path, admin.address, params).addresses == {"RLToken": "0x" + "11" * 20}
    assert Progress(path, outsider.address, params).addresses == {}
    assert Progress(path, admin.address, DeployParams(treasury=outsider.address)).addresses == {}


def test_funds_check_asks_for_what_is_left(monkeypatch):
    gwei = 10**9
    chain = SimpleNamespace(gas_price=gwei, get_balance=lambda address: 5_000_000 * gwei)
    monkeypatch.setattr(deploy_script, "web3", SimpleNamespace(eth=chain))
    admin = SimpleNamespace(address="0x" + "ab" * 20)
    deploy_script._check_funds(admin, SimpleNamespace(gas_left=lambda: 5_000_000))  # just enough: no error
    with pytest.raises(DeployError, match=r"holds 0\.0050 ETH; the rest of the deploy that stopped takes about "
                                          r"5,000,001 gas, 0\.0050 ETH at the current 1 gwei: fund it first"):
        deploy_script._check_funds(admin, SimpleNamespace(gas_left=lambda: 5_000_001))
    with pytest.raises(DeployError, match=rf"; a deploy takes about {DEPLOY_GAS:,} gas"):
        deploy_script._check_funds(admin, SimpleNamespace(gas_left=lambda: DEPLOY_GAS))
