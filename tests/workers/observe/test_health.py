"""The health check against real services: anvil with the protocol, Redis, the embedded store,
Celery workers (control ping) and the watcher process; what fails is restarted where the node
can, and everything lands in health.json and the metrics endpoint."""
import json
import os
import signal
import time

import pytest
from observe_support import HERE, REDIS_PORTS, STORE_ENV, scrape, serve_metrics, total

from tests.ports import dead_port
from tests.waiting import wait_for, wait_ready
from workers.node.config import NodeConfig
from workers.node.observe.health import HealthChecker, read_health
from workers.node.processes import redis_service
from workers.node.processes.supervisor import Supervisor
from workers.node.queues.celery_app import create_app


@pytest.fixture(scope="module")
def health_node(redis_server, tmp_path_factory, anvil, deployment_file, w3):
    node_dir = tmp_path_factory.mktemp("health-node")
    config = NodeConfig(redis_url=redis_server.url.rsplit("/", 1)[0] + "/2", node_name="observe-health",
                        handler_modules=("observe_handlers",))
    sup = Supervisor(config, node_dir, ("sampler", "validator"), watcher="observe_handlers:idle_watcher",
                     concurrency=1, env={"PYTHONPATH": str(HERE), STORE_ENV: str(node_dir / "store")})
    sup.start()
    try:
        app = create_app(config)
        wait_ready(app, "sample", timeout=90)
        wait_ready(app, "validate", timeout=90)
        yield sup
    finally:
        sup.stop()


def checker(sup, anvil, deployment_file, address, **kw):
    return HealthChecker(sup, anvil.http_url, str(deployment_file), address, str(sup.node_dir / "store"), **kw)


def test_a_healthy_node_is_written_to_health_json_and_exported(health_node, anvil, deployment_file, w3):
    address = w3.eth.accounts[3]
    # ping_timeout_s=5: a loaded host's nice-10 worker
    doc = checker(health_node, anvil, deployment_file, address, ping_timeout_s=5).check()
    assert {name: r["ok"] for name, r in doc["services"].items()} == \
        {"chain": True, "redis": True, "store": True, "sampler": True, "validator": True, "watcher": True}
    assert doc["services"]["chain"]["detail"].startswith("chain 31337, head block ")
    assert "answers Celery ping" in doc["services"]["sampler"]["detail"]
    assert doc["actions"] == []
    account = doc["account"]
    assert (account["address"], account["reputation"], account["threshold"], account["claimable_wei"]) == \
        (address, 70, 60, 0)
    assert account["roles"]["sampler"] == {"eligible": False, "available_wei": 0, "required_wei": 100 * 10**18,
                                           "reason": "stake too low: 0 DRL available for sampler, 100 DRL required"}
    assert read_health(health_node.node_dir) == json.loads(json.dumps(doc))

    server, port = serve_metrics(health_node.node_dir)
    try:
        samples = scrape(port)
    finally:
        server.shutdown()
        server.server_close()
    for service in ("chain", "redis", "store", "sampler", "validator", "watcher"):
        assert total(samples, "decentrl_up", service=service) == 1
    assert total(samples, "decentrl_reputation_score") == 70
    assert total(samples, "decentrl_reputation_threshold") == 60
    assert total(samples, "decentrl_claimable_drl") == 0
    assert total(samples, "decentrl_eligible", role="sampler") == 0
    assert total(samples, "decentrl_chain_head_block") == doc["services"]["chain"]["head"] > 0
    assert abs(total(samples, "decentrl_health_checked_timestamp_seconds") - doc["checked_at"]) < 1e-3


def test_wrong_chain_and_unreachable_rpc_fail_the_chain_check(health_node, anvil, deployment_file, tmp_path, w3):
    record = json.loads(deployment_file.read_text())
    record["chainId"] = 1
    other = tmp_path / "mainnet.json"
    other.write_text(json.dumps(record))
    doc = checker(health_node, anvil, other, w3.eth.accounts[3]).check()
    assert doc["services"]["chain"]["ok"] is False
    assert "wrong network: deployment is for chain 1" in doc["services"]["chain"]["detail"]
    assert doc["account"] is None and doc["services"]["redis"]["ok"]

    with dead_port() as port:
        dead_rpc = f"http://127.0.0.1:{port}"
        doc = HealthChecker(health_node, dead_rpc, str(deployment_file), w3.eth.accounts[3],
                            str(health_node.node_dir / "store")).check()
    assert doc["services"]["chain"]["ok"] is False
    assert doc["services"]["chain"]["detail"].startswith(f"RPC at {dead_rpc} unreachable: ")


def test_the_abis_are_bound_once_and_the_chain_still_checked_every_time(health_node, anvil, deployment_file,
                                                                        tmp_path, w3, monkeypatch):
    from workers.chain import deployment as deployments

    bound = []
    monkeypatch.setattr(deployments, "contracts_for",
                        lambda *a, real=deployments.contracts_for: bound.append(1) or real(*a))
    path = tmp_path / "dev.json"
    path.write_text(deployment_file.read_text())
    check = checker(health_node, anvil, path, w3.eth.accounts[3])

    def chain_ok():
        return check.check()["services"]["chain"]

    assert chain_ok()["ok"] and chain_ok()["ok"] and len(bound) == 1

    registry = json.loads(path.read_text())["contracts"]["TaskRegistry"]
    code = w3.eth.get_code(registry)
    w3.provider.make_request("anvil_setCode", [registry, "0x"])  # a reset chain, as far as the check sees
    try:
        result = chain_ok()
    finally:
        w3.provider.make_request("anvil_setCode", [registry, "0x" + code.hex()])
    assert not result["ok"] and result["detail"].startswith(f"no contract at TaskRegistry {registry}")
    assert chain_ok()["ok"] and len(bound) == 2  # after a failed check the record is bound afresh

    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "chainId": 1}))  # the record changed: read and bound again
    result = chain_ok()
    assert not result["ok"] and "wrong network: deployment is for chain 1" in result["detail"]
    path.write_text(json.dumps(record))
    assert chain_ok()["ok"] and len(bound) == 3


def test_a_dead_worker_and_a_hung_worker_are_restarted(health_node, anvil, deployment_file, w3):
    check = checker(health_node, anvil, deployment_file, w3.eth.accounts[3], startup_grace_s=0, ping_timeout_s=1)
    sampler, validator = health_node.children["sampler"], health_node.children["validator"]
    dead_pid, hung_pid = sampler.pid, validator.pid
    os.kill(dead_pid, signal.SIGKILL)
    wait_for(lambda: not sampler.alive(), timeout=5)
    os.kill(hung_pid, signal.SIGSTOP)  # alive, but answers nothing
    doc = check.check()
    assert "restarted sampler (process had exited)" in doc["actions"]
    assert "restarted validator (no answer to ping)" in doc["actions"]
    assert doc["services"]["validator"]["ok"] is False and doc["services"]["validator"]["detail"].endswith("restarted")
    assert sampler.pid != dead_pid and validator.pid != hung_pid and sampler.alive() and validator.alive()
    assert doc["processes"]["validator"]["restarts"] == validator.restarts >= 1
    app = create_app(health_node.config)
    wait_ready(app, "sample", timeout=90)
    wait_ready(app, "validate", timeout=90)
    again = checker(health_node, anvil, deployment_file, w3.eth.accounts[3]).check()
    assert again["services"]["sampler"]["ok"] and again["services"]["validator"]["ok"] and again["actions"] == []


def test_redis_down_is_reported_and_an_embedded_one_restarted_on_its_port(health_node, anvil, deployment_file, w3,
                                                                          tmp_path):
    from workers.node.run import restart_redis

    # from the top of the range: the session servers take the bottom, so no other xdist worker's
    # start takes this port while it is stopped
    own = redis_service.start_embedded(tmp_path / "redis", ports=reversed(REDIS_PORTS))
    holder = {"service": own}
    try:
        sup = Supervisor(NodeConfig(redis_url=own.url, node_name="observe-redis"), tmp_path / "node", ())
        clients = [own.client() for _ in range(3)]
        assert all(c.ping() for c in clients)
        os.kill(own.pid, signal.SIGKILL)  # a crash with clients connected: its port is left in TIME_WAIT
        own.process.wait()
        down = checker(sup, anvil, deployment_file, w3.eth.accounts[3]).check()
        assert down["services"]["redis"]["ok"] is False
        assert down["services"]["redis"]["detail"].startswith(f"Redis at {own.url}: ConnectionError")
        restarted = checker(sup, anvil, deployment_file, w3.eth.accounts[3],
                            restart_redis=lambda: restart_redis(holder)).check()
        assert restarted["actions"] == ["restarted redis"] and restarted["services"]["redis"]["ok"]
        assert holder["service"].url == own.url and holder["service"].pid != own.pid
    finally:
        holder["service"].stop()


def test_the_check_runs_when_due():
    check = HealthChecker(None, "http://x", "d.json", "0x0", "/tmp", interval_s=60)
    assert check.due(time.time())
    check.last_run = 1000.0
    assert not check.due(1059.0) and check.due(1060.0)


def test_a_busy_worker_still_answers_the_ping(health_node, anvil, deployment_file, w3):
    """The control ping is answered by the worker's main process, so a long handler in its only
    pool process does not make it look hung (and get restarted)."""
    import uuid
    from types import SimpleNamespace

    import redis

    from workers.node.queues.tasks import make_enqueue

    app = create_app(health_node.config)
    key = f"0x{uuid.uuid4().hex * 2}:0"
    make_enqueue(app, roles=["sampler"])(SimpleNamespace(name="Rollout", key=key, block=1,
                                                         args={"taskId": 1, "seed": 0, "steps": 10, "hold": 12}))
    client = redis.Redis.from_url(health_node.config.redis_url)
    lease = f"decentrl:{health_node.config.node_name}:lease:sampler:{key}"
    wait_for(lambda: client.exists(lease), timeout=30)  # the handler is running in the pool
    # the ping waits up to 5 s (a loaded host); the handler holds its process for 12
    doc = checker(health_node, anvil, deployment_file, w3.eth.accounts[3], startup_grace_s=0, ping_timeout_s=5).check()
    assert client.exists(lease), "the handler must still be running during the check"
    assert doc["services"]["sampler"]["ok"] and doc["actions"] == []
    wait_for(lambda: client.llen(f"obs:ran:{key}"), timeout=30)


def test_a_worker_busy_with_a_job_is_not_restarted_for_missing_the_ping(health_node, anvil, deployment_file, w3):
    """A worker in Celery's solo pool (workers.localnet's nodes, the demo's) answers no ping while it
    runs a handler: one holding a job lease is busy, not hung, and is left to finish its job (it was
    once killed mid-verification, and its validator missed the round's vote). Without a lease it is
    restarted as before."""
    import redis

    check = checker(health_node, anvil, deployment_file, w3.eth.accounts[3], startup_grace_s=0, ping_timeout_s=1)
    validator = health_node.children["validator"]
    pid = validator.pid
    client = redis.Redis.from_url(health_node.config.redis_url)
    lease = health_node.config.key("lease", "validator", "0xabc:0")
    client.set(lease, "token", px=60_000)
    os.kill(pid, signal.SIGSTOP)  # answers no ping, as a solo worker inside a handler
    try:
        doc = check.check()
        assert doc["actions"] == [] and validator.pid == pid, doc["actions"]
        assert doc["services"]["validator"]["ok"] and "busy: a validator job holds its lease" in \
            doc["services"]["validator"]["detail"]
        client.delete(lease)
        doc = check.check()
        assert "restarted validator (no answer to ping)" in doc["actions"] and validator.pid != pid
    finally:
        if validator.pid == pid:
            os.kill(pid, signal.SIGCONT)
    app = create_app(health_node.config)
    wait_ready(app, "validate", timeout=90)
