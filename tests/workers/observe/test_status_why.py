"""`decentrl node status` says why no work arrives, each reason made true on a real anvil with the
protocol deployed: not running, stake too low, paused, reputation below threshold, no open tasks,
a running node's Redis or store down or its fee cap under the base fee (and, with a running node,
the rate limit: test_status_running.py; the chain down: tests/workers/cli/test_node.py)."""

import json
import os
from pathlib import Path

import pytest
from observe_support import reasons, send_as, stake, status

from tests.ports import dead_port
from workers.protocol import Outcome
from workers.spec import DEMO_CARTPOLE

ROOT = Path(__file__).resolve().parents[3]


def test_a_new_node_not_running_without_stake_and_no_tasks(node, invoke, contracts):
    assert contracts.state.functions.taskCount().call() == 0  # this file's last test creates the first
    node_dir, _ = node()
    out = status(invoke, node_dir)
    assert "WHY NO WORK ARRIVES (sampler, trainer, validator):" in out
    why = reasons(out)
    assert why["not-running"] == ["the node is not running: `decentrl node start`"]
    assert why["stake-too-low"] == [
        "stake too low for sampler: 0 DRL available, 100 DRL required (`decentrl node stake --role sampler`)",
        "stake too low for trainer: 0 DRL available, 500 DRL required (`decentrl node stake --role trainer`)",
        "stake too low for validator: 0 DRL available, 200 DRL required (`decentrl node stake --role validator`)"]
    assert why["no-open-tasks"] == ["no open tasks for sampler, trainer, validator: none of the last 0 tasks has "
                                    "a vacant slot for it"]
    assert set(why) == {"not-running", "stake-too-low", "no-open-tasks"}
    assert "health      no check yet (the node checks itself while it runs)" in out
    assert "metrics     none recorded (the node has not run here)" in out


def test_a_staked_role_is_the_one_looked_at(node, invoke, contracts, w3):
    node_dir, address = node(drl=300)
    stake(w3, contracts, address, 2, 150)  # validator: 150 of 200
    why = reasons(status(invoke, node_dir))
    assert why["stake-too-low"] == ["stake too low for validator: 150 DRL available, 200 DRL required "
                                    "(`decentrl node stake --role validator`)"]
    stake(w3, contracts, address, 2, 50)
    out = status(invoke, node_dir)
    assert "WHY NO WORK ARRIVES (validator):" in out and "stake-too-low" not in reasons(out)


def test_a_paused_node(node, invoke, contracts, w3):
    node_dir, address = node(drl=200)
    stake(w3, contracts, address, 0, 150)
    send_as(w3, address, contracts.stakes.functions.setNodePaused(True))
    why = reasons(status(invoke, node_dir))
    assert why["paused"] == ["node paused: it asked not to be given work (StakeManager.setNodePaused); unpause it "
                             "to take work again"]
    assert "stake-too-low" not in why  # the stake is fine: only the pause is in the way
    send_as(w3, address, contracts.stakes.functions.setNodePaused(False))
    assert "paused" not in reasons(status(invoke, node_dir))


def test_reputation_below_threshold(node, invoke, contracts, w3, admin):
    node_dir, address = node(drl=200)
    stake(w3, contracts, address, 0, 150)
    reputation = contracts.reputation
    send_as(w3, admin, reputation.functions.grantRole(reputation.functions.REPORTER_ROLE().call(), admin))
    send_as(w3, admin, reputation.functions.record(address, Outcome.REJECTED))
    score = reputation.functions.scoreOf(address).call()
    assert score < 60
    why = reasons(status(invoke, node_dir))
    assert why["reputation-low"] == [f"reputation below threshold: score {score} < 60; no new work until it recovers"]


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "cartpole.json"
    path.write_bytes(DEMO_CARTPOLE.to_bytes())
    return path


def test_an_open_task_with_a_vacant_slot_removes_no_open_tasks(node, invoke, contracts, w3, spec_file):
    worker_dir, worker = node(drl=200)
    stake(w3, contracts, worker, 0, 150)  # sampler
    assert reasons(status(invoke, worker_dir))["no-open-tasks"][0].startswith("no open tasks for sampler:")
    requester_dir, _ = node(drl=2000)
    submitted = invoke(requester_dir, "task", "submit", str(spec_file), "--bounty", "1000", "--rounds", "1")
    assert submitted.exit_code == 0, submitted.output
    out = status(invoke, worker_dir)
    assert "no-open-tasks" not in reasons(out)
    assert set(reasons(out)) == {"not-running"}
    # the requester's own task is no work for itself
    stake(w3, contracts, _address(requester_dir), 0, 150)
    assert "no-open-tasks" in reasons(status(invoke, requester_dir))


def _address(node_dir):
    return next((node_dir / "keystore").glob("0x*.json")).stem


def test_a_running_node_whose_redis_is_down(node, invoke, redis_server, tmp_path):
    """node.json as `node start` writes it (this process stands in for the running node), with a
    Redis that is gone: the reason names it."""
    node_dir, _ = node()
    with dead_port() as port:
        (node_dir / "node.json").write_text(json.dumps({
            "pid": os.getpid(), "roles": ["sampler"], "redis": f"redis://127.0.0.1:{port}/0", "node_name": "gone",
            "rate": {"per_s": 10.0, "burst": 10}, "metrics_port": None, "children": {}}))
        out = status(invoke, node_dir)
    assert f"processes   node running (pid {os.getpid()}, roles sampler)" in out
    why = reasons(out)
    assert why["redis-down"] == ["the node's Redis is unreachable (ConnectionError): no event reaches its workers; "
                                 "see the health lines above"]
    assert "not-running" not in why


def test_a_running_node_whose_store_failed_its_health_check(node, invoke, redis_server):
    import time

    from workers.node.observe.health import write_health

    node_dir, _ = node()
    (node_dir / "node.json").write_text(json.dumps({
        "pid": os.getpid(), "roles": ["trainer"], "redis": redis_server.url, "node_name": "storeless",
        "rate": {"per_s": 10.0, "burst": 10}, "metrics_port": None, "children": {}}))

    def checked(store_ok: bool) -> dict:
        result = {"ok": store_ok, "detail": "put ok, get ok" if store_ok else "IPFS node at /ip4/127.0.0.1/tcp/1/http "
                  "is unreachable (add)", "checked_at": time.time()}
        write_health(node_dir, {"checked_at": time.time(), "interval_s": 60, "services": {"store": result}})
        return reasons(status(invoke, node_dir))

    assert checked(False)["store-down"] == [
        "the node's content store failed its last check (IPFS node at /ip4/127.0.0.1/tcp/1/http is unreachable (add)): "
        "no spec, shard or checkpoint can be fetched or stored; see the health lines above"]
    assert "store-down" not in checked(True)
    (node_dir / "node.json").unlink()  # a stopped node's last check is not news of now
    write_health(node_dir, {"checked_at": time.time(), "interval_s": 60,
                            "services": {"store": {"ok": False, "detail": "gone", "checked_at": time.time()}}})
    assert set(reasons(status(invoke, node_dir))) >= {"not-running"} and "store-down" not in reasons(
        status(invoke, node_dir))


def test_a_running_node_whose_fee_cap_is_under_the_base_fee(node, invoke, redis_server, w3):
    node_dir, _ = node()
    base = w3.eth.get_block("latest")["baseFeePerGas"]
    assert base > 1, "this anvil must run with a base fee"

    def running_with_cap(cap):
        (node_dir / "node.json").write_text(json.dumps({
            "pid": os.getpid(), "roles": ["sampler"], "redis": redis_server.url, "node_name": "capped",
            "rate": {"per_s": 10.0, "burst": 10}, "metrics_port": None, "max_fee_per_gas": cap, "children": {}}))
        return reasons(status(invoke, node_dir))

    assert running_with_cap(1)["fee-cap"] == [
        f"the chain's base fee is {base / 1e9:.9g} gwei, above the node's fee cap of 1e-09 gwei (--max-fee-gwei): it "
        "sends nothing, claims included, until the base fee falls under the cap; raise the cap to send now"]
    assert "fee-cap" not in running_with_cap(base * 10)
    assert "fee-cap" not in running_with_cap(None)  # no cap


def test_reorganisations_the_watcher_found_are_shown(node, invoke):
    """The watcher's counters as its process leaves them (prometheus multiprocess files in
    NODE_DIR/metrics, written here by a child process standing in for it)."""
    import subprocess
    import sys

    from workers.node.observe.metrics import metrics_dir

    node_dir, _ = node()
    assert "reorgs" not in status(invoke, node_dir)
    folder = metrics_dir(node_dir)
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", "from workers.node.observe import metrics; "
                    "metrics.OBSERVER.chain_reorg('registry', 3); metrics.OBSERVER.chain_reorg('registry', 1)"],
                   check=True,
                   env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder), "PYTHONPATH": str(ROOT)})
    assert ("  reorgs     2 chain reorganisations replaced 4 blocks whose events the node had taken (their events "
            "were taken again; deeper than --confirmations: give more)") in status(invoke, node_dir)
