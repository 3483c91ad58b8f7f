"""workers.chain.rpc: the node's HTTP client reads the environment's connection settings once,
keeps one connection per thread (reopened when the chain closed it), raw_request gives the
node's own answer or its error, and raw_batch several answers for one round trip."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from web3.exceptions import Web3RPCError

from tests.ports import dead_port
from tests.waiting import wait_for
from workers.chain.errors import is_retryable
from workers.chain.rpc import environment_session, http_w3, raw_batch, raw_request, result_of


def test_the_session_takes_the_environments_proxy_once_and_then_ignores_the_environment(monkeypatch):
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    session = environment_session("http://rpc.example:8545")
    assert session.proxies["http"] == "http://proxy.example:3128"
    assert session.trust_env is False  # requests no longer re-reads os.environ per request
    monkeypatch.setenv("HTTP_PROXY", "http://other.example:1")
    assert session.proxies["http"] == "http://proxy.example:3128"


def test_no_proxy_still_exempts_the_chains_host(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    assert not environment_session("http://127.0.0.1:8545").proxies.get("http")


def test_the_client_sends_through_its_environment_session(anvil, monkeypatch):
    # a proxy set after the client was made is not used: the settings were read at creation
    w3 = http_w3(anvil.http_url)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert w3.eth.chain_id == 31337 and w3.eth.block_number >= 0


def test_raw_request_returns_the_nodes_json(w3):
    assert int(raw_request(w3, "eth_blockNumber", []), 16) == w3.eth.block_number
    assert raw_request(w3, "eth_getLogs", [{"fromBlock": "0x0", "toBlock": "0x0",
                                           "address": ["0x" + "00" * 20]}]) == []


def test_raw_request_raises_the_nodes_error(w3):
    with pytest.raises(Web3RPCError, match="eth_noSuchMethod"):
        raw_request(w3, "eth_noSuchMethod", [])
    with pytest.raises(Web3RPCError, match="eth_getLogs"):
        raw_request(w3, "eth_getLogs", [{"fromBlock": "not a block"}])


def test_raw_batch_answers_each_call_in_order_with_its_own_error(w3):
    head, missing, chain = raw_batch(w3, [("eth_blockNumber", []), ("eth_noSuchMethod", []), ("eth_chainId", [])])
    assert int(result_of("eth_blockNumber", head), 16) == w3.eth.block_number
    assert int(result_of("eth_chainId", chain), 16) == 31337
    with pytest.raises(Web3RPCError, match="eth_noSuchMethod"):
        result_of("eth_noSuchMethod", missing)


class FakeChain(BaseHTTPRequestHandler):
    """A JSON-RPC endpoint that answers every request with result "0x1" (or `status`), counts
    the connections it accepted and the requests it read; it closes a connection after one
    answer when `close_after_answer`, without saying so (as a chain's idle keep-alive timeout
    does), and reads a connection's second request and closes without answering it when
    `drop_second` (a chain that failed mid-request). A batch gets one answer per request, or one
    error object when `refuse_batches`."""

    protocol_version = "HTTP/1.1"
    connections = requests_read = closed = 0
    close_after_answer = drop_second = refuse_batches = False
    status = 200

    def setup(self):
        super().setup()
        type(self).connections += 1
        self.read_here = 0

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests_read += 1
        self.read_here += 1
        if self.drop_second and self.read_here == 2:
            self.close_connection = True
            return
        if isinstance(request, list) and self.refuse_batches:
            answer = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "batches not allowed"}}
        elif isinstance(request, list):
            answer = [{"jsonrpc": "2.0", "id": r["id"], "result": "0x1"} for r in reversed(request)]
        else:
            answer = {"jsonrpc": "2.0", "id": request["id"], "result": "0x1"}
        body = json.dumps(answer).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = self.close_after_answer

    def log_message(self, *args):
        pass


class FakeChainServer(ThreadingHTTPServer):
    """Counts the connections it has closed (in its handler class's `closed`)."""

    def shutdown_request(self, request):
        super().shutdown_request(request)
        self.RequestHandlerClass.closed += 1


@pytest.fixture
def fake_chain():
    handler = type("Chain", (FakeChain,), {})
    server = FakeChainServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield handler, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_one_kept_alive_connection_per_thread(fake_chain):
    handler, url = fake_chain
    w3 = http_w3(url)
    for _ in range(5):
        assert raw_request(w3, "eth_blockNumber", []) == "0x1"
    assert handler.connections == 1
    other = threading.Thread(target=lambda: [raw_request(w3, "eth_blockNumber", []) for _ in range(3)])
    other.start()
    other.join()
    assert handler.connections == 2


def test_a_batch_goes_over_the_kept_alive_connection_and_its_answers_are_put_in_order(fake_chain):
    handler, url = fake_chain
    w3 = http_w3(url)
    raw_request(w3, "eth_blockNumber", [])
    answers = raw_batch(w3, [("eth_blockNumber", []), ("eth_gasPrice", [])])  # answered in reverse order
    assert [a["id"] for a in answers] == sorted(a["id"] for a in answers)
    assert (handler.connections, handler.requests_read) == (1, 2)


def test_a_chain_that_refuses_batches_raises_its_error(fake_chain):
    handler, url = fake_chain
    handler.refuse_batches = True
    with pytest.raises(Web3RPCError, match="batches not allowed"):
        raw_batch(http_w3(url), [("eth_blockNumber", []), ("eth_gasPrice", [])])


def test_a_connection_the_chain_closed_while_idle_is_reopened(fake_chain):
    handler, url = fake_chain
    handler.close_after_answer = True
    w3 = http_w3(url)
    answers = []
    for method in ("eth_blockNumber", "eth_sendRawTransaction", "eth_sendRawTransaction"):
        answers.append(raw_request(w3, method, []))  # a send is not retried: noticed before it goes
        wait_for(lambda: handler.closed == len(answers), timeout=5)  # closed while the connection is idle
    assert answers == ["0x1"] * 3
    assert (handler.connections, handler.requests_read) == (3, 3)


def test_a_read_that_fails_on_a_reused_connection_is_asked_again_on_a_new_one(fake_chain):
    handler, url = fake_chain
    handler.drop_second = True
    w3 = http_w3(url)
    assert [raw_request(w3, "eth_blockNumber", []) for _ in range(2)] == ["0x1"] * 2
    assert (handler.connections, handler.requests_read) == (2, 3)


def test_a_transaction_is_never_sent_twice(fake_chain):
    handler, url = fake_chain
    handler.drop_second = True
    w3 = http_w3(url)
    raw_request(w3, "eth_blockNumber", [])
    with pytest.raises(ConnectionError):
        raw_request(w3, "eth_sendRawTransaction", ["0x02"])
    assert handler.requests_read == 2  # read once, failed, not sent again


def test_an_answer_that_is_not_200_raises_http_error(fake_chain):
    handler, url = fake_chain
    handler.status = 503
    with pytest.raises(requests.HTTPError, match="503"):
        raw_request(http_w3(url), "eth_blockNumber", [])


def test_an_unreachable_chain_raises_a_retryable_connection_error():
    with dead_port() as port, pytest.raises(ConnectionError) as raised:
        raw_request(http_w3(f"http://127.0.0.1:{port}"), "eth_blockNumber", [])
    assert is_retryable(raised.value)


def test_a_chain_with_no_route_to_it_raises_a_retryable_connection_error(monkeypatch):
    """A host whose link is down gets EHOSTUNREACH from connect(): a plain OSError, which the
    node's job would take for a failure; it is a ConnectionError like a refused connection."""
    import errno
    import http.client

    def no_route(self):
        raise OSError(errno.EHOSTUNREACH, "No route to host")

    url = "http://10.0.0.7:8545"
    monkeypatch.setattr(http.client.HTTPConnection, "connect", no_route)
    with pytest.raises(ConnectionError, match=f"No route to host: {url}") as raised:
        raw_request(http_w3(url), "eth_blockNumber", [])
    assert is_retryable(raised.value) and raised.value.errno == errno.EHOSTUNREACH


def test_a_proxy_set_at_creation_is_used(fake_chain, monkeypatch):
    # the keep-alive transport would reach the chain directly; the proxy must be honoured
    _, url = fake_chain
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with pytest.raises(requests.exceptions.ProxyError):
        raw_request(http_w3(url), "eth_blockNumber", [])
