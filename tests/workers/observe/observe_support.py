"""Constants and helpers of the observability tests (a plain module: `from conftest import` is
unsafe under xdist). Ports: anvil 8820-8829, Redis 16445-16449, metrics 9400-9419."""
import json
import re
import time
import urllib.request

ANVIL_PORTS = range(8820, 8830)
REDIS_PORTS = range(16445, 16450)
METRICS_PORTS = range(9400, 9420)
PASSWORD = "observe test password"
TOKEN = 10**18


def account_of(output: str) -> str:
    return re.search(r"^account (0x[0-9a-fA-F]{40})$", output, re.M).group(1)


def wait_for(predicate, timeout, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


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
