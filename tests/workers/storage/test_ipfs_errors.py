"""IpfsStore errors say what to fix: missing content times out, a down node is unreachable."""
import time

import pytest
from storage_support import free_port

from workers.cid import compute
from workers.storage.store import ContentNotFound, IpfsStore, StoreUnavailable


def test_missing_cid_times_out_with_a_clear_error(ipfs_store):
    cid = compute(b"never added anywhere")
    started = time.monotonic()
    with pytest.raises(ContentNotFound, match=f"{cid} could not be fetched from the IPFS node at .* within 1 s"):
        ipfs_store.get(cid, timeout=1)
    assert 0.9 < time.monotonic() - started < 5
    assert not ipfs_store.has(cid)


@pytest.fixture
def down_store(tmp_path):
    store = IpfsStore(f"/ip4/127.0.0.1/tcp/{free_port()}/http", tmp_path / "ledger.sqlite")
    yield store
    store.close()


@pytest.mark.parametrize("call", [
    lambda s: s.put(b"data"),
    lambda s: s.get(compute(b"data")),
    lambda s: s.has(compute(b"data")),
])
def test_unreachable_node_says_so(down_store, call):
    with pytest.raises(StoreUnavailable, match=f"IPFS node at {down_store.api} is unreachable .*: start it"):
        call(down_store)


def test_a_node_store_waits_for_an_unreachable_node_up_to_its_outage_s(tmp_path):
    """A node's store (outage_s > 0) tries again about every second while the IPFS node cannot be
    reached (its daemon restarting), and says it is unreachable only after outage_s."""
    store = IpfsStore(f"/ip4/127.0.0.1/tcp/{free_port()}/http", tmp_path / "ledger.sqlite", outage_s=2.0)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="is unreachable"):
            store.get(compute(b"data"))
        assert 2.0 <= time.monotonic() - started < 5
    finally:
        store.close()


def test_bad_api_address_is_a_value_error_that_leaves_nothing_behind(tmp_path):
    for bad in ("localhost:5001", "http://127.0.0.1", "http://127.0.0.1:5001/api/v0", "http://127.0.0.1:port"):
        with pytest.raises(ValueError, match="bad IPFS API address"):
            IpfsStore(bad, tmp_path / "store" / "ledger.sqlite")
    assert not (tmp_path / "store").exists()


def test_the_api_may_be_given_as_the_url_an_ipfs_node_prints():
    from workers.storage.store import ipfs_api_address

    assert ipfs_api_address("http://127.0.0.1:5001") == "/ip4/127.0.0.1/tcp/5001/http"
    assert ipfs_api_address("https://ipfs.example.org:443/") == "/dns/ipfs.example.org/tcp/443/https"
    assert ipfs_api_address("http://[::1]:5001") == "/ip6/::1/tcp/5001/http"
    assert ipfs_api_address("/ip4/10.0.0.2/tcp/5001/http") == "/ip4/10.0.0.2/tcp/5001/http"  # as given


def test_a_store_given_the_url_reaches_the_node(ipfs_node, tmp_path):
    port = ipfs_node.api.split("/tcp/")[1].split("/")[0]
    store = IpfsStore(f"http://127.0.0.1:{port}", tmp_path / "ledger.sqlite")
    try:
        cid = store.put(b"by its URL")
        assert store.get(cid) == b"by its URL" and store.api == ipfs_node.api
    finally:
        store.close()


def test_default_timeout_is_the_design_value(ipfs_store):
    assert ipfs_store.timeout == 30.0


def test_a_get_without_a_timeout_waits_the_stores_own(ipfs_node, tmp_path):
    """A node's store (node start --ipfs-timeout, through open_store): what its fetches wait."""
    from workers.node.config import NodeSettings
    from workers.storage.store import open_store

    store = open_store(ipfs_node.api, tmp_path, timeout=1.0)
    cid = compute(b"never added anywhere, waited for by the store's own timeout")
    try:
        started = time.monotonic()
        with pytest.raises(ContentNotFound, match=f"{cid} could not be fetched .* within 1 s"):
            store.get(cid)
        assert 0.9 < time.monotonic() - started < 5
    finally:
        store.close()
    with pytest.raises(ValueError, match="ipfs_timeout_s must be > 0 seconds, got 0"):
        NodeSettings(rpc_url="http://127.0.0.1:8545", deployment=tmp_path / "d.json", node_dir=tmp_path,
                     store_dir=tmp_path, ipfs_api=ipfs_node.api, ipfs_timeout_s=0)


def test_an_unreachable_node_is_one_error_and_no_library_warning(tmp_path):
    """Run as a user runs it, with Python's default warning filters (FutureWarning is shown)."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("from workers.storage.store import IpfsStore, StoreUnavailable\n"
            f"store = IpfsStore('/ip4/127.0.0.1/tcp/{free_port()}/http', {str(tmp_path / 'ledger.sqlite')!r})\n"
            "try:\n    store.put(b'data')\nexcept StoreUnavailable as error:\n    print('unreachable:', error)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[3])
    assert run.returncode == 0 and run.stdout.startswith("unreachable: IPFS node at"), run.stdout + run.stderr
    assert run.stderr == "", run.stderr
