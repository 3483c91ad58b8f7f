"""One real network (network.py: anvil, Redis, 2 samplers, 1 trainer, 3 validators as Celery worker
processes under their Supervisors) runs one 2-round CartPole task for the whole folder. While it
runs, the driver
- SIGKILLs sampler1's watcher process when round 0's SampleReveal starts and keeps it down 3 s
  while events go on, then lets its Supervisor restart it;
- SIGKILLs the trainer's Celery worker (its whole process group) while it handles round 1's
  TrainCommit, and lets its Supervisor restart it.
The tests then read what happened from the chain, the job records and the nodes' secrets DBs."""
import time
from types import SimpleNamespace

import pytest

from network import SPEC, TOKEN, Network
from workers.node.jobs import RUNNING
from workers.protocol import Phase, Status, TaskParams
from workers.storage.store import EmbeddedStore

ROLES = [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
         ("validator0", "validator"), ("validator1", "validator"), ("validator2", "validator")]
PARAMS = dict(bounty=1000 * TOKEN, num_samplers=2, num_validators=3, num_rounds=2, claim_window=600,
              commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 200


def running_phase_job(node) -> str | None:
    """The key of a PhaseStarted job the node is running now, if any."""
    client = node.redis()
    for key in client.scan_iter(match=node.config.key("job", node.role, "*"), count=1000):
        record = client.hgetall(key)
        if record.get(b"status") == RUNNING.encode() and record.get(b"event") == b"PhaseStarted":
            return key.decode().split(f":job:{node.role}:", 1)[1]
    return None


@pytest.fixture(scope="session")
def run(tmp_path_factory):
    net = Network(tmp_path_factory.mktemp("network"), ROLES)
    try:
        net.start()
        store = EmbeddedStore(net.store_dir)
        spec_cid = store.put(SPEC.to_bytes(), pin=True)
        d, admin = net.deployment, net.admin
        params = TaskParams(spec_cid, SPEC.digest(), **PARAMS)
        net.w3.eth.wait_for_transaction_receipt(
            d.token.functions.approve(d.registry.address, params.bounty).transact({"from": admin}))
        started = time.time()
        receipt = net.w3.eth.wait_for_transaction_receipt(
            d.registry.functions.createTask(params.as_tuple()).transact({"from": admin}))
        task_id = d.registry.functions.taskCount().call()
        out = SimpleNamespace(net=net, task_id=task_id, params=params, store=store, created_block=receipt.blockNumber,
                              watcher_killed=None, trainer_killed=None, trainer_job=None)
        sampler1, trainer = net.node("sampler1"), net.node("trainer")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            task = d.registry.functions.taskOf(task_id).call()
            if task.status in (Status.COMPLETED, Status.FAILED, Status.CANCELLED):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"task {task_id} not done within {TIMEOUT_S} s: {task}")
            if (out.watcher_killed is None and task.status == Status.ACTIVE and task.round == 0
                    and task.phase == Phase.SAMPLE_REVEAL):
                net.held.add("sampler1")
                out.watcher_killed = sampler1.sigkill("watcher")
                time.sleep(3)
                net.held.discard("sampler1")
            if (out.trainer_killed is None and task.status == Status.ACTIVE and task.round == 1
                    and task.phase == Phase.TRAIN_COMMIT):
                job = running_phase_job(trainer)
                if job is not None:
                    out.trainer_job = job
                    out.trainer_killed = trainer.sigkill("trainer")
            time.sleep(0.01)
        out.wall_s = time.time() - started
        yield out
    finally:
        net.stop()
