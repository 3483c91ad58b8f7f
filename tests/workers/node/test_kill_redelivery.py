"""A worker killed (SIGKILL, its whole process group) in the middle of a task: after the
supervisor restarts it, Redis redelivers the unacknowledged task and it completes exactly once."""
import os
import signal
import time

from node_support import Event, notes

from tests.waiting import wait_for
from workers.node.queues import jobs
from workers.node.queues.tasks import node_state


def test_sigkill_mid_task_redelivers_and_completes_once(node, enqueue, rclient, config):
    store, _ = node_state(config)
    trainer = node.children["trainer"]
    old_pid = trainer.pid
    ev = Event("Slow", {"sleep": 2.0})
    assert enqueue(ev) == ["train"]
    wait_for(lambda: notes(rclient, "started", ev.key), timeout=10)
    os.killpg(old_pid, signal.SIGKILL)
    killed_at = time.monotonic()
    wait_for(lambda: not trainer.alive(), timeout=5)
    assert node.check() == ["trainer"] and trainer.pid != old_pid
    assert store.get("trainer", ev.key).status == jobs.RUNNING  # nobody finished it
    wait_for(lambda: store.get("trainer", ev.key).status == jobs.DONE, timeout=30, interval=0.1)
    print(f"\nredelivered and completed {time.monotonic() - killed_at:.1f} s after the kill "
          f"(visibility_timeout {config.visibility_timeout} s)")
    started, completed = notes(rclient, "started", ev.key), notes(rclient, "completed", ev.key)
    assert [n["attempt"] for n in started] == [1, 2]
    assert len(completed) == 1 and completed[0]["pid"] != started[0]["pid"]
    assert store.get("trainer", ev.key).attempts == 2
    time.sleep(1.0)
    assert len(notes(rclient, "completed", ev.key)) == 1
