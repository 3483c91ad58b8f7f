"""The node's HTTP connection to its chain."""
from __future__ import annotations

import requests
from requests.utils import get_netrc_auth
from web3 import Web3
from web3.exceptions import Web3RPCError

# Only answers that cannot change while a node runs: web3 validates every call and transaction
# against the chain id, which otherwise costs one eth_chainId round trip each time.
CACHEABLE = {"eth_chainId", "net_version", "web3_clientVersion"}


def http_w3(url: str, timeout: float = 30.0) -> Web3:
    """A Web3 over HTTP with a `timeout` per request and the chain id asked once."""
    return Web3(Web3.HTTPProvider(url, request_kwargs={"timeout": timeout}, session=environment_session(url),
                                  cache_allowed_requests=True, cacheable_requests=CACHEABLE))


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


def raw_request(w3: Web3, method: str, params: list):
    """`method`'s JSON result as the node sent it (hex strings, plain dicts), through w3's provider
    but past web3.py's middleware and result formatters, which cost more CPU than the request:
    for the node's hot calls (the watcher's reads on every block, contract reads, the sender's
    estimate and fees), whose formatted results nothing needs. An error answer raises
    Web3RPCError, as web3.py does."""
    response = w3.provider.make_request(method, params)
    error = response.get("error")
    if error is not None:
        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        raise Web3RPCError(f"{method}: {message}", rpc_response=response)
    if "result" not in response:
        raise Web3RPCError(f"{method}: the node's answer has neither a result nor an error", rpc_response=response)
    return response["result"]
