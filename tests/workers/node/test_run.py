"""workers.node.run's main loop, called as a plain function (no click, no chain): it starts the
supervisor, records the node in node.json while it runs, checks its children each second until
SIGTERM, then stops them and clears the record; a metrics port it cannot serve on stops the
node before any child starts, with what to change."""
import os
import signal
import socket

import pytest

from workers.node.config import NodeConfig
from workers.node.processes.redis_service import RedisService
from workers.node.processes.state import read_node_state
from workers.node.run import StartError, run_supervisor


class Supervisor:
    """Records what the loop asks of it; its third check is when SIGTERM arrives."""

    def __init__(self, node_dir):
        self.config = NodeConfig(redis_url="redis://127.0.0.1:1/0", node_name="looped")
        self.node_dir, self.calls, self.seen = node_dir, [], None

    def start(self):
        self.calls.append("start")

    def check(self):
        self.calls.append("check")
        if self.calls.count("check") == 3:
            self.seen = read_node_state(self.node_dir)
            os.kill(os.getpid(), signal.SIGTERM)
        return []

    def stop(self):
        self.calls.append("stop")

    def health(self):
        return {"sampler": {"pid": 1, "log": "sampler.log", "restarts": 0}}


def test_the_loop_runs_until_sigterm_and_leaves_nothing_behind(tmp_path):
    sup, said = Supervisor(tmp_path), []
    before = signal.getsignal(signal.SIGTERM)
    run_supervisor(tmp_path, sup, ("sampler",), RedisService("redis://127.0.0.1:1/0"),
                   echo=lambda message, err=False: said.append(message))
    assert sup.calls == ["start", "check", "check", "check", "stop"]
    assert sup.seen["pid"] == os.getpid() and sup.seen["roles"] == ["sampler"] and sup.seen["node_name"] == "looped"
    assert read_node_state(tmp_path) is None and signal.getsignal(signal.SIGTERM) is before
    assert said[0].startswith("node running: roles sampler, Redis redis://127.0.0.1:1/0; logs in ")
    assert said[-1] == "node stopped"


def test_a_metrics_port_in_use_stops_the_node_before_it_starts(tmp_path):
    sup = Supervisor(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(StartError, match=f"cannot serve metrics on 127.0.0.1:{port}: .*; choose another "
                                             r"--metrics-port \(0: none\)"):
            run_supervisor(tmp_path, sup, ("sampler",), RedisService("redis://127.0.0.1:1/0"), metrics_port=port,
                           echo=lambda m, err=False: None)
    assert "start" not in sup.calls and read_node_state(tmp_path) is None
