"""The JSON encoding and the HTTP server on a stand-in API (the real one is test_real_run.py):
amounts as wei strings with a DRL twin, enums as names, bytes as hex; unknown paths and tasks
404, a failing chain 502 with its message; only GET and HEAD are served; the page is served with
a policy that allows no outside source."""
import json
import math
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest

from workers.explorer.api import NotFound, jsonable
from workers.explorer.server import ExplorerServer
from workers.localnet.chain import free_port
from workers.protocol import Role, Verdict


@dataclass
class Row:
    role: Role
    bounty_wei: int
    by_role_wei: dict
    split_wei: tuple
    root: bytes
    mean: float


def test_jsonable():
    assert jsonable(Row(Role.TRAINER, 1234 * 10**18 + 1, {Role.SAMPLER: 2**60, 7: 1}, (2**60, 0), b"\xab\x01",
                        math.nan)) == {
        "role": "trainer", "bounty_wei": "1234000000000000000001", "bounty_drl": "1,234 DRL",
        "by_role_wei": {"sampler": str(2**60), "7": "1"}, "split_wei": [str(2**60), "0"], "root": "0xab01",
        "mean": None}
    assert jsonable({Verdict.ACCEPTED: [1, (2, 3)], 7: "x"}) == {"accepted": [1, [2, 3]], "7": "x"}


class StandInApi:
    lock = threading.Lock()

    def network(self):
        return {"tasks": [{"task_id": 1, "spec_cid": "<b>x</b>"}]}

    def task(self, task_id):
        if task_id != 1:
            raise NotFound(f"task {task_id} not found")
        return {"task_id": 1}

    def curve(self, task_id):
        raise ConnectionError("RPC went away")

    def node(self, address):
        raise NotFound(f"no node {address}")


@pytest.fixture(scope="module")
def server():
    srv = ExplorerServer(StandInApi(), port=free_port(range(8860, 8865), False)).start()
    yield srv
    srv.stop()


def fetch(server, path, method="GET"):
    request = urllib.request.Request(server.url.rstrip("/") + path, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_api_routes(server):
    status, headers, body = fetch(server, "/api/network")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert json.loads(body)["tasks"][0]["spec_cid"] == "<b>x</b>"
    assert fetch(server, "/api/tasks/1")[0] == 200
    status, _, body = fetch(server, "/api/tasks/2")
    assert status == 404 and json.loads(body) == {"error": "task 2 not found"}
    status, _, body = fetch(server, "/api/tasks/1/curve")
    assert status == 502 and json.loads(body)["error"] == "ConnectionError: RPC went away"
    assert fetch(server, "/api/nodes/0x" + "ab" * 20)[0] == 404
    for path in ("/api/nodes/0x12", "/api/tasks/abc", "/api/tasks/-1", "/api/anything", "/etc/passwd"):
        assert fetch(server, path)[0] == 404, path


def test_read_only(server):
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"):
        status, headers, _ = fetch(server, "/api/network", method)
        assert status == 405 and headers["Allow"] == "GET, HEAD", method


def test_head_answers_as_get_does_without_a_body(server):
    for path in ("/", "/api/network", "/api/tasks/2", "/api/tasks/1/curve", "/nowhere"):
        got, head = fetch(server, path), fetch(server, path, "HEAD")
        assert (head[0], head[1]["Content-Type"], head[1]["Content-Length"]) == (
            got[0], got[1]["Content-Type"], str(len(got[2]))), path
        assert head[2] == b"", path


def test_a_request_for_another_host_name_is_refused(server):
    """DNS rebinding: a page served as attacker.example, whose name then resolves to 127.0.0.1,
    would reach the explorer with that Host."""
    import http.client

    port = server.httpd.server_address[1]
    for host, status in [("attacker.example", 403), (f"attacker.example:{port}", 403), (f"localhost:{port}", 200),
                         (f"127.0.0.1:{port}", 200), ("[::1]", 200)]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/api/network", headers={"Host": host})
        answer = connection.getresponse()
        assert answer.status == status, host
        answer.read()
        connection.close()


def test_a_failing_chain_is_one_log_line(server, caplog):
    with caplog.at_level("DEBUG", logger="workers.explorer.server"):
        assert fetch(server, "/api/tasks/1/curve")[0] == 502
    [warning] = [r for r in caplog.records if r.levelname == "WARNING"]
    assert warning.getMessage() == "explorer: /api/tasks/1/curve failed: ConnectionError: RPC went away"
    assert warning.exc_info is None  # the traceback only at DEBUG


def test_page_has_no_outside_sources(server):
    status, headers, body = fetch(server, "/")
    page = body.decode()
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    assert ".innerHTML" not in page  # every value goes in as a text node
    assert fetch(server, "/", "HEAD")[0] == 200
