"""workers/node/priority.py: work done in the background runs in a session of its own at the lowest
CPU priority and hands back exactly what it computed; a failure or an overrun is an error, and an
overrunning process is killed, and it dies with the process that started it."""
import os
import subprocess
import sys
import time

import pytest

from tests.waiting import wait_for
from workers.node.priority import LOWEST, BackgroundFailed, in_background
from workers.node.supervisor import ROOT


def where_am_i() -> bytes:
    try:
        with open("/proc/self/autogroup") as autogroup:
            session_nice = autogroup.read().split()[-1]
    except FileNotFoundError:  # a kernel without autogroups
        session_nice = "none"
    return f"{os.getpriority(os.PRIO_PROCESS, 0)} {os.getsid(0)} {session_nice}".encode()


def test_the_computation_runs_in_a_session_of_its_own_at_the_lowest_priority():
    nice, session, session_nice = in_background(where_am_i).decode().split()
    assert int(nice) == LOWEST
    assert int(session) != os.getsid(0)
    assert session_nice in (str(LOWEST), "none")
    assert os.getpriority(os.PRIO_PROCESS, 0) < LOWEST  # this process is untouched


def test_what_it_computes_comes_back_whole():
    blob = os.urandom(3 << 20)  # over a pipe's buffer: read while the child writes
    assert in_background(lambda data: data[::-1], blob) == blob[::-1]
    assert in_background(bytes) == b""


def test_a_failure_is_an_error_here():
    def fails():
        raise ValueError("bad input")

    with pytest.raises(BackgroundFailed, match="fails failed in the background"):
        in_background(fails)


def test_an_overrun_is_killed(tmp_path):
    pid_file = tmp_path / "pid"

    def hangs():
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
        return b""

    started = time.monotonic()
    with pytest.raises(BackgroundFailed, match="ran over 0.5 s"):
        in_background(hangs, timeout=0.5)
    assert time.monotonic() - started < 5
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # killed and reaped


def test_it_dies_with_the_process_that_started_it(tmp_path):
    # a worker killed outright (SIGKILL, as a supervisor's stop may end) leaves no computation behind
    pid_file = tmp_path / "pid"
    script = f"""
import os, pathlib, time
from workers.node.priority import in_background
def hangs():
    pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))
    time.sleep(60)
    return b""
in_background(hangs)
"""
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    wait_for(pid_file.exists, timeout=30)
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait()

    def gone():
        try:
            with open(f"/proc/{child}/stat") as stat:
                return stat.read().split(") ")[1][0] == "Z"  # killed, not yet reaped
        except FileNotFoundError:
            return True

    wait_for(gone, timeout=10)
