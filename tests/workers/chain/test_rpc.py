"""workers.chain.rpc: the node's HTTP client reads the environment's connection settings once,
and raw_request gives the node's own answer or its error."""

import pytest
from web3.exceptions import Web3RPCError

from workers.chain.rpc import environment_session, http_w3, raw_request


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
