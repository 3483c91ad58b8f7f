"""A decentrl network of separate hosts on this machine (docs/operators.md, "Operators on separate
hosts"): each host a network namespace on one LAN (workers.localnet.hosts.netns).

- the chain host runs anvil on its LAN address (RPC and websocket on port 8545); this process
  deploys the protocol there and mines a block every `tick_s` (workers.localnet.chain.Ticker);
- the requester host runs its own IPFS node and the requester's `decentrl task submit` (its own
  keystore and funded account), which publishes the spec there and sends the signed request;
- each operator host has its own folder (keystore and node dir, IPFS repo, Redis data, a copy of
  the deployment record), its own IPFS node (swarm on its LAN address, API on its 127.0.0.1), its
  own redis-server (127.0.0.1:6379) and its node, started as an operator starts one:
  `decentrl node start --ipfs-api ... --ipfs-peer <each other host's swarm address>` with
  REDIS_URL set, pointed at the chain host's RPC.

The IPFS nodes start knowing no peer: the nodes' --ipfs-peer dialing connects the swarm (the
requester's IPFS node included, which every operator is given).

Operators share nothing but the chain and the IPFS swarm. Accounts are funded and staked by this
process (anvil's impersonation stands in for `decentrl node stake`); a validator's node registers
its BLS key itself when it starts. `close` stops every process and deletes every namespace, also
after a failure (use it as a context manager)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from eth_account import Account

from workers.chain.deployment import load_deployment
from workers.chain.keystore import PASSWORD_ENV, create_keystore, find_keystore, list_keystores, load_account
from workers.localnet.chain import ROOT, TOKEN, Ticker, deploy_protocol, fund, http_w3, write_record
from workers.localnet.hosts.netns import Host, HostsError, Lan
from workers.localnet.hosts.services import (
    RPC_PORT,
    IpfsDaemon,
    RedisServer,
    start_anvil,
    start_ipfs,
    stop_pid,
)
from workers.protocol import Role

PASSWORD = "hosts-network-password"
SUBMIT_OPTIONS = {"num_samplers": "samplers", "num_validators": "validators", "num_rounds": "rounds"}
"""TaskParams fields whose `task submit` option is named otherwise."""
ROLE_OF = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}
NODE_OPTIONS = ("--confirmations", "0", "--keeper-turn-blocks", "0", "--poll-interval", "0.05", "--metrics-port", "0",
                "--log-format", "text", "--attest-relay", "ipfs", "--aggregate-min-signers", "3",
                "--ipfs-timeout", "5")
"""`node start` options of every operator: anvil does not reorganise its chain, so no confirmations
and no keeper turns (the defaults for an RPC on another host assume a public chain); validators
exchange their BLS signatures over the IPFS nodes' pubsub and aggregate from 3 signers (the demo's
three validators; the default 4 would have each vote alone); a fetch gives up after 5 s (content
between these hosts arrives in about a second), so content whose only holder has gone is missing
data after 3 deliveries within seconds, not the default 30 s each."""


@dataclass
class Operator:
    """One operator's host: its folder, account, IPFS node, Redis and node process."""

    name: str
    role: str
    host: Host
    folder: Path
    account: object
    ipfs: IpfsDaemon
    redis: RedisServer
    deployment_path: Path
    node: object = None  # its `decentrl node start` process while it runs
    starts: list = field(default_factory=list)  # the log offsets of each start

    @property
    def address(self) -> str:
        return self.account.address

    @property
    def node_dir(self) -> Path:
        return self.folder / "node"

    @property
    def log(self) -> Path:
        return self.folder / "node.log"


class HostsNetwork:
    """See the module doc. `operators`: (name, role) per operator host."""

    def __init__(self, workdir: Path, operators: list[tuple[str, str]], *, tick_s: float = 1.0, scrypt_n: int = 2**10,
                 disputes: bool = True, node_options: tuple[str, ...] = NODE_OPTIONS):
        self.workdir = Path(workdir).resolve()
        self.node_options = tuple(node_options)
        self.operators: dict[str, Operator] = {}
        self.anvil = self.ticker = None
        self.ipfs: dict[str, IpfsDaemon] = {}
        self.scrypt_n = scrypt_n
        self.lan = Lan()
        try:
            self.chain_host = self.lan.add("chain")
            self.requester_host = self.lan.add("requester")
            hosts = {name: self.lan.add(name) for name, _ in operators}
            self.anvil = start_anvil(self.chain_host, self._folder("chain") / "anvil.log", self._anvil_cache())
            self.w3 = http_w3(self.rpc_url)
            self.ticker = Ticker(self.w3, tick_s, ws_url=self.ws_url) if tick_s else None
            self.admin, treasury = self.w3.eth.accounts[0], self.w3.eth.accounts[9]
            record = deploy_protocol(self.w3, self.admin, treasury, activate_disputes=disputes)
            self.deployment_path = write_record(record, self._folder("chain") / "deployment.json")
            self.deployment = load_deployment(self.w3, path=self.deployment_path)
            everyone = [(self.requester_host, self._folder("requester") / "ipfs")]
            everyone += [(host, self._folder(name) / "ipfs") for name, host in hosts.items()]
            for daemon in start_ipfs(everyone):
                self.ipfs[daemon.host.name] = daemon
            for name, role in operators:
                self.operators[name] = self._operator(name, role, hosts[name], scrypt_n)
        except BaseException:
            self.close()
            raise

    # -- set-up ----------------------------------------------------------------------------------

    def _folder(self, name: str) -> Path:
        folder = self.workdir / "hosts" / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def _anvil_cache(self) -> Path:
        """Where anvil keeps the old states it evicts (its default, ~/.foundry/anvil/tmp, outlives
        a killed anvil): removed once anvil has stopped."""
        return self._folder("chain") / "anvil-cache"

    @property
    def rpc_url(self) -> str:
        """The chain's RPC as every host reaches it (the chain host's LAN address)."""
        return f"http://{self.chain_host.address}:{RPC_PORT}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.chain_host.address}:{RPC_PORT}"

    def peers_of(self, name: str) -> list[str]:
        """The swarm multiaddrs of every IPFS node but `name`'s."""
        return [d.swarm for n, d in self.ipfs.items() if n != name]

    def _operator(self, name: str, role: str, host: Host, scrypt_n: int) -> Operator:
        folder = self._folder(name)
        deployment_path = folder / "deployment.json"  # its own copy: no path is shared between operators
        shutil.copyfile(self.deployment_path, deployment_path)
        create_keystore(folder / "node", PASSWORD, Account.create().key, scrypt_n=scrypt_n)
        account = load_account(find_keystore(folder / "node"), PASSWORD)
        self._fund_and_stake(account.address, role)
        redis = RedisServer(host, folder / "redis").start()
        return Operator(name, role, host, folder, account, self.ipfs[name], redis, deployment_path)

    def _fund_and_stake(self, address: str, role: str, drl: int = 10_000) -> None:
        """ETH for gas, `drl` DRL and a stake at the role's minimum, sent as the account through
        anvil's impersonation (what `decentrl node stake` sends, without its start-up time)."""
        d, w3 = self.deployment, self.w3
        fund(w3, address, 10 * TOKEN)
        _mined(w3, d.token.functions.transfer(address, drl * TOKEN).transact({"from": self.admin}))
        amount = d.stakes.functions.minStake(ROLE_OF[role]).call()
        w3.provider.make_request("anvil_impersonateAccount", [address])
        try:
            _mined(w3, d.token.functions.approve(d.stakes.address, amount).transact({"from": address}))
            _mined(w3, d.stakes.functions.stake(ROLE_OF[role], amount).transact({"from": address}))
        finally:
            w3.provider.make_request("anvil_stopImpersonatingAccount", [address])

    # -- nodes -----------------------------------------------------------------------------------

    def node_argv(self, op: Operator) -> list[str]:
        """`decentrl node start` as the operator runs it on its host."""
        peers = [arg for peer in self.peers_of(op.name) for arg in ("--ipfs-peer", peer)]
        return [sys.executable, "-m", "workers.cli", "--rpc", self.rpc_url, "--deployment", str(op.deployment_path),
                "--node-dir", str(op.node_dir), "node", "start", "--roles", op.role, "--ws", self.ws_url,
                "--ipfs-api", op.ipfs.api, *peers, *self.node_options]

    def start_node(self, name: str) -> None:
        op = self.operators[name]
        env = {k: v for k, v in os.environ.items() if not k.startswith("DECENTRL_") and k != "REDIS_URL"}
        env.update({PASSWORD_ENV: PASSWORD, "REDIS_URL": op.redis.url})
        op.starts.append(op.log.stat().st_size if op.log.exists() else 0)
        op.node = op.host.popen(self.node_argv(op), log=op.log, env=env, cwd=ROOT)

    def start_nodes(self, timeout: float = 120.0) -> None:
        """Starts every operator's node and waits until each says it runs."""
        for name in self.operators:
            self.start_node(name)
        for name in self.operators:
            self.wait_node_running(name, timeout)

    def wait_node_running(self, name: str, timeout: float = 120.0) -> None:
        op = self.operators[name]
        deadline = time.monotonic() + timeout
        while True:
            with open(op.log, "rb") as log:
                log.seek(op.starts[-1])
                if b"node running:" in log.read():
                    return
            if op.node.poll() is not None or time.monotonic() > deadline:
                tail = op.log.read_text(errors="replace")[-2000:]
                raise HostsError(f"the node of {name} did not start (exit {op.node.poll()}):\n{tail}")
            time.sleep(0.2)

    def stop_node(self, name: str) -> None:
        self.stop_nodes([name])

    def stop_nodes(self, names=None) -> None:
        """SIGTERMs the nodes of `names` (default: all) together, which stop their own children,
        and waits for each (SIGKILL after 30 s)."""
        ops = [self.operators[n] for n in (self.operators if names is None else names)]
        running = [op for op in ops if op.node is not None and op.node.poll() is None]
        for op in running:
            op.node.terminate()
        for op in ops:
            if op.node is not None:
                stop_pid(op.node, timeout=30.0)
                op.node = None

    # -- faults ----------------------------------------------------------------------------------

    def cut(self, name: str) -> None:
        """Takes host `name`'s link down: it keeps running, reaching nothing and reached by nothing."""
        self.lan.cut(name)

    def restore(self, name: str) -> None:
        self.lan.restore(name)

    def stop_ipfs(self, name: str) -> None:
        """Stops operator `name`'s IPFS node (its repo, and so what it holds, stays)."""
        self.operators[name].ipfs.stop()

    def start_ipfs(self, name: str) -> None:
        """Starts operator `name`'s IPFS node again on its repo: the same peer id, swarm and API
        addresses; the node's --ipfs-peer dialing connects it to the swarm again."""
        op = self.operators[name]
        (daemon,) = start_ipfs([(op.host, op.ipfs.repo)])
        op.ipfs = self.ipfs[name] = daemon

    def back_in_service(self, name: str) -> None:
        """What the operator of a penalised node does to take new work again, sent as its account
        through anvil's impersonation: below the reputation threshold, `recover()` once its cooldown
        has passed (anvil's clock is moved past it), and a stake topped up to its role's minimum (as
        `decentrl node recover` and `node stake` send)."""
        op, d, w3 = self.operators[name], self.deployment, self.w3
        role = ROLE_OF[op.role]
        available_at = d.reputation.functions.recoveryAvailableAt(op.address).call()
        if available_at:
            now = w3.eth.get_block("latest").timestamp
            w3.provider.make_request("evm_increaseTime", [max(0, available_at - now) + 1])
            w3.provider.make_request("evm_mine", [])
        short = d.stakes.functions.minStake(role).call() - d.stakes.functions.stakeOf(op.address, role).call()[0]
        w3.provider.make_request("anvil_impersonateAccount", [op.address])
        try:
            if available_at:
                _mined(w3, d.reputation.functions.recover().transact({"from": op.address}))
            if short > 0:
                _mined(w3, d.token.functions.approve(d.stakes.address, short).transact({"from": op.address}))
                _mined(w3, d.stakes.functions.stake(role, short).transact({"from": op.address}))
        finally:
            w3.provider.make_request("anvil_stopImpersonatingAccount", [op.address])

    # -- the requester ---------------------------------------------------------------------------

    def submit_task(self, spec, *, bounty: int, timeout: float = 120.0, **params) -> int:
        """The requester's `decentrl task submit` on its own host: the spec published to its own
        IPFS node, the request and the bounty's permit signed with its own keystore (a funded
        account of its own, made once), createTaskWithSig sent to the chain host. `bounty` in wei;
        `params`: the other TaskParams fields (num_samplers, num_rounds, commit_window, ...), which
        become the command's options. The task's id."""
        folder = self._folder("requester")
        if not list_keystores(folder / "node"):
            create_keystore(folder / "node", PASSWORD, Account.create().key, scrypt_n=self.scrypt_n)
            address = load_account(find_keystore(folder / "node"), PASSWORD).address
            fund(self.w3, address, 10 * TOKEN)
            _mined(self.w3, self.deployment.token.functions.transfer(address, 100_000 * TOKEN)
                   .transact({"from": self.admin}))
            shutil.copyfile(self.deployment_path, folder / "deployment.json")
        spec_path = folder / f"spec-{spec.digest().hex()[:12]}.json"
        spec_path.write_bytes(spec.to_bytes())
        options = [arg for name, value in params.items()
                   for arg in (f"--{SUBMIT_OPTIONS.get(name, name).replace('_', '-')}", str(value))]
        argv = [sys.executable, "-m", "workers.cli", "--rpc", self.rpc_url,
                "--deployment", str(folder / "deployment.json"), "--node-dir", str(folder / "node"),
                "task", "submit", str(spec_path), "--bounty", str(Decimal(bounty) / TOKEN),
                "--ipfs-api", self.ipfs["requester"].api, *options]
        env = {k: v for k, v in os.environ.items() if not k.startswith("DECENTRL_")}
        env[PASSWORD_ENV] = PASSWORD
        log = folder / "task-submit.log"
        start = log.stat().st_size if log.exists() else 0
        done = self.requester_host.popen(argv, log=log, env=env, cwd=ROOT)
        try:
            code = done.wait(timeout)
        except subprocess.TimeoutExpired:
            stop_pid(done)
            code = None
        output = log.read_text(errors="replace")[start:]
        created = re.search(r"^task (\d+) created", output, re.MULTILINE)
        if code != 0 or created is None:
            raise HostsError(f"`decentrl task submit` on the requester's host failed (exit {code}):\n{output[-2000:]}")
        return int(created.group(1))

    def wait_final(self, task_id: int, timeout: float, on_tick=lambda task: None):
        """The task once its status is final, calling on_tick(task) (StateView.taskOf) every
        0.05 s until then; TimeoutError naming where the logs are if not in time."""
        from workers.protocol import FINAL_STATUSES

        deadline = time.monotonic() + timeout
        while True:
            block = self.w3.eth.block_number  # a mined block's state, which later reads cannot see undone
            task = self.deployment.state.functions.taskOf(task_id).call(block_identifier=block)
            if task.status in FINAL_STATUSES:
                return task
            if time.monotonic() > deadline:
                raise TimeoutError(f"task {task_id} not final within {timeout:g} s: {task} (logs in "
                                   f"{self.workdir / 'hosts'}/*/node.log and */node/logs)")
            on_tick(task)
            time.sleep(0.05)

    # -- the end ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Stops every node, IPFS node, Redis, the ticker and anvil, then deletes every namespace
        (killing whatever still runs in one) and interface the network made."""
        try:
            self.stop_nodes()
            if self.ticker is not None:
                self.ticker.stop()
                self.ticker = None
            for daemon in self.ipfs.values():
                daemon.stop()
            for op in self.operators.values():
                op.redis.stop()
            if self.anvil is not None:
                stop_pid(self.anvil)
                shutil.rmtree(self._anvil_cache(), ignore_errors=True)
        finally:
            self.lan.close()

    def __enter__(self) -> HostsNetwork:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _mined(w3, tx_hash) -> dict:
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
    if receipt.status != 1:
        raise HostsError(f"transaction {tx_hash.hex()} reverted")
    return receipt

