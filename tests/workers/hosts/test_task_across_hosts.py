"""Operators on separate hosts (conftest.py): they share no folder and no Redis; their IPFS nodes
start knowing no peer and the nodes (`--ipfs-peer`) connect each to every other; content added on
one operator's IPFS node reaches another's over the swarm; and a 1-round CartPole task, its spec
published from the requester's own IPFS node, completes with every node paid its slot share, as
on one machine (tests/workers/integration/test_task_over_ipfs.py), its three validators' votes in
one BLS aggregate whose signatures travelled between their hosts over IPFS pubsub."""
import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.workers.integration.network import SPEC
from workers.chain.view import ChainView
from workers.localnet.chain import TOKEN
from workers.localnet.hosts.netns import netns_pids
from workers.payouts import slot_share
from workers.protocol import Role, Status
from workers.roles.trainer import verify_checkpoint
from workers.storage.store import IpfsStore
from workers.storage.swarm_peers import DIAL_INTERVAL_S, SwarmPeers

TASK = dict(bounty=1000 * TOKEN, num_samplers=2, num_validators=3, num_rounds=1, claim_window=600,
            commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 240


def _store_call(op, fn):
    """fn(the operator's IpfsStore) on its host (its IPFS API is on the host's own 127.0.0.1)."""
    def run():
        store = IpfsStore(op.ipfs.api, op.folder / "test-ledger.sqlite")
        try:
            return fn(store)
        finally:
            store.close()

    return op.host.call(run)


def test_operators_share_no_folder(hosts):
    folders = [op.folder for op in hosts.operators.values()]
    for op in hosts.operators.values():
        others = [f for f in folders if f != op.folder]
        assert not any(op.folder in f.parents or f in op.folder.parents for f in others), op.name
        for path in (op.node_dir, op.ipfs.repo, op.redis.data_dir, op.deployment_path):
            assert op.folder in path.parents, (op.name, path)
        argv = " ".join(hosts.node_argv(op))
        assert not any(str(f) in argv for f in others), op.name


def test_the_chain_hosts_anvil_keeps_evicted_states_in_the_runs_folder(hosts):
    args = Path(f"/proc/{hosts.anvil.pid}/cmdline").read_bytes().decode().split("\0")
    cache = Path(args[args.index("--cache-path") + 1])
    assert cache == hosts._anvil_cache() and hosts.workdir in cache.parents  # close removes it


def test_operators_share_no_redis(hosts):
    ops = list(hosts.operators.values())
    for op in ops:
        op.redis.client_call(lambda client, name=op.name: client.set("whose", name))
    assert [op.redis.client_call(lambda client: client.get("whose").decode()) for op in ops] == [op.name for op in ops]
    for op in ops:  # each redis-server runs in its own host's namespace, on that host's loopback
        assert op.redis.proc.pid in netns_pids(op.host.ns)


def test_the_nodes_connect_every_ipfs_node_to_every_other(hosts, nodes):
    assert all(peers == set() for peers in hosts.peers_before_nodes.values())  # no IPFS node knew a peer
    for op in nodes.values():
        peers = SwarmPeers(op.ipfs.api, hosts.peers_of(op.name))
        deadline = time.monotonic() + DIAL_INTERVAL_S + 10
        while (missing := set(peers.peers) - op.host.call(peers.connected)):
            assert time.monotonic() < deadline, f"{op.name}'s IPFS node is not connected to {missing}"
            time.sleep(0.5)


def test_content_reaches_a_node_that_never_had_it(hosts, nodes):
    sampler, trainer = hosts.operators["sampler0"], hosts.operators["trainer"]
    data = os.urandom(600 * 1024)  # three blocks, new to every node
    cid = _store_call(sampler, lambda store: store.put(data))
    started = time.monotonic()
    assert _store_call(trainer, lambda store: store.get(cid, timeout=30)) == data  # checked against its CID
    print(f"\n600 KiB from sampler0's IPFS node to the trainer's: {time.monotonic() - started:.2f} s")


@pytest.fixture(scope="module")
def task_run(hosts, nodes):
    started = time.monotonic()
    task_id = hosts.submit_task(SPEC, **TASK)  # the requester's own `decentrl task submit`, on its host
    hosts.wait_final(task_id, TIMEOUT_S)
    wall_s = time.monotonic() - started
    return SimpleNamespace(task_id=task_id, wall_s=wall_s)


def test_task_completes_with_every_node_paid(hosts, task_run):
    view = ChainView(hosts.deployment)
    task = view.task(task_run.task_id)
    assert task.status == Status.COMPLETED
    for op in hosts.operators.values():
        held = view.read(hosts.deployment.vault, "heldOf", task_run.task_id, 0, op.address)
        assert held == slot_share(task, Role[op.role.upper()]), op.name  # held for the dispute window
    aggregates = [e for e in hosts.deployment.registry.events.AggregateAttested.get_logs(
        from_block=hosts.deployment.block) if e.args["taskId"] == task_run.task_id]
    assert [bin(e.args["signerBitmap"]).count("1") for e in aggregates] == [3]  # signatures met over pubsub
    bundle = _store_call(hosts.operators["validator0"], lambda store: store.get(task.checkpoint_cid, timeout=30))
    assert verify_checkpoint(bundle, task.checkpoint_root).round == 0
    print(f"\ntask {task_run.task_id} across {len(hosts.operators)} operator hosts: rounds=1 "
          f"wall_s={task_run.wall_s:.1f}")

