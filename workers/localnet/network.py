"""A decentrl network on this machine: a local chain (workers.localnet.chain) with a 1 s block
ticker, one embedded Redis with a database per account, one content store (a shared embedded
store folder, or a real IPFS node's API), and one node per (name, role): its own account in an
encrypted keystore, ETH, DRL and a stake at its role's minimum, and its processes (a Celery worker
for its role plus the chain watcher, from workers.node.run) under a Supervisor. Validators
register their BLS keys and share one attestation relay (database 0 of the Redis), so a task's
validators vote in aggregates where enough of them can join one (workers.node.handlers.relay,
workers.roles.aggregation.worth_aggregating).

Requesters are plain funded accounts (`account`). The caller starts the nodes, drives tasks and
stops everything; `supervise` restarts dead node processes in the background."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import redis as redis_py
from eth_account import Account

from workers.chain.deployment import load_deployment
from workers.chain.keystore import PASSWORD_ENV, create_keystore, find_keystore, load_account
from workers.chain.sender import TxSender
from workers.localnet.chain import TOKEN, Anvil, Ticker, deploy_protocol, fund, http_w3, write_record
from workers.node.config import NodeSettings
from workers.node.processes import redis_service
from workers.node.queues.jobs import JobStore
from workers.node.run import node_config, supervisor
from workers.protocol import Role

ROLE_OF = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}


@dataclass
class Wallet:
    """A funded account of the network: its keystore folder, key and transaction sender."""

    name: str
    node_dir: Path
    account: object
    redis_url: str
    sender: TxSender

    @property
    def address(self) -> str:
        return self.account.address


@dataclass
class Node(Wallet):
    role: str = ""
    config: object = None
    sup: object = None
    restarts: list = field(default_factory=list)
    health: object = None  # its HealthChecker, when the network runs health checks

    def redis(self) -> redis_py.Redis:
        return redis_py.Redis.from_url(self.redis_url)

    def jobs(self) -> JobStore:
        return JobStore(self.redis(), self.config.key())

    def child(self, name: str):
        return self.sup.children[name]

    def sigkill(self, name: str) -> int:
        """SIGKILLs a child's whole process group (a crash); returns its pid."""
        import os
        import signal

        child = self.child(name)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        return child.pid


class LocalNetwork:
    """See the module doc. `node_settings` are NodeConfig fields for every node; `store_per_node`
    gives each node its own store folder (with IPFS: its own pin ledger). `disputes`: True (the
    default) deploys with the DisputeManager the registry's, as every deploy path does: pay is held
    for the dispute window (deploy_protocol's, 1 h) and released by the nodes; a dict of
    workers.localnet.chain.deploy_protocol's dispute settings (`dispute_window_s`,
    `vote_window_s`) does so with those windows; False leaves disputes inactive (pay credited at once)."""

    def __init__(self, workdir: Path, *, password: str, scrypt_n: int = 2**14, anvil_ports: Iterable[int] = (),
                 redis_ports: Iterable[int] = (), ipfs_api: str | None = None, node_settings: dict | None = None,
                 tick_s: float = 1.0, anvil_log: bool = False, redis_databases: int = 16,
                 disputes: bool | dict = True):
        self.workdir = Path(workdir)
        self.password, self.scrypt_n = password, scrypt_n
        self.ipfs_api = ipfs_api
        self.node_settings = dict(node_settings or {})
        self.store_dir = self.workdir / "store"
        self.nodes: list[Node] = []
        self.held: set[str] = set()  # nodes whose dead children `supervise` leaves dead
        self.anvil = self.ticker = self.redis = None
        self._next_db = 1
        self._stop = threading.Event()
        self._supervising: threading.Thread | None = None
        try:
            self.anvil = Anvil(anvil_ports, log_path=self.workdir / "anvil.log" if anvil_log else None)
            self.w3 = http_w3(self.anvil.http_url)
            self.ticker = Ticker(self.w3, tick_s, ws_url=self.anvil.ws_url) if tick_s else None
            self.redis = redis_service.start_embedded(self.workdir / "redis", ports=tuple(redis_ports) or None,
                                                      databases=redis_databases)
            self.admin, self.treasury = self.w3.eth.accounts[0], self.w3.eth.accounts[9]
            record = deploy_protocol(self.w3, self.admin, self.treasury, activate_disputes=disputes is not False,
                                     **(disputes if isinstance(disputes, dict) else {}))
            self.deployment_path = write_record(record, self.workdir / "deployment.json")
            self.deployment = load_deployment(self.w3, path=self.deployment_path)
        except BaseException:
            self.stop()
            raise

    # -- accounts and nodes ----------------------------------------------------------------------

    def _redis_url(self) -> str:
        url = self.redis.url.rsplit("/", 1)[0] + f"/{self._next_db}"
        self._next_db += 1
        return url

    def account(self, name: str, drl: int = 10_000, eth: int = 10) -> Wallet:
        """A new account with an encrypted keystore in workdir/nodes/<name>, `eth` ETH and `drl` DRL."""
        node_dir = self.workdir / "nodes" / name
        create_keystore(node_dir, self.password, Account.create().key, scrypt_n=self.scrypt_n)
        account = load_account(find_keystore(node_dir), self.password)
        fund(self.w3, account.address, eth * TOKEN)
        d = self.deployment
        if drl:
            self.w3.eth.wait_for_transaction_receipt(
                d.token.functions.transfer(account.address, drl * TOKEN).transact({"from": self.admin}))
        url = self._redis_url()
        return Wallet(name, node_dir, account, url, TxSender(self.w3, account, redis_py.Redis.from_url(url)))

    @property
    def relay_url(self) -> str:
        """The network's attestation relay: database 0 of its Redis, which every node reaches (each
        node's own database holds its queues and nonce; workers.node.handlers.relay)."""
        return self.redis.url.rsplit("/", 1)[0] + "/0"

    def add_node(self, name: str, role: str, drl: int = 10_000, stake: int | None = None,
                 attest_relay: str | None = "shared", **settings) -> Node:
        """A staked node (`stake` wei, default its role's minimum) with its Supervisor, not started.
        A validator registers its BLS key. attest_relay: "shared" (the network's relay_url), None
        (the node's own Redis database: a relay no other node sees), "off", "ipfs" or a URL; `settings`:
        other NodeSettings fields (aggregate_wait_s, attest_fallback_s, aggregate_min_signers..., and
        ipfs_api: this node's own IPFS node instead of the network's)."""
        from workers.node.handlers.relay import ensure_bls_key

        base = self.account(name, drl)
        node = Node(**vars(base), role=role)
        d = self.deployment
        amount = stake if stake is not None else d.stakes.functions.minStake(ROLE_OF[role]).call()
        node.sender.send(d.token.functions.approve(d.stakes.address, amount))
        node.sender.send(d.stakes.functions.stake(ROLE_OF[role], amount))
        if role == "validator":
            ensure_bls_key(d, node.sender, node.account)
        ipfs_api = settings.pop("ipfs_api", self.ipfs_api)
        store_dir = node.node_dir / "store" if ipfs_api else self.store_dir
        relay = self.relay_url if attest_relay == "shared" else attest_relay
        settings = NodeSettings(rpc_url=self.anvil.http_url, ws_url=self.anvil.ws_url, ipfs_api=ipfs_api,
                                deployment=self.deployment_path, node_dir=node.node_dir, store_dir=store_dir,
                                attest_relay=relay, **settings)
        node.config = node_config(node.redis_url, name, settings, **self.node_settings)
        node.sup = supervisor(node.config, (role,), pool="solo", concurrency=1, env={PASSWORD_ENV: self.password})
        self.nodes.append(node)
        return node

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    # -- running ---------------------------------------------------------------------------------

    def start(self, on_restart: Callable[[Node, str], None] = lambda node, child: None, every_s: float = 0.5,
              health_interval_s: float | None = None, names: Iterable[str] | None = None):
        """Starts every node's processes (or only those of `names`: the others are left to the
        caller, e.g. played in-process), and a thread restarting any that die (unless held). Each
        node is recorded in its node.json, so `decentrl node status` sees it running; with
        `health_interval_s` each also gets the node's health check (health.json, as `node start`)."""
        from workers.node.observe.health import HealthChecker
        from workers.node.processes.state import write_node_state

        if names is not None:
            self.held.update(n.name for n in self.nodes if n.name not in set(names))
        for node in self.nodes:
            if node.name in self.held:
                continue
            node.sup.start()
            write_node_state(node.node_dir, node.sup, (node.role,))
            if health_interval_s:
                node.health = HealthChecker(node.sup, self.anvil.http_url, str(self.deployment_path), node.address,
                                            str(node.config.settings.store_dir), ipfs_api=node.config.settings.ipfs_api,
                                            interval_s=health_interval_s)
        self._supervising = threading.Thread(target=self._supervise, args=(on_restart, every_s), daemon=True,
                                             name="supervise")
        self._supervising.start()

    def _supervise(self, on_restart, every_s: float) -> None:
        from workers.node.processes.state import write_node_state

        while not self._stop.wait(every_s):
            for node in self.nodes:
                if node.name in self.held:
                    continue
                restarted = node.sup.check()
                for child in restarted:
                    node.restarts.append(child)
                    on_restart(node, child)
                if node.health is not None and node.health.due():
                    node.health.check()
                if restarted:
                    write_node_state(node.node_dir, node.sup, (node.role,))

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Until every started node's Celery workers answer a ping (workers import torch: seconds)."""
        from workers.node.queues.celery_app import create_app

        deadline = time.monotonic() + timeout
        started = [n for n in self.nodes if n.name not in self.held]
        apps = {n.name: create_app(n.sup.config) for n in started}
        pending = {n.name: n for n in started}
        while pending:
            for name, node in list(pending.items()):
                workers = {f"{child}@{name}" for child, c in node.sup.children.items() if c.celery}
                try:
                    answered = {host for reply in apps[name].control.ping(destination=sorted(workers), timeout=0.5)
                                for host in reply}
                    if answered >= workers:
                        del pending[name]
                except Exception:  # broker not answering yet
                    pass
            if pending and time.monotonic() > deadline:
                raise TimeoutError(f"workers not ready within {timeout:g} s: {sorted(pending)} "
                                   f"(logs in {self.workdir / 'nodes'})")

    def wait_caught_up(self, timeout: float = 30.0) -> None:
        """Until every started node's watcher has processed the chain's head (as of this call) and
        no job of a chain event (txHash:logIndex) it queued is still queued or running: what the
        nodes owe the last events, before they are stopped (checks scheduled for later, such as a
        deadline keeper's, are not waited for)."""
        head = self.w3.eth.block_number
        deadline = time.monotonic() + timeout
        for node in (n for n in self.nodes if n.name not in self.held):
            jobs = node.jobs()
            while not _caught_up(node, jobs, head):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"node {node.name} has not handled the events up to block {head} within "
                                       f"{timeout:g} s (logs in {node.node_dir / 'logs'})")
                time.sleep(0.05)

    def stop_nodes(self) -> None:
        """Stops the supervise thread, every node's processes and the ticker; the chain and Redis
        stay up to be read."""
        self._stop.set()
        if self._supervising is not None and self._supervising.is_alive():
            self._supervising.join()
        from workers.node.processes.state import clear_node_state
        from workers.node.processes.supervisor import stop_all

        stop_all([node.sup for node in self.nodes])
        for node in self.nodes:
            clear_node_state(node.node_dir)
        if self.ticker is not None:
            self.ticker.stop()

    def stop(self) -> None:
        self.stop_nodes()
        if self.redis is not None:
            self.redis.stop()
        if self.anvil is not None:
            self.anvil.stop()


def _caught_up(node: Node, jobs: JobStore, block: int) -> bool:
    from workers.node.observe.health import watcher_block

    processed = watcher_block(node.node_dir)
    return processed is not None and processed >= block and not jobs.unfinished_events()
