"""The deployment record serves a third-party client: deployments/<network>.json names every
contract with its address and ABI, so plain web3.py binds and uses the protocol from that file alone."""
import json

from brownie import web3 as brownie_web3
from web3 import Web3
from web3.logs import DISCARD

from scripts.deploy import write_deployment


def test_record_carries_address_and_abi_of_every_contract(dep, tmp_path, monkeypatch):
    monkeypatch.setenv("DECENTRL_DEPLOYMENTS_DIR", str(tmp_path))
    record = json.loads(write_deployment(dep, "third-party").read_text())
    assert set(record["abis"]) == set(record["contracts"]) == set(dep.contracts())
    for name, contract in dep.contracts().items():
        assert record["contracts"][name] == contract.address
        assert record["abis"][name] == contract.abi


def test_plain_web3_reads_and_signs_from_the_record_alone(staked, requester, tmp_path, monkeypatch):
    monkeypatch.setenv("DECENTRL_DEPLOYMENTS_DIR", str(tmp_path))
    record = json.loads(write_deployment(staked, "third-party").read_text())
    w3 = Web3(Web3.HTTPProvider(brownie_web3.provider.endpoint_uri))
    bind = {name: w3.eth.contract(address=record["contracts"][name], abi=record["abis"][name], decode_tuples=True)
            for name in ("RLToken", "TaskRegistry", "StateView", "ProtocolConfig", "TaskFront")}
    bounty = 1000 * 10**18
    params = ("bafkrei-third-party", b"\x11" * 32, bounty, 1, 1, 1, 3600, 600, 600, 600)
    token, registry = bind["RLToken"].functions, bind["TaskRegistry"].functions
    w3.eth.wait_for_transaction_receipt(token.approve(record["contracts"]["TaskRegistry"], bounty).transact(
        {"from": requester.address}))
    receipt = w3.eth.wait_for_transaction_receipt(registry.createTask(params).transact({"from": requester.address}))
    # the receipt also holds the token's and the vault's logs: only the registry's TaskCreated is wanted
    created = bind["TaskRegistry"].events.TaskCreated().process_receipt(receipt, errors=DISCARD)[0]["args"]
    task = bind["StateView"].functions.taskOf(created["taskId"]).call()
    assert (task.requester, task.specCid, task.bounty) == (requester.address, "bafkrei-third-party", bounty)
    assert bind["StateView"].functions.taskCount().call() == created["taskId"]
    assert bind["ProtocolConfig"].functions.roleShares().call() == [2000, 7000, 1000]
    assert bind["TaskFront"].functions.nonces(requester.address).call() == 0
