"""The supervisor restarts a dead worker, which then serves its queue again."""
import os
import signal

from node_support import Event, notes
from tests.waiting import wait_for, wait_ready


def test_supervisor_restarts_a_killed_worker(node, app, enqueue, rclient):
    child = node.children["validator"]
    old_pid = child.pid
    assert node.health()["validator"]["alive"]
    os.kill(old_pid, signal.SIGKILL)  # the main process only; check() also clears its pool
    wait_for(lambda: not child.alive(), timeout=5)
    assert node.health()["validator"]["alive"] is False
    assert node.check() == ["validator"]
    health = node.health()["validator"]
    assert health["alive"] and health["pid"] != old_pid and health["restarts"] == child.restarts
    assert node.check() == []  # everything alive: nothing to restart
    assert wait_ready(app, "validate")["worker"] == "validator@testnode"
    ev = Event("Ping", {})
    enqueue(ev)
    ran = wait_for(lambda: [n for n in notes(rclient, "ran", ev.key) if n["role"] == "validator"],
                   timeout=10)
    assert ran[0]["pid"] != old_pid
    log = open(child.log_path).read()
    assert log.count("ready.") >= 2  # both the first and the restarted worker logged ready
