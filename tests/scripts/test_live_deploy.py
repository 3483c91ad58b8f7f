"""The live deploy path for real: `brownie run scripts/deploy.py live --network anvil-live` in a
subprocess against an anvil of our own, with an encrypted keystore and the confirmation answered.

Isolation (other brownie runs share this machine): the subprocess gets its own HOME, so the
`anvil-live` network it registers (pointed at our anvil's free port and chain id) and the keystore
it loads live in a temporary ~/.brownie; ~/.solcx is linked in. Records go to a temporary
deployments folder ($DECENTRL_DEPLOYMENTS_DIR). Our anvil is stopped by pid; brownie's live
artifacts for its chain id (build/deployments/<chain id>/) are removed afterwards.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from eth_keys.datatypes import PrivateKey
from eth_utils import keccak, to_checksum_address

from scripts.deploy import DeployParams
from workers.localnet.chain import free_port

ROOT = Path(__file__).resolve().parents[2]
BROWNIE = str(Path(sys.executable).with_name("brownie"))
# `brownie run` through our wrapper: brownie alone cannot import a script under a dotted path.
BROWNIE_RUN = [sys.executable, str(ROOT / "tools" / "brownie_cli.py"), "run"]
ANVIL = shutil.which("anvil") or str(ROOT / "tools" / "bin" / "anvil")
# A key of our own (anvil's default keys are already unlocked accounts in the test process).
KEY = "0x" + keccak(text="decentrl live deploy test key").hex()
ADDRESS = to_checksum_address(keccak(PrivateKey(bytes.fromhex(KEY[2:])).public_key.to_bytes())[-20:])
ACCOUNT_ID = "decentrl-test-deployer"
PASSWORD = "correct horse battery staple 7f3a"
CONTRACTS = ["RLToken", "StakeManager", "Reputation", "RewardVault", "TaskRegistry", "RoundLogic", "KeyringBoard",
             "AggregateAttest", "DisputeManager"]


def rpc(url, method, *params):
    reply = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}, timeout=10)
    return reply.json()["result"]


@pytest.fixture(scope="module")
def live_chain(tmp_path_factory):
    """Our anvil on a free port with a chain id of its own; yields (url, chain_id)."""
    port = free_port()
    chain_id = 700_000 + port
    proc = subprocess.Popen([ANVIL, "--port", str(port), "--chain-id", str(chain_id), "--hardfork", "prague",
                             "--silent"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                rpc(url, "eth_chainId")
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        rpc(url, "anvil_setBalance", ADDRESS, hex(100 * 10**18))  # the deployer's gas money
        yield url, chain_id
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(ROOT / "build" / "deployments" / str(chain_id), ignore_errors=True)


@pytest.fixture(scope="module")
def brownie_home(tmp_path_factory, live_chain):
    """A HOME whose ~/.brownie registers `anvil-live` at our anvil and holds the encrypted keystore."""
    from brownie import accounts

    url, chain_id = live_chain
    home = tmp_path_factory.mktemp("home")
    (home / ".solcx").symlink_to(Path.home() / ".solcx")
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([BROWNIE, "networks", "add", "Ethereum", "anvil-live", f"host={url}", f"chainid={chain_id}"],
                   cwd=home, env=env, check=True, capture_output=True)
    (home / ".brownie" / "accounts").mkdir(parents=True, exist_ok=True)
    keystore = home / ".brownie" / "accounts" / f"{ACCOUNT_ID}.json"
    account = accounts.add(KEY)
    account.save(str(keystore), password=PASSWORD, overwrite=True)
    accounts.remove(account)
    yield home
    keystore.unlink(missing_ok=True)


def run_live(home: Path, deployments: Path, answer: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "DECENTRL_DEPLOYER": ACCOUNT_ID,
           "DECENTRL_DEPLOYER_PASSWORD": PASSWORD, "DECENTRL_DEPLOYMENTS_DIR": str(deployments),
           "PATH": f"{ROOT / 'tools' / 'bin'}:{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run([*BROWNIE_RUN, "scripts/deploy.py", "live", "--network", "anvil-live"], cwd=ROOT,
                          env=env, input=answer, capture_output=True, text=True, timeout=300)


def test_answering_no_aborts_without_sending(brownie_home, live_chain, tmp_path):
    url, _ = live_chain
    nonce_before = int(rpc(url, "eth_getTransactionCount", ADDRESS, "latest"), 16)
    out = run_live(brownie_home, tmp_path, "n\n")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Aborted: nothing was sent." in out.stdout
    assert int(rpc(url, "eth_getTransactionCount", ADDRESS, "latest"), 16) == nonce_before
    assert not (tmp_path / "anvil-live.json").exists()
    assert PASSWORD not in out.stdout + out.stderr


def test_confirmed_live_deploy_writes_record_and_contracts_exist(brownie_home, live_chain, tmp_path):
    url, chain_id = live_chain
    out = run_live(brownie_home, tmp_path, "y\n")
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert PASSWORD not in text + out.stderr
    assert f"Network   anvil-live (chain {chain_id})" in text
    assert f"Deployer  {ADDRESS}" in text
    for line in DeployParams().describe().splitlines():
        assert line in text
    assert "Deploy with these parameters? [y/N]" in text
    assert text.index("Deploy with these parameters?") < text.index("Transaction sent")

    record = json.loads((tmp_path / "anvil-live.json").read_text())
    assert record["network"] == "anvil-live"
    assert record["chainId"] == chain_id
    assert record["genesisHash"] == rpc(url, "eth_getBlockByNumber", "0x0", False)["hash"]  # tells same-id chains apart
    assert record["admin"] == ADDRESS
    assert sorted(record["contracts"]) == sorted(CONTRACTS)
    for name, address in record["contracts"].items():
        assert len(rpc(url, "eth_getCode", address, "latest")) > 2, name
    # The registry is wired: the token it uses is the recorded one.
    token_call = rpc(url, "eth_call", {"to": record["contracts"]["TaskRegistry"], "data": "0xfc0c546a"}, "latest")
    assert int(token_call, 16) == int(record["contracts"]["RLToken"], 16)
