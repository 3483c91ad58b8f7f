"""Constants and helpers of the observability tests (a plain module: `from conftest import` is
unsafe under xdist). Ports: anvil 8820-8829, Redis 16445-16449, metrics 9400-9419."""
import json
import re
import time
import urllib.request
from pathlib import Path

from workers.localnet.chain import TOKEN

HERE = Path(__file__).resolve().parent

ANVIL_PORTS = range(8820, 8826)
DEMO_ANVIL_PORTS = range(8826, 8830)
REDIS_PORTS = range(16445, 16450)
METRICS_PORTS = range(9400, 9420)
PASSWORD = "observe test password"
STORE_ENV = "OBSERVE_STORE_DIR"
"""Where observe_handlers' "Rollout" stores (the tests' Supervisors set it for their workers)."""


def scrape(port: int) -> dict:
    """GET /metrics; {(sample name, frozenset(labels)): value} parsed by prometheus_client's parser."""
    from prometheus_client.parser import text_string_to_metric_families

    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: dict, name: str, **labels) -> float:
    """Sum of the samples named `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


def json_lines(path) -> list[dict]:
    """The JSON lines of a log file (those starting with "{")."""
    return [json.loads(line) for line in open(path) if line.startswith("{")]


def start_anvil(ports=ANVIL_PORTS, tries: int = 5):
    """An anvil on the first free port of `ports`. Another xdist worker may take the port between
    the probe and anvil's bind: ours then exits, possibly after the port answered (the other's
    anvil), so it must still be running a moment later; else try the next free port."""
    from workers.localnet.chain import Anvil, LocalNetError

    for attempt in range(tries):
        try:
            node = Anvil(ports)
            time.sleep(0.5)
            if node.proc.poll() is None:
                return node
            node.stop()
        except LocalNetError:
            pass
        if attempt == tries - 1:
            raise LocalNetError(f"no anvil could start on {ports} in {tries} tries")
        time.sleep(0.2 + 0.3 * attempt)


def serve_metrics(node_dir):
    """metrics.serve on a free port of this xdist worker's part of METRICS_PORTS (retried: another
    process may still take the port between the probe and the bind); returns (server, port)."""
    from tests.ports import worker_part
    from workers.localnet.chain import free_port
    from workers.node.observe import metrics

    for attempt in range(5):
        port = free_port(worker_part(METRICS_PORTS), fallback=False)
        try:
            return metrics.serve(node_dir, port)[0], port
        except OSError:
            if attempt == 4:
                raise
            time.sleep(0.2)


def reasons(output: str) -> dict[str, list[str]]:
    """`node status`'s why-no-work lines: {code: [text, ...]}."""
    found: dict[str, list[str]] = {}
    for code, text in re.findall(r"^  \[([a-z-]+)\] (.*)$", output, re.M):
        found.setdefault(code, []).append(text)
    return found


def status(invoke, node_dir) -> str:
    result = invoke(node_dir, "node", "status")
    assert result.exit_code == 0, result.output
    return result.output


def send_as(w3, address, call):
    w3.provider.make_request("anvil_impersonateAccount", [address])
    assert w3.eth.wait_for_transaction_receipt(call.transact({"from": address})).status == 1


def stake(w3, contracts, address, role, drl):
    send_as(w3, address, contracts.token.functions.approve(contracts.stakes.address, drl * TOKEN))
    send_as(w3, address, contracts.stakes.functions.stake(role, drl * TOKEN))
