"""Real networks (network.py: anvil, Redis, 2 samplers, 1 trainer, 3 validators as Celery worker
processes under their Supervisors), each running one CartPole task for the whole folder.

`run` (embedded store shared through a folder) runs a 2-round task; while it runs, the driver
- SIGKILLs sampler1's watcher process when round 0's SampleReveal starts and keeps it down 3 s
  while events go on, then lets its Supervisor restart it;
- SIGKILLs the trainer's Celery worker (its whole process group) while it handles round 1's
  TrainCommit, and lets its Supervisor restart it.
`ipfs_run` runs a 1-round task with every node's store on one real (offline) js-ipfs node.

Once the task is done and every node has handled its last events, the nodes' processes are
stopped (the chain and Redis stay up) and the tests read what happened from the chain, the job
records and the nodes' secrets DBs."""
import importlib.util
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from network import ROOT, SPEC, TOKEN, Network, running_phase_job

from tests.ports import ipfs_api_port
from workers.protocol import FINAL_STATUSES, Phase, Status, TaskParams
from workers.storage.store import EmbeddedStore, IpfsStore

ROLES = [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
         ("validator0", "validator"), ("validator1", "validator"), ("validator2", "validator")]
PARAMS = dict(bounty=1000 * TOKEN, num_samplers=2, num_validators=3, num_rounds=2, claim_window=600,
              commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 200


def drive(net: Network, store, params: TaskParams, on_tick=lambda task, out: None) -> SimpleNamespace:
    """Start the nodes, create the task as the admin (the requester), call on_tick(task, out)
    every 10 ms until the task is final, then record the nodes' health and stop them."""
    net.start()
    d, admin = net.deployment, net.admin
    net.w3.eth.wait_for_transaction_receipt(
        d.token.functions.approve(d.registry.address, params.bounty).transact({"from": admin}))
    started = time.time()
    net.w3.eth.wait_for_transaction_receipt(
        d.registry.functions.createTask(params.as_tuple()).transact({"from": admin}))
    out = SimpleNamespace(net=net, task_id=d.state.functions.taskCount().call(), params=params, store=store)
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        task = d.state.functions.taskOf(out.task_id).call()
        if task.status in FINAL_STATUSES:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"task {out.task_id} not done within {TIMEOUT_S} s: {task}")
        on_tick(task, out)
        time.sleep(0.01)
    out.wall_s = time.time() - started
    out.health = {node.name: node.sup.health() for node in net.nodes}
    net.wait_caught_up()  # the task's last events (its final payouts) handled before the nodes stop
    net.stop_nodes()
    return out


@pytest.fixture(scope="session")
def run(tmp_path_factory):
    net = Network(tmp_path_factory.mktemp("network"), ROLES)
    try:
        store = EmbeddedStore(net.store_dir)
        params = TaskParams(store.put(SPEC.to_bytes(), pin=True), SPEC.digest(), **PARAMS)
        sampler1, trainer = net.node("sampler1"), net.node("trainer")

        def kill(task, out):
            if task.status != Status.ACTIVE:
                return
            if not hasattr(out, "watcher_killed") and task.round == 0 and task.phase == Phase.SAMPLE_REVEAL:
                net.held.add("sampler1")
                out.watcher_killed = sampler1.sigkill("watcher")
                time.sleep(3)
                net.held.discard("sampler1")
            if not hasattr(out, "trainer_killed") and task.round == 1 and task.phase == Phase.TRAIN_COMMIT:
                job = running_phase_job(trainer)
                if job is not None:
                    out.trainer_job = job
                    out.trainer_killed = trainer.sigkill("trainer")

        yield drive(net, store, params, kill)
    finally:
        net.stop()


def _ipfs_tool():
    spec = importlib.util.spec_from_file_location("ipfs_node", ROOT / "tools" / "ipfs_node.py")
    module = sys.modules["ipfs_node"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ipfs_run(tmp_path_factory):
    tool = _ipfs_tool()
    ipfs = tool.start(tmp_path_factory.mktemp("ipfs-repo"), ipfs_api_port(tool))
    net = None
    try:
        net = Network(tmp_path_factory.mktemp("ipfs-network"), ROLES, ipfs_api=ipfs.api)
        store = IpfsStore(ipfs.api, net.workdir / "requester-ledger.sqlite")
        params = TaskParams(store.put(SPEC.to_bytes(), pin=True), SPEC.digest(), **{**PARAMS, "num_rounds": 1})
        yield drive(net, store, params)
        store.close()
    finally:
        if net is not None:
            net.stop()
        tool.stop(ipfs.pid)


def pytest_collection_modifyitems(items):
    # ipfshttpclient 0.7.0 passes urllib3 2 a deprecated `strict` argument; harmless until urllib3 3.
    for item in items:
        if Path(item.fspath).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.filterwarnings("ignore:The 'strict' parameter:FutureWarning"))
