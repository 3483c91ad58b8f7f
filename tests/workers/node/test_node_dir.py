"""workers/node/processes/state.py: one running node per folder (node.lock), and a folder whose
last node was killed outright is not started again while that run's processes still live."""
import json
import os
import subprocess
import sys

import pytest

from workers.node.processes.state import NodeRunning, claim_node_dir, leftover_children

DEAD_PID = 999_999_999


def test_a_folder_is_claimed_by_one_node_at_a_time(tmp_path):
    fd = claim_node_dir(tmp_path / "node")
    try:
        (tmp_path / "node" / "node.json").write_text(json.dumps({"pid": os.getpid(), "children": {}}))
        with pytest.raises(NodeRunning,
                           match=rf"a node is already running in {tmp_path / 'node'} \(pid {os.getpid()}\)"):
            claim_node_dir(tmp_path / "node")
    finally:
        os.close(fd)
    os.close(claim_node_dir(tmp_path / "node"))  # released with its holder


def test_processes_of_a_killed_run_keep_the_folder_until_they_end(tmp_path):
    title = ("import setproctitle, time; setproctitle.setproctitle('decentrl node-x:watcher: python -m w'); "
             "time.sleep(60)")
    left = subprocess.Popen([sys.executable, "-c", title])
    try:
        node_dir = tmp_path / "node"
        node_dir.mkdir()
        # the record a SIGKILLed `node start` left: its pid dead, a child alive, another gone
        (node_dir / "node.json").write_text(json.dumps(
            {"pid": DEAD_PID, "children": {"watcher": {"pid": left.pid}, "sampler": {"pid": DEAD_PID}}}))
        for _ in range(100):  # its title is set a moment after it starts
            if leftover_children(node_dir):
                break
            __import__("time").sleep(0.05)
        assert leftover_children(node_dir) == [("watcher", left.pid)]
        with pytest.raises(NodeRunning, match=rf"still running \(watcher {left.pid}\)"):
            claim_node_dir(node_dir)
    finally:
        left.kill()
        left.wait()
    assert leftover_children(node_dir) == []
    os.close(claim_node_dir(node_dir))


def test_a_reused_pid_is_not_taken_for_a_leftover(tmp_path):
    (tmp_path / "node.json").write_text(json.dumps({"pid": DEAD_PID, "children": {"watcher": {"pid": os.getpid()}}}))
    assert leftover_children(tmp_path) == []  # this test process is alive, but no node's child
