"""The node's HTTP connection to its chain."""
from __future__ import annotations

from web3 import Web3

# Only answers that cannot change while a node runs: web3 validates every call and transaction
# against the chain id, which otherwise costs one eth_chainId round trip each time.
CACHEABLE = {"eth_chainId", "net_version", "web3_clientVersion"}


def http_w3(url: str, timeout: float = 30.0) -> Web3:
    """A Web3 over HTTP with a `timeout` per request and the chain id asked once."""
    return Web3(Web3.HTTPProvider(url, request_kwargs={"timeout": timeout}, cache_allowed_requests=True,
                                  cacheable_requests=CACHEABLE))
