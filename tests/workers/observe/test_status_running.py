"""A real `decentrl node start` (watcher and a prefork sampler worker, Redis in this suite's range,
metrics on 127.0.0.1): its health check lands in health.json, its metrics endpoint answers, and
`node status` shows processes, each service's health with the check time, key metrics, and the
rate limit as the reason no work arrives once the node's claim bucket is drained."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from observe_support import METRICS_PORTS, PASSWORD, reasons, scrape, stake, status, total

from tests.ports import worker_part
from tests.waiting import wait_for
from workers.localnet.chain import free_port
from workers.node.observe.health import read_health
from workers.node.queues.ratelimit import TokenBucket

ROOT = Path(__file__).resolve().parents[3]


def test_running_node_health_metrics_and_rate_limit(node, invoke, anvil, deployment_file, contracts, w3,
                                                   redis_server):
    node_dir, address = node(drl=200)
    stake(w3, contracts, address, 0, 150)
    redis_url = redis_server.url.rsplit("/", 1)[0] + "/4"
    port = free_port(worker_part(METRICS_PORTS), fallback=False)
    env = {**os.environ, "DECENTRL_KEYSTORE_PASSWORD": PASSWORD, "PYTHONPATH": str(ROOT), "REDIS_URL": redis_url}
    proc = subprocess.Popen([sys.executable, "-m", "workers.cli", "--rpc", anvil.http_url, "--deployment",
                             str(deployment_file), "--node-dir", str(node_dir), "node", "start", "--roles", "sampler",
                             "--concurrency", "2", "--metrics-port", str(port), "--health-interval", "2"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        def sampler_healthy():
            assert proc.poll() is None, proc.stdout.read()
            doc = read_health(node_dir)
            return doc and doc["services"].get("sampler", {}).get("ok") and doc

        healthy = wait_for(sampler_healthy, timeout=120, interval=0.2)
        assert all(r["ok"] for r in healthy["services"].values()), healthy["services"]
        assert set(healthy["services"]) == {"chain", "redis", "store", "sampler", "claims", "watcher"}
        assert healthy["metrics_port"] == port and healthy["account"]["reputation"] == 70

        samples = scrape(port)
        assert total(samples, "decentrl_up", service="sampler") == 1
        assert total(samples, "decentrl_eligible", role="sampler") == 1
        assert total(samples, "decentrl_stake_available_drl", role="sampler") == 150
        watcher = healthy["services"]["watcher"]
        assert total(samples, "decentrl_watcher_block") == watcher["block"] >= contracts.block
        assert watcher["detail"].endswith(f", processed up to block {watcher['block']}")

        out = status(invoke, node_dir)
        assert f"processes   node running (pid {proc.pid}, roles sampler)" in out
        assert "health      last check 20" in out and "every 2 s" in out
        assert "  chain      ok   chain 31337, head block " in out
        assert "  sampler    ok   pid " in out and "answers Celery ping" in out
        assert f"  metrics    http://127.0.0.1:{port}/metrics" in out
        # key metrics (their values depend on whether another test left an open task to claim)
        assert re.search(r"^metrics     tasks: .*; running now \d+$", out, re.M)
        assert re.search(r"^  chain      tx sent \d+, gas used [\d,]+, failures \d+$", out, re.M)
        assert re.search(r"^  work       env steps \d+", out, re.M) and "  store      put " in out
        assert "rate-limited" not in reasons(out)

        state = json.loads((node_dir / "node.json").read_text())
        bucket = TokenBucket(__import__("redis").Redis.from_url(redis_url), f"decentrl:{state['node_name']}:rate",
                             state["rate"]["per_s"], state["rate"]["burst"])
        booked_at = time.time()
        for _ in range(state["rate"]["burst"] + 100):  # 100 claims booked past the burst: 10 s at 10/s
            bucket.reserve()
        why = reasons(status(invoke, node_dir))
        elapsed = time.time() - booked_at  # the booking and `status` itself (seconds on a loaded host)
        assert len(why["rate-limited"]) == 1
        assert why["rate-limited"][0].startswith("rate limit hit: claims are booked ")
        assert why["rate-limited"][0].endswith(" s ahead (10 new tasks/s, burst 10)")
        booked = float(why["rate-limited"][0].split("booked ")[1].split(" s")[0])
        assert 10 - elapsed - 0.1 < booked <= 10.1  # 10 s ahead when booked, less the time since (to 0.1 s)
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert f"metrics on http://127.0.0.1:{port}/metrics" in out
    # stopped: the last results stay, marked as such
    assert "(node not running: last results)" in status(invoke, node_dir)


def test_a_metrics_port_in_use_stops_the_node_before_it_starts(node, invoke, redis_server, monkeypatch):
    import socket

    node_dir, _ = node()
    port = free_port(worker_part(METRICS_PORTS), fallback=False)
    monkeypatch.setenv("REDIS_URL", redis_server.url.rsplit("/", 1)[0] + "/5")
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", port))
        taken.listen()
        result = invoke(node_dir, "node", "start", "--roles", "sampler", "--metrics-port", str(port))
    assert result.exit_code == 1
    assert f"cannot serve metrics on 127.0.0.1:{port}: Address already in use" in result.output
    assert not (node_dir / "node.json").exists() and not (node_dir / "logs").exists()
