"""A real aggregated round between two validators that share no Redis and no IPFS node
(SPECIFICATION.md 5.5.2, `--attest-relay ipfs`): a network (workers.localnet: anvil, Celery
processes under their Supervisors, each node its own Redis database) whose sampler, trainer and
val-a use IPFS node 1 and whose val-b uses IPFS node 2, the two online and connected. Each
validator runs its relay bridge; the round's votes are opened by one attestAggregate of both, so
each validator's signature reached the other's Redis over pubsub (and val-b's checks fetched the
round's content from node 1 over bitswap). val-b's bridge is killed before the task starts: its
supervisor restarts it, and it subscribes again."""
import dataclasses
import socket
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.ports import ipfs_api_port
from workers.chain.view import ChainView
from workers.explorer.history import ChainLog, task_history
from workers.localnet.chain import TOKEN
from workers.localnet.network import LocalNetwork
from workers.node.handlers.relay import AttestRelay
from workers.protocol import FINAL_STATUSES, Status, TaskParams, encode_vote
from workers.spec import DEMO_CARTPOLE
from workers.storage.store import IpfsStore

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
import ipfs_node  # noqa: E402

ANVIL_PORTS = range(9350, 9355)
REDIS_PORTS = range(9355, 9360)
PASSWORD = "relay-over-ipfs-password"
SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=256, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=4))
NODE_SETTINGS = dict(retry_backoff=1, retry_backoff_max=4, retry_jitter=False, max_retries=8,
                     soft_time_limit=20, time_limit=25, lease_s=3, visibility_timeout=30, restore_interval=1)
VALIDATOR = dict(attest_relay="ipfs", aggregate_wait_s=8.0, attest_fallback_s=16.0, aggregate_min_signers=2)
PARAMS = dict(bounty=600 * TOKEN, num_samplers=1, num_validators=2, num_rounds=1, claim_window=600,
              commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 240


def eventually(predicate, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.05)


def free_swarm() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"/ip4/127.0.0.1/tcp/{s.getsockname()[1]}"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("relay-aggnet")
    ipfs, net = [], None
    try:
        ipfs.append(ipfs_node.start(workdir / "ipfs-1", ipfs_api_port(ipfs_node), swarm=free_swarm()))
        ipfs.append(ipfs_node.start(workdir / "ipfs-2", ipfs_api_port(ipfs_node), swarm=free_swarm(),
                                    peers=(ipfs[0].swarm,)))
        net = LocalNetwork(workdir / "net", password=PASSWORD, scrypt_n=2**10, anvil_ports=ANVIL_PORTS,
                           redis_ports=REDIS_PORTS, ipfs_api=ipfs[0].api, node_settings=NODE_SETTINGS)
        net.add_node("sampler", "sampler")
        net.add_node("trainer", "trainer")
        net.add_node("val-a", "validator", **VALIDATOR)
        net.add_node("val-b", "validator", ipfs_api=ipfs[1].api, **VALIDATOR)
        store = IpfsStore(ipfs[0].api, workdir / "requester-ledger.sqlite")
        params = TaskParams(store.put(SPEC.to_bytes(), pin=True), SPEC.digest(), **PARAMS)
        store.close()
        net.start()
        net.wait_ready()
        val_b = net.node("val-b")
        killed = val_b.sigkill("relay")  # a bridge that dies is restarted by the node's supervisor
        eventually(lambda: val_b.child("relay").alive() and val_b.child("relay").pid != killed,
                   "val-b's relay bridge restarted")
        d = net.deployment
        d.w3.eth.wait_for_transaction_receipt(
            d.token.functions.approve(d.registry.address, params.bounty).transact({"from": net.admin}))
        d.w3.eth.wait_for_transaction_receipt(d.registry.functions.createTask(params.as_tuple()).transact(
            {"from": net.admin}))
        task_id = d.state.functions.taskCount().call()
        deadline = time.monotonic() + TIMEOUT_S
        while d.state.functions.taskOf(task_id).call().status not in FINAL_STATUSES:
            if time.monotonic() > deadline:
                raise AssertionError(f"task {task_id} not done within {TIMEOUT_S} s (logs in {net.workdir})")
            time.sleep(0.05)
        net.wait_caught_up()
        net.stop_nodes()
        yield SimpleNamespace(net=net, task_id=task_id, params=params, killed=killed)
    finally:
        if net is not None:
            net.stop()
        for node in ipfs:
            ipfs_node.stop(node.pid)


def test_the_round_is_opened_by_one_aggregate_of_both_validators(run):
    d = run.net.deployment
    log = ChainLog(d)
    log.refresh()
    h = task_history(log, run.task_id)
    assert h.status == Status.COMPLETED
    [r] = h.rounds
    forced = d.state.functions.forcedMask(run.task_id, 0).call()
    vote = encode_vote(0b11 & ~forced, forced)  # the sampler's and the trainer's work accepted
    assert [(a.validator is None, a.signer_bitmap, a.accept_bitmap) for a in r.attestations] == [(True, 0b11, vote)]


def test_each_validators_entry_reached_the_others_own_redis(run):
    d = run.net.deployment
    for name in ("val-a", "val-b"):
        node = run.net.node(name)
        relay = AttestRelay(node.redis(), d.chain_id, d.registry.address)
        entries = relay.entries(run.task_id, 0, run.params.num_validators)
        slots = {v: ChainView(d).read(d.state, "membershipOf", run.task_id, run.net.node(v).address).slot
                 for v in ("val-a", "val-b")}
        assert {slot: e.node for slot, e in entries.items()} == \
            {slots[v]: run.net.node(v).address for v in ("val-a", "val-b")}, name
        assert "subscribed to decentrl/attest-relay/v1/" in (node.node_dir / "logs" / "relay.log").read_text()
    assert run.net.node("val-b").restarts == ["relay"]
    shared = AttestRelay(run.net.redis.client(), d.chain_id, d.registry.address)  # database 0: nobody used it
    assert shared.entries(run.task_id, 0, run.params.num_validators) == {}
