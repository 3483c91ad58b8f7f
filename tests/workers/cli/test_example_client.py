"""examples/client.py, the plain web3.py client of docs/integrating.md, against the CLI suite's
real anvil: it funds a bounty by permit (the requester holds no ETH) or by approve, signs
CreateTask, a second account relays it, and it follows the task's events. To stay cheap the task
is not run: the client stops once the task is created, and follows it again to TaskSettled after
the requester cancels it (a run to a checkpoint is the demo's and the integration suites' job)."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from cli_support import TOKEN
from eth_account import Account

from workers.localnet.chain import fund
from workers.spec import DEMO_CARTPOLE
from workers.storage import compute

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / "examples" / "client.py"


def test_the_client_imports_nothing_of_workers():
    tree = ast.parse(CLIENT.read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [m for m in imported if m == "workers" or m.startswith("workers.")]


def client(anvil, deployment_file, requester, relayer, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(REQUESTER_KEY=requester.key.hex(), RELAYER_KEY=relayer.key.hex())
    return subprocess.run([sys.executable, str(CLIENT), "--rpc", anvil.http_url, "--deployment", str(deployment_file),
                           *args], capture_output=True, text=True, timeout=120, env=env, cwd="/")


def test_permit_sign_relay_follow(anvil, deployment_file, w3, contracts, admin, tmp_path):
    requester, relayer = Account.create(), Account.create()
    assert w3.eth.wait_for_transaction_receipt(contracts.token.functions.transfer(
        requester.address, 2000 * TOKEN).transact({"from": admin})).status == 1
    fund(w3, relayer.address, 10 * TOKEN)
    spec = tmp_path / "spec.json"
    spec.write_bytes(DEMO_CARTPOLE.to_bytes())

    created = client(anvil, deployment_file, requester, relayer, "create", "--spec", str(spec), "--bounty", "1000",
                     "--rounds", "2", "--follow-seconds", "0")
    assert created.returncode == 2, created.stderr  # created, not settled
    task_id = int(re.search(r"^TaskCreated task (\d+) requester (0x\w+) spec (\w+) bounty (\d+)", created.stdout,
                            re.M).group(1))
    assert "TaskStatusChanged Open" in created.stdout
    t = contracts.state.functions.taskOf(task_id).call()
    assert (t.requester, t.bounty, t.numRounds) == (requester.address, 1000 * TOKEN, 2)
    assert (t.specCid, t.specDigest) == (compute(DEMO_CARTPOLE.to_bytes()), DEMO_CARTPOLE.digest())
    assert w3.eth.get_balance(requester.address) == 0  # the permit and the relayer paid for everything

    fund(w3, requester.address, 10 * TOKEN)
    cancel = contracts.registry.functions.cancelTask(task_id).build_transaction(
        {"from": requester.address, "nonce": 0, "chainId": w3.eth.chain_id})
    w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(requester.sign_transaction(cancel).raw_transaction))
    followed = client(anvil, deployment_file, requester, relayer, "follow", str(task_id), "--follow-seconds", "10")
    assert followed.returncode == 0, followed.stderr
    assert f"TaskSettled Cancelled paid [0, 0, 0] refund {1000 * TOKEN}" in followed.stdout
    assert followed.stdout.rstrip().endswith("result: Cancelled, no checkpoint")

    approved = client(anvil, deployment_file, requester, relayer, "create", "--spec-cid", t.specCid, "--spec-digest",
                      "0x" + DEMO_CARTPOLE.digest().hex(), "--bounty", "500", "--funding", "approve",
                      "--follow-seconds", "0")  # the CID and digest as `decentrl spec put` prints them
    assert approved.returncode == 2, approved.stderr
    second = int(re.search(r"^TaskCreated task (\d+)", approved.stdout, re.M).group(1))
    assert contracts.state.functions.taskOf(second).call().bounty == 500 * TOKEN
