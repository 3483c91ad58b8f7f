"""The node's HTTP connection to its chain."""
from __future__ import annotations

import errno
import http.client
import os
import select
import threading
from urllib.parse import urlsplit

import requests
from requests.utils import get_netrc_auth
from web3 import Web3
from web3.exceptions import Web3RPCError

# Only answers that cannot change while a node runs: web3 validates every call and transaction
# against the chain id, which otherwise costs one eth_chainId round trip each time.
CACHEABLE = {"eth_chainId", "net_version", "web3_clientVersion"}
UNREACHABLE = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN})
"""Socket errors of a route gone (the host's link down, the chain's host away): the socket raises
them as a plain OSError, not a ConnectionError, though they pass like a refused connection."""


def is_local_url(url: str) -> bool:
    """Whether the RPC endpoint is on this machine (a local node, anvil), not someone's service."""
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def http_w3(url: str, timeout: float = 30.0) -> Web3:
    """A Web3 over HTTP with a `timeout` per request and the chain id asked once."""
    return Web3(ChainHTTPProvider(url, request_kwargs={"timeout": timeout}, session=environment_session(url),
                                  cache_allowed_requests=True, cacheable_requests=CACHEABLE))


class ChainHTTPProvider(Web3.HTTPProvider):
    """web3.py's HTTPProvider, posting through one keep-alive http.client connection per thread
    (and process) when the chain is plain http:// and the session adds nothing (no proxy, auth or
    client certificate): a request through requests and urllib3 took ~1.0 ms of CPU against
    ~0.3 ms here, and every node process makes some on every block; batches (raw_batch) go the
    same way. Otherwise (https: requests' certificate bundle decides) web3.py's own path.

    A connection the chain closed while idle is noticed before reuse and reopened (urllib3's
    check); a read that still fails on a reused connection is asked once more on a new one, a
    transaction is never sent twice. Errors are the socket's, ConnectionError and TimeoutError
    (retryable for the node's handlers; a route gone, UNREACHABLE, is raised as a ConnectionError
    too: a job that met its host's link down is retried, not failed); an answer other than 200
    raises requests.HTTPError, as web3.py's path does. web3.py's retries of timed-out reads are
    not repeated: handlers retry."""

    SENDS = frozenset({"eth_sendRawTransaction", "eth_sendTransaction"})

    def __init__(self, endpoint_uri: str, session: requests.Session, **kwargs):
        super().__init__(endpoint_uri, session=session, **kwargs)
        url = urlsplit(str(self.endpoint_uri))
        self._lean = (url.scheme == "http" and not session.proxies.get("http") and not session.proxies.get("all")
                      and session.auth is None and session.cert is None)
        self._url = url
        self._path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        self._headers = self.get_request_kwargs()["headers"]  # web3.py builds them anew per request
        self._local = threading.local()

    def _make_request(self, method, request_data: bytes) -> bytes:
        if not self._lean:
            return super()._make_request(method, request_data)
        conn = self._connection()
        for attempt in (1, 2):
            reused = conn.sock is not None
            try:
                return self._post(conn, request_data)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                if attempt == 2 or not reused or method in self.SENDS:
                    raise
            except OSError as error:
                conn.close()
                if error.errno in UNREACHABLE:  # retryable like any ConnectionError, which it is
                    raise ConnectionError(error.errno, f"{error.strerror}: {self.endpoint_uri}") from error
                raise
            except BaseException:
                conn.close()  # a half-read answer must not be read as the next request's
                raise

    def make_batch_request(self, batch_requests):
        """web3.py's batch, through the keep-alive connection when the chain is plain http://."""
        if not self._lean:
            return super().make_batch_request(batch_requests)
        response = self.decode_rpc_response(self._make_request("batch", self.encode_batch_rpc_request(batch_requests)))
        if not isinstance(response, list):
            return response  # the node refused the batch as a whole: one error object
        return sorted(response, key=lambda answer: answer.get("id", 0))

    def _post(self, conn: http.client.HTTPConnection, request_data: bytes) -> bytes:
        conn.request("POST", self._path, body=request_data, headers=self._headers)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise requests.HTTPError(f"{response.status} {response.reason} for url: {self.endpoint_uri}")
        return body

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():  # a forked child opens its own
            timeout = self._request_kwargs.get("timeout", 30.0)
            conn = http.client.HTTPConnection(self._url.hostname, self._url.port, timeout=timeout)
            self._local.conn, self._local.pid = conn, os.getpid()
        elif conn.sock is not None and select.select([conn.sock], [], [], 0)[0]:
            conn.close()  # an idle connection with something to read was closed by the chain
        return conn


def environment_session(url: str) -> requests.Session:
    """A requests session for `url` with the environment's proxy, CA bundle and netrc settings
    read once, now. requests otherwise re-reads them on every request (a scan of os.environ and
    the proxy bypass rules), which took a third of an eth_blockNumber's CPU in a node process and
    more under load, on every RPC of every process. web3.py uses an explicit session from every
    thread that shares the provider; requests' connection pool is thread-safe."""
    session = requests.Session()
    settings = session.merge_environment_settings(url, {}, None, None, None)
    session.proxies.update(settings["proxies"] or {})
    session.verify = settings["verify"]
    session.cert = settings["cert"]
    session.auth = get_netrc_auth(url)
    session.trust_env = False
    return session


def raw_batch(w3: Web3, calls: list[tuple[str, list]]) -> list[dict]:
    """The node's answers to `calls` [(method, params)] sent as one JSON-RPC batch (one round trip
    instead of one each), in order, each {"result": ...} or {"error": ...} as the node sent it. A
    node that refuses batches raises Web3RPCError."""
    answers = w3.provider.make_batch_request(calls)
    if not isinstance(answers, list) or len(answers) != len(calls):
        error = answers.get("error") if isinstance(answers, dict) else answers
        raise Web3RPCError(f"batch of {[m for m, _ in calls]}: {error}", rpc_response=answers)
    return answers


def result_of(method: str, answer: dict):
    """One answer's result (raw_request's rules): Web3RPCError for an error answer."""
    error = answer.get("error")
    if error is not None:
        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        raise Web3RPCError(f"{method}: {message}", rpc_response=answer)
    if "result" not in answer:
        raise Web3RPCError(f"{method}: the node's answer has neither a result nor an error", rpc_response=answer)
    return answer["result"]


def raw_request(w3: Web3, method: str, params: list):
    """`method`'s JSON result as the node sent it (hex strings, plain dicts), through w3's provider
    but past web3.py's middleware and result formatters, which cost more CPU than the request:
    for the node's hot calls (the watcher's reads on every block, contract reads, the sender's
    estimate and fees), whose formatted results nothing needs. An error answer raises
    Web3RPCError, as web3.py does."""
    return result_of(method, w3.provider.make_request(method, params))
