"""The demo's own local chain: an anvil process on a free port (automine, plus a 1 s `evm_mine`
ticker against this anvil only, so block.number moves while nobody sends: the validator draw
needs a block after its seed block), and the protocol deployed with plain web3 from brownie's
build artifacts (build/contracts, made by `brownie compile` in `make setup`; nothing is compiled
here), RoundLogic linked into TaskRegistry, roles wired as scripts/deploy.py does."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from web3 import Web3

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "contracts"
PORTS = range(8690, 8700)
TOKEN = 10**18
MIN_STAKES = (100 * TOKEN, 500 * TOKEN, 200 * TOKEN)  # by Role, as scripts/deploy.py's DeployParams
UNBONDING_S = 7 * 24 * 3600


class DemoError(RuntimeError):
    """Something the demo needs is missing; the message says what to do."""


def anvil_binary() -> str:
    local = ROOT / "tools" / "bin" / "anvil"
    if os.access(local, os.X_OK):
        return str(local)
    found = shutil.which("anvil")
    if not found:
        raise DemoError("anvil not found: run `make setup` (it links tools/bin/anvil) or put foundry's anvil on PATH")
    return found


def free_port(ports=None) -> int:
    """The first free port of `ports` (default PORTS), else an ephemeral one."""
    for port in list(PORTS if ports is None else ports) + [0]:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise DemoError("no free port for anvil")


class Anvil:
    """anvil on 127.0.0.1:<free port>, its own process group, stopped by pid."""

    def __init__(self, log_path: Path):
        self.port = free_port()
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [anvil_binary(), "--port", str(self.port), "--host", "127.0.0.1", "--chain-id", "31337",
             "--hardfork", "prague", "--accounts", "2", "--balance", "1000000"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.http_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise DemoError(f"anvil exited with {self.proc.returncode} (log {log_path})")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            if time.monotonic() > deadline:
                self.stop()
                raise DemoError(f"anvil did not listen on port {self.port} within 30 s")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        self.log.close()


class Ticker:
    """Mines a block every `interval` s on the demo's anvil."""

    def __init__(self, w3, interval: float = 1.0):
        self.w3, self.interval = w3, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="evm_mine ticker")
        self._thread.start()

    def _run(self):
        while not self._stop.wait(self.interval):
            try:
                self.w3.provider.make_request("evm_mine", [])
            except Exception:  # anvil going away at the end
                return

    def stop(self):
        self._stop.set()
        self._thread.join()


def http_w3(url: str) -> Web3:
    return Web3(Web3.HTTPProvider(url, request_kwargs={"timeout": 30}))


def artifact(name: str) -> dict:
    path = BUILD / f"{name}.json"
    if not path.exists():
        raise DemoError(f"{path} not found: run `make setup` (it runs `brownie compile`)")
    return json.loads(path.read_text())


def _deploy(w3, admin: str, name: str, *args, link: dict | None = None):
    art = artifact(name)
    bytecode = art["bytecode"]
    for lib, address in (link or {}).items():
        bytecode = bytecode.replace(f"__{lib}".ljust(40, "_"), address[2:].lower())
    factory = w3.eth.contract(abi=art["abi"], bytecode=bytecode)
    receipt = w3.eth.wait_for_transaction_receipt(factory.constructor(*args).transact({"from": admin}))
    if receipt.status != 1:
        raise DemoError(f"deploying {name} reverted")
    return w3.eth.contract(address=receipt.contractAddress, abi=art["abi"])


def deploy(w3, admin: str, treasury: str, path: Path) -> Path:
    """Deploys and wires the protocol; writes its deployment record (the format of
    scripts/deploy.py's, read by workers.chain.deployment) to `path`."""
    token = _deploy(w3, admin, "RLToken", admin, 1_000_000_000 * TOKEN)
    stakes = _deploy(w3, admin, "StakeManager", token.address, admin, list(MIN_STAKES), UNBONDING_S)
    reputation = _deploy(w3, admin, "Reputation", admin)
    vault = _deploy(w3, admin, "RewardVault", token.address, admin)
    logic = _deploy(w3, admin, "RoundLogic")
    registry = _deploy(w3, admin, "TaskRegistry", token.address, stakes.address, reputation.address, vault.address,
                       admin, treasury, link={"RoundLogic": logic.address})
    for contract, role_fn in ((stakes, "PROTOCOL_ROLE"), (reputation, "REPORTER_ROLE"), (vault, "ESCROW_ROLE")):
        role = getattr(contract.functions, role_fn)().call()
        w3.eth.wait_for_transaction_receipt(
            contract.functions.grantRole(role, registry.address).transact({"from": admin}))
    record = {
        "network": "demo", "chainId": w3.eth.chain_id, "block": w3.eth.block_number, "admin": admin,
        "contracts": {"RLToken": token.address, "StakeManager": stakes.address, "Reputation": reputation.address,
                      "RewardVault": vault.address, "TaskRegistry": registry.address, "RoundLogic": logic.address},
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path
