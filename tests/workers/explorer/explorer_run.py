"""A real run for the explorer and report tests: workers.localnet.network on this folder's ports
(anvil 8840-8844, Redis 16450-16454; test_demo_explorer.py takes the rest of this folder's
ranges, anvil 8840-8849, Redis 16450-16459, HTTP 8850-8869) with 2 samplers, 1 trainer and 3
validators as Celery worker processes, the integration suite's reduced CartPole spec and node
settings, a requester that signs its task (EIP-712 + permit, as `decentrl task submit`), 2 rounds
run to Completed.
Then the nodes stop (the chain, Redis and the store stay up to be read), and the admin creates a
second task whose spec CID is HTML, to check that the page shows chain strings as text."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from network import NODE_SETTINGS, PASSWORD, SPEC  # noqa: E402  (the integration suite's settings)

from workers.localnet.chain import TOKEN  # noqa: E402
from workers.localnet.network import LocalNetwork  # noqa: E402
from workers.protocol import FINAL_STATUSES, Status, TaskParams  # noqa: E402
from workers.storage import EmbeddedStore  # noqa: E402

ANVIL_PORTS = range(8840, 8845)
REDIS_PORTS = range(16450, 16455)
HTTP_PORTS = range(8850, 8860)
ROLES = [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
         ("validator0", "validator"), ("validator1", "validator"), ("validator2", "validator")]
TASK = dict(num_samplers=2, num_validators=3, num_rounds=2, claim_window=600, commit_window=120,
            reveal_window=60, attest_window=120)
BOUNTY = 1000 * TOKEN
HOSTILE_CID = '<img src=x onerror="window.pwned=1">'
TIMEOUT_S = 240


def run_task(workdir: Path) -> SimpleNamespace:
    """Starts the network, runs the task to its end and stops the nodes; the caller calls
    `out.net.stop()`."""
    from workers.chain.requester import create_task

    net = LocalNetwork(workdir, password=PASSWORD, scrypt_n=2**10, anvil_ports=ANVIL_PORTS,
                       redis_ports=REDIS_PORTS, node_settings=NODE_SETTINGS)
    try:
        for name, role in ROLES:
            net.add_node(name, role)
        requester = net.account("requester", drl=BOUNTY // TOKEN)
        store = EmbeddedStore(net.store_dir)
        net.start()
        net.wait_ready()
        started = time.time()
        task_id, params, _ = create_task(net.deployment, store, requester.account, requester.sender.send, SPEC,
                                         bounty=BOUNTY, **TASK)
        state = net.deployment.state
        deadline = time.monotonic() + TIMEOUT_S
        while Status(state.functions.taskOf(task_id).call().status) not in FINAL_STATUSES:
            if time.monotonic() > deadline:
                raise AssertionError(f"task {task_id} not done within {TIMEOUT_S} s")
            time.sleep(0.1)
        wall_s = time.time() - started
        net.stop_nodes()
        hostile = TaskParams(HOSTILE_CID, b"\x11" * 32, 10 * TOKEN, 1, 1, 1)
        d, admin = net.deployment, net.admin
        net.w3.eth.wait_for_transaction_receipt(
            d.token.functions.approve(d.registry.address, hostile.bounty).transact({"from": admin}))
        net.w3.eth.wait_for_transaction_receipt(d.registry.functions.createTask(hostile.as_tuple()).transact(
            {"from": admin}))
        hostile_id = state.functions.taskCount().call()
        # cancelled while open: its rounds never started, which the page must say
        net.w3.eth.wait_for_transaction_receipt(d.registry.functions.cancelTask(hostile_id).transact({"from": admin}))
        return SimpleNamespace(net=net, store=store, task_id=task_id, params=params, requester=requester,
                               hostile_id=hostile_id, wall_s=wall_s)
    except BaseException:
        net.stop()
        raise
