"""An encrypted task end to end on a real network (anvil, embedded Redis, Celery nodes: 1 sampler,
1 trainer, 1 validator): the requester encrypts a private initial policy, posts the keyring once
the task is active, and the task completes with round 0 rolled out under the private policy; the
plaintext is in no stored object and in no transaction's calldata. Ports: anvil 8660-8664, Redis
8665-8669."""
import sys
import time
from pathlib import Path

import pytest
from eth_account import Account

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from network import NODE_SETTINGS, PASSWORD, SPEC, TOKEN  # noqa: E402

from workers.chain.view import ChainView  # noqa: E402
from workers.crypto import inputs  # noqa: E402
from workers.crypto.exchange import post_keyring  # noqa: E402
from workers.localnet.chain import fund  # noqa: E402
from workers.localnet.network import LocalNetwork  # noqa: E402
from workers.protocol import FINAL_STATUSES, Role, Status, TaskParams  # noqa: E402
from workers.rl.envs import make_env, space_spec  # noqa: E402
from workers.rl.policy import PolicyConfig, make_policy, to_bytes  # noqa: E402
from workers.rl.policy import digest as policy_digest  # noqa: E402
from workers.roles.sampler import initial_policy, round_policy, unbundle_shard  # noqa: E402
from workers.roles.trainer import unbundle_checkpoint  # noqa: E402
from workers.storage.store import EmbeddedStore  # noqa: E402

TIMEOUT_S = 240


def transact(w3, account, call):
    tx = call.build_transaction({"from": account.address, "chainId": w3.eth.chain_id,
                                 "nonce": w3.eth.get_transaction_count(account.address)})
    tx_hash = w3.eth.send_raw_transaction(account.sign_transaction(tx).raw_transaction)
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
    assert receipt.status == 1
    return receipt


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    network = LocalNetwork(tmp_path_factory.mktemp("encnet"), password=PASSWORD, scrypt_n=2**10,
                           anvil_ports=range(8660, 8665), redis_ports=range(8665, 8670), node_settings=NODE_SETTINGS)
    try:
        for name, role in (("sampler0", "sampler"), ("trainer", "trainer"), ("validator0", "validator")):
            network.add_node(name, role)
        yield network
    finally:
        network.stop()


def test_encrypted_task_completes_from_the_private_policy(net):
    d, w3 = net.deployment, net.w3
    requester = Account.create()
    fund(w3, requester.address, 10 * TOKEN)
    w3.eth.wait_for_transaction_receipt(
        d.token.functions.transfer(requester.address, 1000 * TOKEN).transact({"from": net.admin}))
    config = PolicyConfig(hidden_sizes=SPEC.hidden_sizes, activation=SPEC.activation, init_log_std=SPEC.init_log_std,
                          seed=777)
    plaintext = to_bytes(make_policy(space_spec(make_env(SPEC.env_id)), config))
    store = EmbeddedStore(net.store_dir)
    descriptor, ciphertext = inputs.encrypt(requester.key, plaintext, "initial_policy")
    assert store.put(ciphertext, pin=True) == descriptor.cid
    spec = SPEC.__class__(**{**{f: getattr(SPEC, f) for f in SPEC.__dataclass_fields__},
                             "encrypted_inputs": descriptor})
    params = TaskParams(store.put(spec.to_bytes(), pin=True), spec.digest(), bounty=100 * TOKEN, num_samplers=1,
                        num_validators=1, num_rounds=1, claim_window=600, commit_window=120, reveal_window=60,
                        attest_window=120)
    first_block = w3.eth.block_number
    net.start()
    transact(w3, requester, d.token.functions.approve(d.registry.address, params.bounty))
    transact(w3, requester, d.registry.functions.createTask(params.as_tuple()))
    task_id = d.state.functions.taskCount().call()
    posted, deadline = None, time.monotonic() + TIMEOUT_S
    while True:
        task = d.state.functions.taskOf(task_id).call()
        if task.status in FINAL_STATUSES:
            break
        assert time.monotonic() < deadline, f"task {task_id} not done within {TIMEOUT_S} s: {task}"
        if task.status == Status.ACTIVE and posted is None:
            posted = post_keyring(ChainView(d), store, requester, lambda call: transact(w3, requester, call), task_id,
                                  descriptor)
        time.sleep(0.05)
    net.stop_nodes()
    assert task.status == Status.COMPLETED and len(posted.nodes) == 3

    # round 0 was rolled out under the private policy, and the checkpoint trained from it
    sub = next(s for s in ChainView(d).submissions(task_id, 0) if s.role == Role.SAMPLER)
    shard = unbundle_shard(store.get(sub.cid))
    assert shard.policy == policy_digest(round_policy(spec, plaintext))
    assert shard.policy != policy_digest(initial_policy(spec))
    checkpoint = unbundle_checkpoint(store.get(task.checkpointCid))
    assert checkpoint.meta["prev"] is not None  # trained from the initial bundle, not from nothing

    probes = [plaintext, plaintext[len(plaintext) // 2:len(plaintext) // 2 + 32]]
    for path in Path(net.store_dir).rglob("*"):
        if path.is_file():
            blob = path.read_bytes()
            assert not any(p in blob for p in probes), path
    for number in range(first_block, w3.eth.block_number + 1):
        for tx in w3.eth.get_block(number, full_transactions=True).transactions:
            assert not any(p in bytes(tx.input) for p in probes)
