"""A whole decentrl network on this machine, for the integration tests: a real anvil (ports
8650-8659) with a 1 s `evm_mine` ticker (automine only mines with transactions, and the draw needs a
block after its seed block), one embedded Redis (ports 16401-16409) with a db per node, the
protocol deployed with plain web3 from build/contracts, a shared EmbeddedStore folder, and one
node per actor (its own account, encrypted keystore, stake, node dir and Supervisor: a Celery
worker for its role plus the watcher from workers.node.handlers)."""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import redis
from eth_account import Account

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "workers" / "chain"))
import chain_services  # noqa: E402  (Anvil, deploy_protocol, fund: the chain tests' helpers)

from workers.chain.deployment import load_deployment  # noqa: E402
from workers.chain.keystore import create_keystore  # noqa: E402
from workers.chain.sender import TxSender  # noqa: E402
from workers.node import redis_service  # noqa: E402
from workers.node.context import node_extra  # noqa: E402
from workers.node.handlers import node_config, supervisor  # noqa: E402
from workers.node.jobs import JobStore  # noqa: E402
from workers.protocol import Role  # noqa: E402
from workers.spec import DEMO_CARTPOLE  # noqa: E402

chain_services.ANVIL_PORTS = range(8650, 8660)
REDIS_PORTS = range(16401, 16410)
PASSWORD = "integration-test-password"
TOKEN = 10**18
MIN_STAKE = {Role.SAMPLER: 100 * TOKEN, Role.TRAINER: 500 * TOKEN, Role.VALIDATOR: 200 * TOKEN}
SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=256, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=10))
"""The demo spec, reduced: 256 steps per shard, 10 epochs of batch 64."""
ROLE_OF = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}

#: Small settings so a killed worker's message comes back within seconds (visibility timeout).
NODE_SETTINGS = dict(retry_backoff=1, retry_backoff_max=4, retry_jitter=False, max_retries=8,
                     soft_time_limit=8, time_limit=10, lease_s=3, visibility_timeout=15,
                     restore_interval=1)


class Ticker:
    """Mines a block every `interval` s on OUR anvil, so block.number moves without transactions."""

    def __init__(self, w3, interval: float = 1.0):
        self.w3, self.interval = w3, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(self.interval):
            self.w3.provider.make_request("evm_mine", [])

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


@dataclass
class Node:
    name: str
    role: str
    account: object
    config: object
    sup: object
    db: int

    @property
    def address(self) -> str:
        return self.account.address

    def redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.config.redis_url)

    def jobs(self) -> JobStore:
        return JobStore(self.redis(), self.config.key())

    def child(self, name: str):
        return self.sup.children[name]

    def sigkill(self, name: str) -> int:
        """SIGKILL a child's whole process group (a crash); returns its pid."""
        pid = self.child(name).pid
        os.killpg(pid, signal.SIGKILL)
        self.child(name).process.wait()
        return pid


class Network:
    def __init__(self, workdir: Path, roles: list[tuple[str, str]], ipfs_api: str | None = None):
        self.workdir = Path(workdir)
        self.ipfs_api = ipfs_api
        self.anvil = chain_services.Anvil()
        self.w3 = chain_services.http_w3(self.anvil.http_url)
        self.ticker = Ticker(self.w3)
        self.redis = redis_service.start_embedded(self.workdir / "redis", ports=REDIS_PORTS)
        self.admin = self.w3.eth.accounts[0]
        self.treasury = self.w3.eth.accounts[9]
        record = chain_services.deploy_protocol(self.w3, self.admin, treasury=self.treasury)
        self.deployment_path = self.workdir / "deployment.json"
        self.deployment_path.write_text(json.dumps(record, indent=2))
        self.deployment = load_deployment(self.w3, path=self.deployment_path)
        self.store_dir = self.workdir / "store"
        self.nodes: list[Node] = []
        self.held: set[str] = set()  # nodes whose dead children the supervise loop leaves dead
        for db, (name, role) in enumerate(roles, start=1):
            self.nodes.append(self._make_node(name, role, db))
        self._stop = threading.Event()
        self._supervising = threading.Thread(target=self._supervise, daemon=True)

    def _make_node(self, name: str, role: str, db: int) -> Node:
        node_dir = self.workdir / name
        account = Account.create()
        create_keystore(node_dir, PASSWORD, account.key, scrypt_n=2**10)
        url = self.redis.url.rsplit("/", 1)[0] + f"/{db}"
        # one shared folder for the embedded store; with IPFS each node keeps its own ledger
        store_dir = node_dir / "ipfs" if self.ipfs_api else self.store_dir
        extra = node_extra(rpc_url=self.anvil.http_url, ws_url=self.anvil.ws_url, ipfs_api=self.ipfs_api,
                           deployment=self.deployment_path, node_dir=node_dir, store_dir=store_dir)
        config = node_config(url, name, extra, **NODE_SETTINGS)
        chain_services.fund(self.w3, account.address)
        d = self.deployment
        self.w3.eth.wait_for_transaction_receipt(
            d.token.functions.transfer(account.address, 10_000 * TOKEN).transact({"from": self.admin}))
        sender = TxSender(self.w3, account, redis.Redis.from_url(url))
        amount = MIN_STAKE[ROLE_OF[role]]
        sender.send(d.token.functions.approve(d.stakes.address, amount))
        sender.send(d.stakes.functions.stake(ROLE_OF[role], amount))
        sup = supervisor(config, (role,), pool="solo", concurrency=1,
                         env={"DECENTRL_KEYSTORE_PASSWORD": PASSWORD})
        return Node(name, role, account, config, sup, db)

    def start(self) -> None:
        for node in self.nodes:
            node.sup.start()
        self._supervising.start()

    def _supervise(self) -> None:
        while not self._stop.wait(0.5):
            for node in self.nodes:
                if node.name not in self.held:
                    node.sup.check()

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def stop_nodes(self) -> None:
        """Stop the supervise loop, every node's processes and the ticker (chain and Redis stay
        up for the tests to read)."""
        self._stop.set()
        if self._supervising.is_alive():
            self._supervising.join()
        for node in self.nodes:
            node.sup.stop()
        self.ticker.stop()

    def stop(self) -> None:
        self.stop_nodes()
        self.redis.stop()
        self.anvil.stop()


def registry_events(net: Network) -> list:
    """Every TaskRegistry event since the deployment, decoded (workers.chain.watcher.ChainEvent)."""
    from workers.chain.watcher import EventWatcher, SqliteCursor

    decoder = EventWatcher(net.deployment, lambda e: None, SqliteCursor(net.workdir / "decoder.sqlite"),
                           mode="poll")
    logs = net.w3.eth.get_logs({"address": net.deployment.registry.address,
                                "fromBlock": net.deployment.block, "toBlock": "latest"})
    return [decoder.decode(entry) for entry in sorted(logs, key=lambda e: (e["blockNumber"], e["logIndex"]))]
