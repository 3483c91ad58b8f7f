"""`--attest-relay ipfs`: refused without an IPFS node, with a message that says what to give; a
validator node so set runs its relay bridge as a supervised process (not a Celery worker); the
other forms (off, a Redis URL, the default) are unchanged."""
import pytest

from workers.node.config import NodeSettings
from workers.node.handlers.relay import IPFS, OFF, check_setting, relay_url
from workers.node.run import RELAY_BRIDGE, node_config, supervisor


def settings(tmp_path, **kwargs):
    return NodeSettings(rpc_url="http://127.0.0.1:8545", deployment=tmp_path / "d.json", node_dir=tmp_path,
                        store_dir=tmp_path / "store", **kwargs)


def test_ipfs_needs_an_ipfs_node(tmp_path):
    with pytest.raises(ValueError, match=r"'ipfs' needs the node's IPFS node \(--ipfs-api\)"):
        settings(tmp_path, attest_relay=IPFS)
    assert settings(tmp_path, attest_relay=IPFS, ipfs_api="/ip4/127.0.0.1/tcp/5101/http").attest_relay == IPFS


def test_a_setting_that_is_no_relay_is_refused():
    with pytest.raises(ValueError, match="give a Redis URL"):
        check_setting("ipfs ", None)
    for good in (None, OFF, "redis://relay:6379/0", "rediss://:pw@relay:6380/0", "unix:///run/redis.sock"):
        check_setting(good, None)


def test_the_relay_is_read_from_the_nodes_own_redis_with_ipfs():
    assert relay_url(IPFS, "redis://h:1/3") == "redis://h:1/3"
    assert relay_url(None, "redis://h:1/3") == "redis://h:1/3"
    assert relay_url("redis://relay:6379/0", "redis://h:1/3") == "redis://relay:6379/0"
    assert relay_url(OFF, "redis://h:1/3") is None


@pytest.mark.parametrize("relay,roles,bridge", [(IPFS, ("validator",), True), (IPFS, ("sampler",), False),
                                                (None, ("validator",), False)])
def test_a_validator_with_the_ipfs_relay_runs_its_bridge(tmp_path, relay, roles, bridge):
    config = node_config("redis://127.0.0.1:1/1", "n", settings(tmp_path, attest_relay=relay,
                                                               ipfs_api="/ip4/127.0.0.1/tcp/5101/http"))
    sup = supervisor(config, roles)
    assert ("relay" in sup.children) == bridge
    if bridge:
        child = sup.children["relay"]
        assert child.argv[1:] == ["-m", RELAY_BRIDGE] and not child.celery
    assert not sup.children["watcher"].celery and all(sup.children[r].celery for r in roles)
