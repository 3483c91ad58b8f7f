"""`decentrl node start` runs the node's watcher and Celery workers (real processes, embedded
Redis) until SIGTERM (`node stop`); `node status` lists them meanwhile; everything stops with it."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch
from cli_support import PASSWORD

from workers.chain.keystore import find_keystore, load_account
from workers.node.handlers.relay import bls_key, registered_key

ROOT = Path(__file__).resolve().parents[3]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); its state in /proc says it is gone
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def stake_without_bls_key(w3, contracts, address, amount):
    """A validator stake sent straight to the contract (as before nodes registered BLS keys)."""
    w3.provider.make_request("anvil_impersonateAccount", [address])
    for call in (contracts.token.functions.approve(contracts.stakes.address, amount),
                 contracts.stakes.functions.stake(2, amount)):
        assert w3.eth.wait_for_transaction_receipt(call.transact({"from": address})).status == 1
    w3.provider.make_request("anvil_stopImpersonatingAccount", [address])


def start_node(anvil, deployment_file, node_dir, *args):
    """`decentrl ARGS` (a node start) as its own process, with the node's password and no REDIS_URL."""
    env = {**os.environ, "DECENTRL_KEYSTORE_PASSWORD": PASSWORD, "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    return subprocess.Popen([sys.executable, "-m", "workers.cli", "--rpc", anvil.http_url, "--deployment",
                             str(deployment_file), "--node-dir", str(node_dir), *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def running_state(proc, state_file) -> dict:
    """node.json once the started node has written it."""
    deadline = time.monotonic() + 60
    while not state_file.exists():
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline, "node.json was not written"
        time.sleep(0.1)
    time.sleep(0.2)
    return json.loads(state_file.read_text())


def test_start_status_stop(node, invoke, anvil, deployment_file, monkeypatch, w3, contracts):
    node_dir, address = node(drl=1000)
    assert invoke(node_dir, "node", "stake", "--role", "sampler", "--amount", "100").exit_code == 0
    stake_without_bls_key(w3, contracts, address, 200 * 10**18)
    assert registered_key(contracts, address) == ((0, 0, 0, 0), (0, 0))
    monkeypatch.delenv("REDIS_URL", raising=False)
    proc = start_node(anvil, deployment_file, node_dir, "--max-fee-gwei", "1000", "node", "start",
                      "--metrics-port", "0", "--roles", "sampler,validator", "--poll-interval", "0.5",
                      "--confirmations", "1", "--keeper-turn-blocks", "3", "--claim-burst", "25")
    state_file = node_dir / "node.json"
    try:
        state = running_state(proc, state_file)
        assert state["pid"] == proc.pid and state["roles"] == ["sampler", "validator"]
        assert state["max_fee_per_gas"] == 1000 * 10**9  # the cap its workers' senders were given
        assert state["rate"] == {"per_s": 10.0, "burst": 25}  # the claims' token bucket its workers share
        assert set(state["children"]) == {"sampler", "validator", "claims", "watcher"}
        pids = [c["pid"] for c in state["children"].values()]
        assert all(alive(p) for p in pids)
        # The validator role registered the node's BLS key before its workers started.
        key = bls_key(load_account(find_keystore(node_dir), PASSWORD))
        assert registered_key(contracts, address) == (tuple(key.pubkey_g2), tuple(key.pubkey_g1))

        status = invoke(node_dir, "node", "status")
        assert f"node running (pid {proc.pid}, roles sampler,validator)" in status.output, status.output
        for name in ("sampler", "validator", "watcher"):
            assert f"  {name:<10} pid {state['children'][name]['pid']} running" in status.output
        stopped = invoke(node_dir, "node", "stop")  # from another shell: SIGTERM, a graceful stop
        assert stopped.exit_code == 0, stopped.output
        assert f"node {proc.pid} stopped\n" in stopped.output
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert "node running: roles sampler,validator" in out and out.rstrip().endswith("node stopped")
    assert "registered the node's BLS key" in out
    assert f"events: polling {anvil.http_url} (polls every 0.5 s), 1 confirmation" in out
    assert "keeper calls: in turns of 3 blocks" in out
    assert "sampler: not staked yet" not in out and "validator: not staked yet" not in out  # both were
    watcher_log = (node_dir / "logs" / "watcher.log").read_text()
    assert f"polling {anvil.http_url} every 0.5 s; confirmation depth 1" in watcher_log
    assert not any(alive(p) for p in pids)
    assert not state_file.exists()
    assert "processes   not running" in invoke(node_dir, "node", "status").output


def test_the_watcher_polls_a_remote_rpc_less_often_than_a_local_one():
    from workers.node.config import LOCAL_POLL_S, REMOTE_POLL_S, default_poll_interval

    for local in ("http://127.0.0.1:8545", "http://localhost:8545/", "http://[::1]:8545"):
        assert default_poll_interval(local) == LOCAL_POLL_S == 0.05
    for remote in ("https://sepolia.infura.io/v3/KEY", "http://10.0.0.5:8545", "http://rpc.example:8545"):
        assert default_poll_interval(remote) == REMOTE_POLL_S == 2.0


def test_the_watcher_waits_for_confirmations_only_on_a_chain_elsewhere():
    from workers.node.config import default_confirmations

    assert default_confirmations("http://127.0.0.1:8545") == 0
    assert default_confirmations("wss://mainnet.example/ws") == default_confirmations("https://rpc.example") == 2


def test_validators_take_keeper_turns_only_on_a_chain_elsewhere():
    from workers.node.handlers.keeper_turns import default_turn_blocks

    assert default_turn_blocks("http://127.0.0.1:8545") == 0  # anvil here: a reverted draw costs nothing
    assert default_turn_blocks("https://sepolia.infura.io/v3/KEY") == 2


def test_start_refuses_unknown_roles_and_a_wrong_password(node, invoke, monkeypatch):
    node_dir, _ = node()
    bad = invoke(node_dir, "node", "start", "--roles", "sampler,miner")
    assert bad.exit_code == 2 and "--roles: choose from sampler, trainer, validator" in bad.output
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # a machine without a GPU
    no_gpu = invoke(node_dir, "node", "start", "--roles", "trainer", "--trainer-device", "cuda")
    assert no_gpu.exit_code == 2 and "--trainer-device cuda: torch sees no CUDA device" in no_gpu.output
    tpu = invoke(node_dir, "node", "start", "--roles", "trainer", "--trainer-device", "tpu")
    assert tpu.exit_code == 2 and "'tpu' is not one of 'auto', 'cpu', 'cuda'" in tpu.output
    lone = invoke(node_dir, "node", "start", "--roles", "validator", "--aggregate-min-signers", "1")
    assert lone.exit_code == 2 and "'--aggregate-min-signers': 1 is not in the range x>=2" in lone.output
    http = invoke(node_dir, "node", "start", "--roles", "sampler", "--ws", "http://127.0.0.1:8545")
    assert http.exit_code == 2 and "'http://127.0.0.1:8545' is not a websocket URL" in http.output
    relay = invoke(node_dir, "node", "start", "--roles", "validator", "--attest-relay", "ipfs")
    assert relay.exit_code == 2 and "'ipfs' needs the node's IPFS node (--ipfs-api)" in relay.output
    wrong = invoke(node_dir, "node", "start", "--roles", "sampler", password="nope")
    assert wrong.exit_code == 1 and "wrong password" in wrong.output
    assert not (node_dir / "node.json").exists()


def _processes_working_in(folder: Path) -> list[int]:
    """Processes whose working directory is `folder` (an embedded redis-server runs in its --dir)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and os.readlink(proc / "cwd") == str(folder.resolve()):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def test_one_node_per_folder_and_its_processes_end_with_it(node, invoke, anvil, deployment_file, monkeypatch):
    """A second `node start` in a running node's folder is refused before it touches anything; and
    a node killed outright (SIGKILL: nothing of its own runs) takes its processes and its embedded
    Redis with it, so that the folder can be started again."""
    node_dir, _ = node()
    monkeypatch.delenv("REDIS_URL", raising=False)
    proc = start_node(anvil, deployment_file, node_dir, "node", "start", "--roles", "sampler", "--metrics-port", "0")
    state_file = node_dir / "node.json"
    try:
        state = running_state(proc, state_file)
        children = [c["pid"] for c in state["children"].values()]
        redis = _processes_working_in(node_dir / "redis")
        assert children and redis and all(alive(p) for p in children + redis)

        second = invoke(node_dir, "node", "start", "--roles", "sampler", "--metrics-port", "0")
        assert second.exit_code == 1, second.output
        assert f"a node is already running in {node_dir} (pid {proc.pid})" in second.output
        assert json.loads(state_file.read_text())["pid"] == proc.pid  # the running node's record untouched

        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 60
        while any(alive(p) for p in children + redis):
            assert time.monotonic() < deadline, [p for p in children + redis if alive(p)]
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            proc.wait(60)
    out = proc.stdout.read()
    assert "sampler: not staked yet (`decentrl node stake --role sampler`): it takes no work until then" in out, out
    status = invoke(node_dir, "node", "status")
    assert "processes   not running" in status.output and "still are" not in status.output, status.output


def test_a_machine_whose_kernels_give_other_bits_does_not_start(node, anvil, deployment_file, monkeypatch):
    """torch on a CPU without AVX2 (ATen's default kernels): validators would reject this node's
    honest work, so it refuses before it claims its folder or starts anything
    (tests/workers/roles/test_kernel_check.py)."""
    node_dir, _ = node()
    env = {**os.environ, "DECENTRL_KEYSTORE_PASSWORD": PASSWORD, "PYTHONPATH": str(ROOT)}
    cli = "import os, workers; os.environ['ATEN_CPU_CAPABILITY'] = 'default'; from workers.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", cli, "--rpc", anvil.http_url, "--deployment", str(deployment_file),
                           "--node-dir", str(node_dir), "node", "start", "--roles", "sampler", "--metrics-port", "0"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Error: this machine's float kernels give other bits than the network's reference" in done.stderr
    assert "torch runs its DEFAULT kernels" in done.stderr
    assert not (node_dir / "node.json").exists() and not (node_dir / "redis").exists()
