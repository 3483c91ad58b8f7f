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


class Dead:
    """A child process that has exited."""
    pid, exitcode = None, 1

    def is_alive(self):
        return False


def test_a_child_that_keeps_dying_young_is_restarted_after_growing_waits(monkeypatch, tmp_path, caplog):
    """A watcher that cannot reach its chain as it starts dies at once, again and again: the first
    restart is at once, the next ones wait 1, 2, 4 ... s up to a minute; one that lived past
    STABLE_S restarts at once and starts the count again."""
    from types import SimpleNamespace

    from workers.node.processes import supervisor as sv

    clock = [1000.0]

    def spawn(child):
        child.process, child.started_at = Dead(), clock[0]

    sup = sv.Supervisor.__new__(sv.Supervisor)
    sup.children, sup.metrics_dir = {"watcher": sv.Child("watcher", [], tmp_path / "watcher.log")}, tmp_path
    monkeypatch.setattr(sup, "_spawn", spawn)
    monkeypatch.setattr(sv, "_kill_group", lambda pid, sig: None)
    monkeypatch.setattr(sv, "time", SimpleNamespace(time=lambda: clock[0]))
    spawn(sup.children["watcher"])

    def restarted_at(t):
        clock[0] = t
        return sup.check() == ["watcher"]

    assert restarted_at(1005.0)  # the first young death: at once
    waits = []
    for _ in range(8):
        died = clock[0] + 0.5
        assert not restarted_at(died)
        due = sup.children["watcher"].restart_at
        assert not restarted_at(due - 0.01) and restarted_at(due)
        waits.append(due - died)
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]
    assert "restarting it in 60 s" in caplog.text and "8 times in a row" in caplog.text
    assert restarted_at(clock[0] + sv.STABLE_S + 1)  # it had lived: at once again
    assert restarted_at(clock[0] + 0.5)  # and a young death after that is the first of a new count
    assert not restarted_at(clock[0] + 0.5) and sup.children["watcher"].restart_at == clock[0] + 1
    assert sup.children["watcher"].restarts == 11  # 1 + 8 + 1 + 1


def test_the_health_check_says_when_a_crash_looping_child_starts_next(tmp_path):
    import time

    from workers.node.observe.health import restart_note
    from workers.node.processes import supervisor as sv

    child = sv.Child("watcher", [], tmp_path / "watcher.log", process=Dead())
    assert restart_note(child) == ""  # dead, but not found dead yet: restarted at the next check
    child.young_deaths, child.restart_at = 4, time.time() + 4.4
    assert restart_note(child) == (f"; exited 4 times in a row soon after starting, next start in 4 s "
                                   f"(its log: {tmp_path / 'watcher.log'})")
