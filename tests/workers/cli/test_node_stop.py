"""`decentrl node stop` finds the node by its folder (node.lock held, node.json's pid): a node that
ignores SIGTERM is killed after --timeout; a folder where no node runs is an error. The graceful
stop of a real node is in test_node_start.py."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STUBBORN_NODE = """
import os, signal, sys, time
from workers.node.processes.state import claim_node_dir, write_json_atomically, node_state_path
lock = claim_node_dir(sys.argv[1])
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a node stuck in its shutdown
write_json_atomically(node_state_path(sys.argv[1]), {"pid": os.getpid(), "roles": [], "children": {}})
time.sleep(600)
"""


def test_a_node_that_does_not_stop_is_killed_after_the_timeout(tmp_path, invoke):
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN_NODE, str(tmp_path)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "node.json").exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        assert json.loads((tmp_path / "node.json").read_text())["pid"] == proc.pid
        result = invoke(tmp_path, "node", "stop", "--timeout", "0.5")
        assert result.exit_code == 0, result.output
        assert f"node {proc.pid} stopped (killed after 0.5 s)" in result.output
        assert proc.wait(timeout=10) == -9
    finally:
        if proc.poll() is None:
            proc.kill()


def test_stop_where_no_node_runs_says_so(tmp_path, invoke):
    result = invoke(tmp_path, "node", "stop")
    assert result.exit_code == 1
    assert f"Error: no node started by `decentrl node start` is running in {tmp_path}" in result.output
