"""Encrypted task inputs (SPECIFICATION 5.7) on a real anvil: `decentrl task submit --encrypt-inputs`
publishes only ciphertext, `decentrl task keys` wraps the data key for the assigned nodes (public
keys recovered from their own stake transactions) and posts the keyring; each assigned node opens
the same plaintext and initial bundle, a node not assigned gets nothing, and neither the store,
the calldata of any transaction, the CLI output nor the logs ever hold the plaintext or a key."""

import logging
import re

import pytest
from cli_support import PASSWORD, TOKEN
from eth_account import Account

from workers.chain.view import ChainView
from workers.crypto import inputs
from workers.crypto.errors import NoKeyForNode, NotAssigned
from workers.crypto.exchange import assigned_nodes, open_inputs
from workers.crypto.keyring import parse as parse_keyring
from workers.localnet.chain import fund
from workers.node.handlers.encrypted_inputs import initial_bundle_of
from workers.protocol import Role, Status
from workers.rl.envs import make_env, space_spec
from workers.rl.policy import PolicyConfig, make_policy, to_bytes
from workers.spec import DEMO_CARTPOLE, parse
from workers.storage import open_store

MIN_STAKE = {Role.SAMPLER: 100, Role.TRAINER: 500, Role.VALIDATOR: 200}


def private_policy() -> bytes:
    """A policy of the demo spec's architecture that its seed does not give (seed 4242)."""
    s = DEMO_CARTPOLE
    config = PolicyConfig(hidden_sizes=s.hidden_sizes, activation=s.activation, init_log_std=s.init_log_std, seed=4242)
    return to_bytes(make_policy(space_spec(make_env(s.env_id)), config))


def transact(w3, account, call):
    tx = call.build_transaction({"from": account.address, "chainId": w3.eth.chain_id,
                                 "nonce": w3.eth.get_transaction_count(account.address)})
    tx_hash = w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction)
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
    assert receipt.status == 1
    return receipt


@pytest.fixture
def staked(w3, contracts, admin):
    """`staked(role)`: a fresh account that staked the role's minimum itself (its own signed txs)."""

    def make(role: Role):
        account = Account.create()
        fund(w3, account.address, 10 * TOKEN)
        amount = MIN_STAKE[role] * TOKEN
        tx = contracts.token.functions.transfer(account.address, amount).transact({"from": admin})
        assert w3.eth.wait_for_transaction_receipt(tx).status == 1
        transact(w3, account, contracts.token.functions.approve(contracts.stakes.address, amount))
        transact(w3, account, contracts.stakes.functions.stake(int(role), amount))
        return account

    return make


def test_encrypted_inputs_reach_only_the_assigned_nodes(node, invoke, staked, contracts, w3, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    plaintext = private_policy()
    policy_file = tmp_path / "private.safetensors"
    policy_file.write_bytes(plaintext)
    spec_file = tmp_path / "spec.json"
    spec_file.write_bytes(DEMO_CARTPOLE.to_bytes())
    requester_dir, requester = node(drl=1000)
    first_block = w3.eth.block_number

    submitted = invoke(requester_dir, "task", "submit", str(spec_file), "--bounty", "100", "--samplers", "1",
                       "--validators", "1", "--rounds", "1", "--encrypt-inputs", str(policy_file))
    assert submitted.exit_code == 0, submitted.output
    task_id = int(re.search(r"^task (\d+) created", submitted.output, re.M).group(1))
    assert f"decentrl task keys {task_id} --follow" in submitted.output
    store = open_store(None, requester_dir / "store")
    t = contracts.state.functions.taskOf(task_id).call()
    spec = parse(store.get(t.specCid), digest=t.specDigest)
    descriptor = spec.encrypted_inputs
    assert descriptor.kind == "initial_policy" and descriptor.size == len(plaintext) + 28
    assert f"encrypted inputs {descriptor.cid}" in submitted.output

    # before assignment there is nothing to post
    early = invoke(requester_dir, "task", "keys", str(task_id), "--wait", "0")
    assert early.exit_code == 1 and f"task {task_id} is still open after 0 s" in early.output

    sampler, trainer, validator, outsider = (staked(r) for r in (Role.SAMPLER, Role.TRAINER, Role.VALIDATOR,
                                                                 Role.SAMPLER))
    transact(w3, sampler, contracts.registry.functions.claimSlot(task_id, int(Role.SAMPLER)))
    transact(w3, trainer, contracts.registry.functions.claimSlot(task_id, int(Role.TRAINER)))
    for _ in range(2):  # drawValidators needs a block after the seed block
        w3.provider.make_request("evm_mine", [])
    transact(w3, outsider, contracts.registry.functions.drawValidators(task_id))
    assert contracts.state.functions.taskOf(task_id).call().status == int(Status.ACTIVE)
    nodes = assigned_nodes(ChainView(contracts), task_id)
    assert sampler.address in nodes and trainer.address in nodes and len(nodes) == 3

    # an assigned node before the keyring: told to wait for it
    from workers.crypto.errors import KeyringNotPosted
    with pytest.raises(KeyringNotPosted, match=f"task {task_id} has not posted a keyring yet"):
        open_inputs(contracts, store, sampler, task_id, descriptor)

    posted = invoke(requester_dir, "task", "keys", str(task_id))
    assert posted.exit_code == 0, posted.output
    assert re.search(rf"^keyring b\w+ posted for 3 nodes of task {task_id} \(tx 0x", posted.output, re.M)
    again = invoke(requester_dir, "task", "keys", str(task_id))
    assert "already covers the 3 nodes" in again.output

    ring_cid = contracts.keyrings.functions.keyringOf(task_id).call()
    ring = parse_keyring(store.get(ring_cid), chain_id=w3.eth.chain_id, registry=contracts.registry.address,
                         task_id=task_id, inputs_cid=descriptor.cid)
    assert sorted(ring.entries) == sorted(nodes)
    bundles = set()
    for account in (sampler, trainer, validator):
        if account.address in nodes:  # the drawn validator may be another test's
            assert open_inputs(contracts, store, account, task_id, descriptor) == plaintext
            bundles.add(initial_bundle_of(spec, task_id, plaintext))
    assert len(bundles) == 1  # every node starts round 0 from the same bundle

    with pytest.raises(NotAssigned, match=f"node {outsider.address} holds no slot in task {task_id}"):
        open_inputs(contracts, store, outsider, task_id, descriptor)
    with pytest.raises(NoKeyForNode):
        ring.key_for(outsider.address, outsider.key)

    # nothing plaintext, and no key, in the store or in any transaction since the submit
    data_key = inputs.data_key(bytes.fromhex(requester_key(requester_dir)), descriptor.key_salt)
    probes = [plaintext, plaintext[len(plaintext) // 2:len(plaintext) // 2 + 32], data_key]
    stored = [p.read_bytes() for p in (requester_dir / "store").rglob("*") if p.is_file()]
    assert len(stored) >= 3  # spec, ciphertext, keyring (and the ledger)
    for blob in stored:
        assert not any(probe in blob for probe in probes)
    for number in range(first_block, w3.eth.block_number + 1):
        for tx in w3.eth.get_block(number, full_transactions=True).transactions:
            assert not any(probe in bytes(tx.input) for probe in probes)
    outputs = submitted.output + posted.output + again.output + caplog.text
    for secret in (data_key, bytes.fromhex(requester_key(requester_dir)), sampler.key, trainer.key):
        assert secret.hex() not in outputs.lower() and secret.hex() not in repr(caplog.records)


def requester_key(node_dir) -> str:
    from workers.chain.keystore import find_keystore, load_account

    return load_account(find_keystore(node_dir), PASSWORD).key.hex()


@pytest.mark.parametrize("policy, says", [
    (lambda: to_bytes(make_policy(space_spec(make_env(DEMO_CARTPOLE.env_id)), PolicyConfig(hidden_sizes=(8,)))),
     "the initial policy cannot be used: checkpoint policy"),
    (lambda: b"not safetensors at all", "the initial policy cannot be used: not a safetensors checkpoint")])
def test_an_unusable_policy_is_refused_before_anything_is_stored_or_sent(node, invoke, contracts, w3, tmp_path,
                                                                          policy, says):
    policy_file = tmp_path / "policy.safetensors"
    policy_file.write_bytes(policy())
    spec_file = tmp_path / "spec.json"
    spec_file.write_bytes(DEMO_CARTPOLE.to_bytes())
    requester_dir, requester = node(drl=1000)
    tasks, nonce = contracts.state.functions.taskCount().call(), w3.eth.get_transaction_count(requester)

    refused = invoke(requester_dir, "task", "submit", str(spec_file), "--bounty", "100", "--encrypt-inputs",
                     str(policy_file))
    assert refused.exit_code == 1, refused.output
    assert refused.output.startswith(f"Error: --encrypt-inputs {policy_file}: {says}"), refused.output
    assert "task 0" not in refused.output and "Traceback" not in refused.output
    assert (contracts.state.functions.taskCount().call(), w3.eth.get_transaction_count(requester)) == (tasks, nonce)
    assert not (requester_dir / "store").exists() or not any((requester_dir / "store").rglob("blocks/*/*"))
