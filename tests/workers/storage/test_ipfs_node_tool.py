"""tools/ipfs_node.py: the session node is offline and local; bad ports are refused up front."""
import json

import pytest
from storage_support import ipfs_node_tool


def test_session_node_listens_on_localhost_only_with_no_peers(ipfs_node):
    config = json.loads((ipfs_node.repo / "config").read_text())
    addresses = config["Addresses"]
    assert addresses["API"] == f"/ip4/127.0.0.1/tcp/{ipfs_node.port}"
    assert addresses["Swarm"] == ["/ip4/127.0.0.1/tcp/0"] and addresses["Gateway"].startswith("/ip4/127.0.0.1/")
    assert config["Bootstrap"] == [] and config["Discovery"]["MDNS"]["Enabled"] is False
    assert int((ipfs_node.repo / "daemon.pid").read_text()) == ipfs_node.pid


@pytest.mark.parametrize("port", [5001, 8545, 5200])
def test_ports_outside_the_project_range_are_refused(tmp_path, port):
    with pytest.raises(ValueError, match=f"port {port} is outside this project's range 5101-5199"):
        ipfs_node_tool.start(tmp_path, port)


def test_a_port_with_a_node_on_it_is_refused(ipfs_node, tmp_path):
    with pytest.raises(RuntimeError, match=f"port {ipfs_node.port} is already in use"):
        wrongly_started = ipfs_node_tool.start(tmp_path, ipfs_node.port)
        ipfs_node_tool.stop(wrongly_started.pid)  # not left running when this test fails


def test_a_port_taken_by_another_program_is_refused_before_any_daemon_starts(tmp_path):
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", ipfs_node_tool.free_api_port()))
        listener.listen()  # accepts connections, answers no IPFS API (like a node too busy to)
        port = listener.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"port {port} is already in use"):
            wrongly_started = ipfs_node_tool.start(tmp_path / "repo", port)
            ipfs_node_tool.stop(wrongly_started.pid)
    assert not (tmp_path / "repo" / "daemon.pid").exists()


def test_free_api_ports_skip_those_in_use_from_the_given_start(ipfs_node):
    ports = list(ipfs_node_tool.API_PORTS)
    at = ports.index(ipfs_node.port)
    assert ipfs_node_tool.free_api_port(at) != ipfs_node.port
    assert ipfs_node_tool.free_api_port(at) in ports
