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

from scripts.deploy import CONTRACT_GAS, DEPLOY_GAS, DeployParams
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
CONTRACTS = ["RLToken", "StakeManager", "Reputation", "RewardVault", "ProtocolConfig", "RoundLogic", "AggregateAttest",
             "SlotLogic", "TaskRegistry", "TaskFront", "KeyringBoard", "JuryLogic", "FaultProver", "DisputeManager",
             "StateView"]


def rpc(url, method, *params):
    reply = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}, timeout=10)
    return reply.json()["result"]


@pytest.fixture(scope="module")
def live_chain(tmp_path_factory):
    """Our anvil on a free port with a chain id of its own; yields (url, chain_id)."""
    port = free_port()
    chain_id = 700_000 + port
    proc = subprocess.Popen([ANVIL, "--port", str(port), "--chain-id", str(chain_id), "--hardfork", "prague",
                             "--cache-path", str(tmp_path_factory.mktemp("anvil-cache")), "--silent"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def run_script(home: Path, deployments: Path, answer: str, *args: str, **env_vars) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "DECENTRL_DEPLOYER": ACCOUNT_ID,
           "DECENTRL_DEPLOYER_PASSWORD": PASSWORD, "DECENTRL_DEPLOYMENTS_DIR": str(deployments),
           "PATH": f"{ROOT / 'tools' / 'bin'}:{Path(sys.executable).parent}:{os.environ['PATH']}", **env_vars}
    return subprocess.run([*BROWNIE_RUN, *args, "--network", "anvil-live"], cwd=ROOT,
                          env=env, input=answer, capture_output=True, text=True, timeout=300)


def run_live(home: Path, deployments: Path, answer: str, *args: str) -> subprocess.CompletedProcess:
    return run_script(home, deployments, answer, "scripts/deploy.py", "live", *args)


def nonce(url: str) -> int:
    return int(rpc(url, "eth_getTransactionCount", ADDRESS, "latest"), 16)


def test_what_is_refused_before_anything_is_sent(brownie_home, live_chain, tmp_path):
    url, _ = live_chain
    before = nonce(url)
    # the development deploy (accounts[0] of the RPC, no confirmation) on a live network
    dev = run_script(brownie_home, tmp_path, "", "scripts/deploy.py")
    assert dev.returncode == 1 and ("Error: scripts/deploy.py without `live` deploys from the RPC's first unlocked "
                                    "account, for development networks only; for anvil-live: `brownie run "
                                    "scripts/deploy.py live --network anvil-live`") in dev.stderr, \
        dev.stdout + dev.stderr
    # a confirmation argument that is not one
    maybe = run_live(brownie_home, tmp_path, "", ACCOUNT_ID, "maybe")
    assert maybe.returncode == 1 and "the confirmation argument is 'maybe'" in maybe.stderr, maybe.stderr
    # no answer: stdin closed
    closed = run_live(brownie_home, tmp_path, "")
    assert closed.returncode == 0 and "Aborted: no answer (stdin is closed): nothing was sent" in closed.stdout
    # a missing account, a wrong password
    missing = run_live(brownie_home, tmp_path, "", "nobody-here")
    assert missing.returncode == 1 and "no brownie account 'nobody-here'" in missing.stderr, missing.stderr
    wrong = run_script(brownie_home, tmp_path, "y\n", "scripts/deploy.py", "live",
                       DECENTRL_DEPLOYER_PASSWORD="not the password")
    assert wrong.returncode == 1 and f"wrong password for brownie account '{ACCOUNT_ID}'" in wrong.stderr, wrong.stderr
    # too little ETH for the whole deploy: nothing starts (a deploy that ran out halfway left no record)
    rpc(url, "anvil_setBalance", ADDRESS, hex(10**15))
    try:
        poor = run_live(brownie_home, tmp_path, "y\n")
    finally:
        rpc(url, "anvil_setBalance", ADDRESS, hex(100 * 10**18))
    assert poor.returncode == 1 and f"the deployer {ADDRESS} holds 0.0010 ETH; a deploy takes about {DEPLOY_GAS:,} " \
        "gas" in poor.stderr, poor.stdout + poor.stderr
    assert nonce(url) == before and not (tmp_path / "anvil-live.json").exists()
    assert "Traceback" not in dev.stderr + maybe.stderr + missing.stderr + wrong.stderr + poor.stderr


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
    assert not (tmp_path / "anvil-live.partial.json").exists()  # the progress file goes with the record
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
    # Disputes are on, as every deploy path leaves them: the registry's dispute manager is the recorded one.
    selector = "0x" + keccak(text="disputeManager()")[:4].hex()
    manager = rpc(url, "eth_call", {"to": record["contracts"]["StateView"], "data": selector}, "latest")
    assert int(manager, 16) == int(record["contracts"]["DisputeManager"], 16)

    # brownie's deployments database is not written (scripts/brownie_patches.py, fix 3): no
    # traceback from its confirmation threads
    assert "Exception in thread" not in text + out.stderr and "Traceback" not in out.stderr
    # each contract's deployment fits its CONTRACT_GAS and the whole deploy DEPLOY_GAS: what the
    # funds check asks the deployer to hold
    used, name_at = 0, {address.lower(): name for name, address in record["contracts"].items()}
    for number in range(min(record["startBlocks"].values()), record["block"] + 1):
        for tx in rpc(url, "eth_getBlockByNumber", hex(number), True)["transactions"]:
            if to_checksum_address(tx["from"]) == ADDRESS:
                receipt = rpc(url, "eth_getTransactionReceipt", tx["hash"])
                gas = int(receipt["gasUsed"], 16)
                if receipt["contractAddress"]:
                    name = name_at[receipt["contractAddress"].lower()]
                    assert gas <= CONTRACT_GAS[name], (name, gas)
                used += gas
    assert 15_000_000 < used <= DEPLOY_GAS
    for name, address in record["contracts"].items():
        assert f"  {name:<16}{address}" in text

    # a second deploy would replace the record that operators use: refused, nothing sent
    before = nonce(url)
    again = run_live(brownie_home, tmp_path, "y\n")
    assert again.returncode == 1 and "anvil-live.json already records a deployment on this chain" in again.stderr
    assert nonce(url) == before and json.loads((tmp_path / "anvil-live.json").read_text()) == record

    # a requester's task on the live network (brownie's Container.at failed on every live network)
    submitted = run_script(brownie_home, tmp_path, PASSWORD + "\n", "scripts/submit_task.py", "direct",
                           "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy", "0x" + "ab" * 32, "10",
                           DECENTRL_REQUESTER=ACCOUNT_ID)
    assert submitted.returncode == 0 and "task id 1" in submitted.stdout, submitted.stdout + submitted.stderr
    unnamed = run_script(brownie_home, tmp_path, PASSWORD + "\n", "scripts/submit_task.py", "direct",
                         DECENTRL_REQUESTER=ACCOUNT_ID)
    assert unnamed.returncode == 1 and "Error: give the spec's CID and digest" in unnamed.stderr, unnamed.stderr
