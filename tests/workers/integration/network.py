"""A whole decentrl network on this machine for the integration tests: workers.localnet.network
on this suite's ports (anvil 8650-8659, Redis 16401-16409), one node per (name, role), with small
retry and visibility settings so a killed worker's message comes back within seconds."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from workers.localnet import inprocess
from workers.localnet.chain import TOKEN  # noqa: F401  (the suite's unit)
from workers.localnet.network import LocalNetwork
from workers.spec import DEMO_CARTPOLE

ROOT = Path(__file__).resolve().parents[3]
ANVIL_PORTS = range(8650, 8660)
REDIS_PORTS = range(16401, 16410)
PASSWORD = "integration-test-password"
SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=256, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=10))
"""The demo spec, reduced: 256 steps per shard, 10 epochs of batch 64."""

NODE_SETTINGS = dict(retry_backoff=1, retry_backoff_max=4, retry_jitter=False, max_retries=8,
                     soft_time_limit=8, time_limit=10, lease_s=3, visibility_timeout=15,
                     restore_interval=1)


class Network(LocalNetwork):
    def __init__(self, workdir: Path, roles: list[tuple[str, str]], ipfs_api: str | None = None, tick_s: float = 1.0,
                 node_settings: dict | None = None):
        """node_settings: NodeConfig fields that replace NODE_SETTINGS' for every node."""
        super().__init__(workdir, password=PASSWORD, scrypt_n=2**10, anvil_ports=ANVIL_PORTS,
                         redis_ports=REDIS_PORTS, ipfs_api=ipfs_api, tick_s=tick_s,
                         node_settings={**NODE_SETTINGS, **(node_settings or {})})
        try:
            for name, role in roles:
                self.add_node(name, role)
        except BaseException:
            self.stop()
            raise


TASK = dict(num_samplers=1, num_validators=1, num_rounds=1, claim_window=600, commit_window=60, reveal_window=60,
            attest_window=60)
"""The suite's small task: 1 sampler, 1 validator, 1 round (create_task's defaults)."""


def create_task(net: Network, requester: str | None = None, bounty: int = 100 * TOKEN, **settings) -> int:
    """Creates a task of SPEC (stored in the network's store) from `requester` (an unlocked anvil
    account; the admin by default), TASK's settings replaced by `settings`; returns its id."""
    from workers.protocol import TaskParams
    from workers.storage.store import EmbeddedStore

    d, requester = net.deployment, requester or net.admin
    params = TaskParams(EmbeddedStore(net.store_dir).put(SPEC.to_bytes()), SPEC.digest(), bounty,
                        **{**TASK, **settings})
    net.w3.eth.wait_for_transaction_receipt(
        d.token.functions.approve(d.registry.address, bounty).transact({"from": requester}))
    net.w3.eth.wait_for_transaction_receipt(
        d.registry.functions.createTask(params.as_tuple()).transact({"from": requester}))
    return d.state.functions.taskCount().call()


def registry_events(net: Network) -> list:
    """Every TaskRegistry event since the deployment, decoded (workers.chain.watcher.ChainEvent)."""
    from workers.chain.watcher import EventWatcher, SqliteCursor

    decoder = EventWatcher(net.deployment, lambda e: None, SqliteCursor(net.workdir / "decoder.sqlite"),
                           mode="poll")
    logs = net.w3.eth.get_logs({"address": net.deployment.registry.address,
                                "fromBlock": net.deployment.block, "toBlock": "latest"})
    return [decoder.decode(entry) for entry in sorted(logs, key=lambda e: (e["blockNumber"], e["logIndex"]))]


def as_node(node):
    """This node's context (as its workers build it), for the block to pass to its handlers."""
    return inprocess.as_node(node, PASSWORD)


def handled(name: str, handler_role: str, **args):
    """A HandledEvent as the dispatcher gives it to `handler_role`'s handler (first attempt)."""
    from workers.node.queues.dispatch import HandledEvent

    return HandledEvent(f"test:{name}:{sorted(args.items())}", name, args, 0, handler_role, 1)


def task_created(net: Network, task_id: int, handler_role: str):
    """The task's TaskCreated as the dispatcher gives it to `handler_role`'s handler: the args its
    watcher decoded from the log, as JSON."""
    from workers.node.queues.dispatch import jsonable

    event = next(e for e in registry_events(net) if e.name == "TaskCreated" and e.args["taskId"] == task_id)
    return handled("TaskCreated", handler_role, **jsonable(dict(event.args)))


def running_phase_job(node) -> str | None:
    """The key of a PhaseStarted job the node is running now, if any (asked while the task is in the
    phase whose job is wanted: the node's earlier ones are done by then)."""
    from workers.node.queues.jobs import RUNNING

    client = node.redis()
    for key in client.scan_iter(match=node.config.key("job", node.role, "*"), count=1000):
        record = client.hgetall(key)
        if record.get(b"status") == RUNNING.encode() and record.get(b"event") == b"PhaseStarted":
            return key.decode().split(f":job:{node.role}:", 1)[1]
    return None
