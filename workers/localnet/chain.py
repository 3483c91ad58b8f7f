"""A local chain: an anvil process on a free port (its own process group, stopped by pid), an
optional `evm_mine` ticker (automine only mines with transactions, and the validator draw needs a
block after its seed block: the ticker mines that one at once), and the protocol deployed with
plain web3 from brownie's build artifacts (build/contracts, made by `brownie compile`, which
`make demo` and `make test` run; nothing is compiled here), the logic libraries linked into the
cores and the roles wired as scripts/deploy.py does."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from eth_utils import keccak
from web3 import Web3

from workers.chain.deployment import genesis_hash
from workers.chain.layout import GRANTS, LIBRARIES
from workers.chain.rpc import http_w3  # noqa: F401  (re-exported: the local network's client)
from workers.node.processes.lifetime import ending_with_starter
from workers.ports import owns_port

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "contracts"
TOKEN = 10**18
MIN_STAKES = (100 * TOKEN, 500 * TOKEN, 200 * TOKEN)  # by Role, as scripts/deploy.py's DeployParams
UNBONDING_S = 7 * 24 * 3600
SUPPLY = 1_000_000_000 * TOKEN


class LocalNetError(RuntimeError):
    """Something the local network needs is missing; the message says what to do."""


def anvil_binary() -> str:
    local = ROOT / "tools" / "bin" / "anvil"
    if os.access(local, os.X_OK):
        return str(local)
    found = shutil.which("anvil")
    if not found:
        raise LocalNetError("anvil not found: run `make setup` (it links tools/bin/anvil) "
                            "or put foundry's anvil on PATH")
    return found


def free_port(ports=(), fallback: bool = True) -> int:
    """The first free port of `ports`, else (with `fallback`) an ephemeral one."""
    for port in list(ports) + ([0] if fallback else []):
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise LocalNetError(f"no free port in {list(ports)[:1]}..{list(ports)[-1:]}")


def wait_for_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 30.0) -> None:
    """Until `proc` listens on `port`. Another process that took the port between our probe and
    our bind answers too, so the listener must be `proc` itself (where /proc can tell); if it
    never is, `proc` exits on its failed bind and this raises."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise LocalNetError(f"{what} exited with {proc.returncode} (port {port} taken?)")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0 and owns_port(proc.pid, port) is not False:
                return
        if time.monotonic() > deadline:
            raise LocalNetError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:g} s")
        time.sleep(0.05)


def stop_process_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group `proc` leads, SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


class Anvil:
    """anvil on 127.0.0.1 (chain 31337, prague, 10 funded accounts), on the first free port of
    `ports` (else an ephemeral one); its output goes to `log_path` when given. The old states it
    evicts from memory go to a folder of its own, removed by `stop` (anvil's default folder,
    ~/.foundry/anvil/tmp, is emptied only on a graceful exit, and grew by up to ~740 MB a run)."""

    TRIES = 5

    def __init__(self, ports=(), log_path: Path | None = None):
        self._log = open(log_path, "wb") if log_path else subprocess.DEVNULL
        self.cache_path = Path(tempfile.mkdtemp(prefix="decentrl-anvil-cache-"))
        for attempt in range(self.TRIES):
            # Another process (a parallel test worker) may bind the free port first: then ours
            # exits and the next free port is tried.
            self.port = free_port(ports)
            self.proc = subprocess.Popen(
                [anvil_binary(), "--port", str(self.port), "--host", "127.0.0.1", "--chain-id", "31337",
                 "--hardfork", "prague", "--balance", "1000000", "--cache-path", str(self.cache_path)]
                + ([] if log_path else ["--silent"]),
                stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=ending_with_starter())
            try:
                wait_for_port(self.port, self.proc, "anvil")
                break
            except LocalNetError:
                stop_process_group(self.proc)
                if attempt == self.TRIES - 1:
                    self.stop()
                    raise
        self.http_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        stop_process_group(self.proc)
        shutil.rmtree(self.cache_path, ignore_errors=True)
        if self._log is not subprocess.DEVNULL:
            self._log.close()


DRAW_ARMED_TOPICS = ["0x" + keccak(text=signature).hex()
                     for signature in ("DrawArmed(uint256,uint256)", "JurorDrawArmed(uint256,uint256)")]


class Ticker:
    """Mines a block every `interval` s on one anvil (block.number moves while nobody sends).
    Given the chain's websocket (`ws_url`), it also mines one at once after a block that arms a
    draw (DrawArmed, JurorDrawArmed): a draw's seed is the hash of the block after the arming one,
    which automine makes only for a transaction, so the draw would otherwise wait for the next
    tick (half an interval on average) for nothing a busy chain would make it wait for."""

    def __init__(self, w3: Web3, interval: float = 1.0, ws_url: str | None = None):
        self.w3, self.interval = w3, interval
        self._stop = threading.Event()
        self._mine_lock = threading.Lock()
        self._mined_after = -1  # the last arming block a block was mined after
        self._ws = None
        if ws_url is not None:
            from websockets.sync.client import connect

            from workers.chain.watcher import subscribe

            self._ws = connect(ws_url, max_size=None, compression=None)
            try:
                subscribe(self._ws, 1, ["logs", {"topics": [DRAW_ARMED_TOPICS]}])
            except RuntimeError as exc:
                self._ws.close()
                raise LocalNetError(f"the chain refused the ticker's subscription: {exc}") from None
            self._follower = threading.Thread(target=self._follow, daemon=True, name="draw-armed blocks")
            self._follower.start()
        self._thread = threading.Thread(target=self._run, daemon=True, name="evm_mine ticker")
        self._thread.start()

    def _run(self):
        while not self._stop.wait(self.interval):
            try:
                self.w3.provider.make_request("evm_mine", [])
            except Exception:  # anvil going away at the end
                return

    def _follow(self):
        try:
            for message in self._ws:
                log = json.loads(message).get("params", {}).get("result", {})
                if "blockNumber" not in log:
                    continue
                arming = int(log["blockNumber"], 16)
                with self._mine_lock:  # several draws armed in one block need one block after it
                    if arming > self._mined_after and int(self.w3.eth.block_number) == arming:
                        self.w3.provider.make_request("evm_mine", [])
                    self._mined_after = max(self._mined_after, arming)
        except Exception:  # noqa: BLE001 - the socket closed by stop(), or anvil going away at the end
            return

    def stop(self):
        self._stop.set()
        if self._ws is not None:
            self._ws.close()
            self._follower.join()
        if self._thread.is_alive():
            self._thread.join()


def fund(w3: Web3, address: str, wei: int = 1000 * TOKEN) -> None:
    """Sets `address`'s ETH balance (anvil only)."""
    w3.provider.make_request("anvil_setBalance", [address, hex(wei)])


def artifact(name: str) -> dict:
    path = BUILD / f"{name}.json"
    if not path.exists():
        raise LocalNetError(f"{path} not found: compile the contracts first "
                            "(`. tools/env.sh && brownie compile`; `make demo` and `make test` do it)")
    return json.loads(path.read_text())


def _deploy(w3: Web3, admin: str, name: str, *args, link: dict | None = None):
    art = artifact(name)
    bytecode = art["bytecode"]
    for lib, address in (link or {}).items():
        bytecode = bytecode.replace(f"__{lib}".ljust(40, "_"), address[2:].lower())
    factory = w3.eth.contract(abi=art["abi"], bytecode=bytecode)
    receipt = w3.eth.wait_for_transaction_receipt(factory.constructor(*args).transact({"from": admin}))
    if receipt.status != 1:
        raise LocalNetError(f"deploying {name} reverted")
    return w3.eth.contract(address=receipt.contractAddress, abi=art["abi"])


LOCAL_DISPUTE_WINDOW_S, LOCAL_VOTE_WINDOW_S = 3600, 600
"""A local chain's dispute and vote windows: ProtocolConfig's least (1 h, 10 min)."""


def deploy_protocol(w3: Web3, admin: str, treasury: str, network: str = "local",
                    activate_disputes: bool = True, dispute_window_s: int | None = LOCAL_DISPUTE_WINDOW_S,
                    vote_window_s: int | None = LOCAL_VOTE_WINDOW_S) -> dict:
    """Deploys and wires the protocol; returns its deployment record (the format of
    scripts/deploy.py's, read by workers.chain.deployment). The DisputeManager is deployed,
    granted its roles and made the registry's, as every deploy path does: each round's pay is held
    for the dispute window and released by DisputeManager.releasePay (the nodes send it for their
    own pay). `activate_disputes=False` leaves pay credited at once and nothing disputable.
    `dispute_window_s` / `vote_window_s` set ProtocolConfig's windows (default here its least,
    1 h and 10 min; None keeps its own default of 1 day each)."""
    token = _deploy(w3, admin, "RLToken", admin, SUPPLY)
    stakes = _deploy(w3, admin, "StakeManager", token.address, admin, list(MIN_STAKES), UNBONDING_S)
    reputation = _deploy(w3, admin, "Reputation", admin)
    vault = _deploy(w3, admin, "RewardVault", token.address, admin)
    config = _deploy(w3, admin, "ProtocolConfig", admin, treasury)
    registry_libraries = {name: _deploy(w3, admin, name) for name in LIBRARIES["TaskRegistry"]}
    registry = _deploy(w3, admin, "TaskRegistry", token.address, stakes.address, reputation.address, vault.address,
                       config.address, admin, link={name: c.address for name, c in registry_libraries.items()})
    front = _deploy(w3, admin, "TaskFront", registry.address)
    keyrings = _deploy(w3, admin, "KeyringBoard", registry.address)
    jury_libraries = {name: _deploy(w3, admin, name) for name in LIBRARIES["DisputeManager"]}
    disputes = _deploy(w3, admin, "DisputeManager", token.address, registry.address, stakes.address,
                       reputation.address, vault.address, config.address,
                       link={name: c.address for name, c in jury_libraries.items()})
    state = _deploy(w3, admin, "StateView", registry.address, disputes.address)
    deployed = {"StakeManager": stakes, "Reputation": reputation, "RewardVault": vault, "TaskRegistry": registry,
                "DisputeManager": disputes}
    for contract, role, grantee in GRANTS:
        role_id = getattr(deployed[contract].functions, role)().call()
        _transact(w3, admin, deployed[contract].functions.grantRole(role_id, deployed[grantee].address))
    _transact(w3, admin, registry.functions.setTaskFront(front.address))
    for setter, value in ((config.functions.setDisputeWindow, dispute_window_s),
                          (config.functions.setVoteWindow, vote_window_s)):
        if value is not None:
            _transact(w3, admin, setter(value))
    if activate_disputes:
        _transact(w3, admin, registry.functions.setDisputeManager(disputes.address))
    contracts = {"RLToken": token, "StakeManager": stakes, "Reputation": reputation, "RewardVault": vault,
                 "ProtocolConfig": config, **registry_libraries, "TaskRegistry": registry, "TaskFront": front,
                 "KeyringBoard": keyrings, **jury_libraries, "DisputeManager": disputes, "StateView": state}
    return {
        "network": network, "chainId": w3.eth.chain_id, "genesisHash": genesis_hash(w3), "block": w3.eth.block_number,
        "admin": admin,
        "contracts": {name: c.address for name, c in contracts.items()},
        "abis": {name: c.abi for name, c in contracts.items()},
    }


def _transact(w3: Web3, admin: str, call) -> None:
    receipt = w3.eth.wait_for_transaction_receipt(call.transact({"from": admin}))
    if receipt.status != 1:
        raise LocalNetError(f"{call.fn_name} reverted")


def write_record(record: dict, path: Path) -> Path:
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path
