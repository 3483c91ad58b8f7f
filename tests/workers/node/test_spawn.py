"""A node's child forked from the preloaded fork server (workers.node.processes.spawn) runs as if started
fresh: its own session, environment, working directory, log and exit status; the parent's
__main__ script is not run again in it; and the preload holds nothing that reads the node's
environment when imported."""
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from workers.node.processes import spawn

ROOT = Path(__file__).resolve().parents[3]

CHILD = textwrap.dedent("""
    import json, os, sys
    from setproctitle import getproctitle
    print("to stdout", flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "sid": os.getsid(0),
               "pid": os.getpid(), "title": getproctitle(), "prometheus": "prometheus_client" in sys.modules},
              open(sys.argv[1], "w"))
    sys.exit(int(sys.argv[2]))
""")


def test_a_child_runs_its_module_in_its_own_session_env_cwd_and_log(tmp_path):
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "spawned_child.py").write_text(CHILD)
    (tmp_path / "cwd").mkdir()
    out, log = tmp_path / "out.json", tmp_path / "child.log"
    env = {"PYTHONPATH": str(tmp_path / "mods"), "ONLY_THIS": "1"}
    argv = [sys.executable, "-m", "spawned_child", str(out), "3"]
    child = spawn.start("test:child", argv, env, log, tmp_path / "cwd")
    child.join(60)
    assert child.exitcode == 3
    seen = json.loads(out.read_text())
    assert seen["argv"] == [str(out), "3"] and seen["cwd"] == str(tmp_path / "cwd")
    assert seen["env"] == env  # nothing of the parent's environment leaks in
    assert seen["sid"] == seen["pid"] == child.pid  # a session of its own: killpg(pid) reaches its pool
    assert seen["title"] == f"decentrl test:child: python -m spawned_child {out} 3"  # what ps shows
    assert not seen["prometheus"]  # read its multiprocess directory from this env when imported
    assert log.read_text().splitlines() == ["to stdout", "to stderr"]


def test_a_killed_child_reports_the_signal(tmp_path):
    (tmp_path / "sleeper.py").write_text("import time\ntime.sleep(60)\n")
    child = spawn.start("test:sleeper", [sys.executable, "-m", "sleeper"], {"PYTHONPATH": str(tmp_path)},
                        tmp_path / "sleeper.log", tmp_path)
    assert child.is_alive()
    os.killpg(child.pid, signal.SIGKILL)  # at once: start() returned with the child in its own session
    child.join(30)
    assert child.exitcode == -signal.SIGKILL


def test_the_parents_main_script_is_not_run_in_the_child(tmp_path):
    """multiprocessing would import the parent's script again in each child (as __mp_main__)."""
    marker = tmp_path / "imports"
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        from pathlib import Path
        with open({str(marker)!r}, "a") as f:
            f.write("imported\\n")
        if __name__ == "__main__":
            from workers.node.processes import spawn
            tmp = Path({str(tmp_path)!r})
            (tmp / "quick.py").write_text("print('ran')")
            child = spawn.start("test:quick", [sys.executable, "-m", "quick"], {{"PYTHONPATH": str(tmp)}},
                                tmp / "quick.log", tmp)
            child.join(60)
            sys.exit(child.exitcode)
    """))
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "quick.log").read_text() == "ran\n"
    assert marker.read_text() == "imported\n"  # by the parent alone


def test_the_preload_reads_no_node_setting_and_starts_no_thread():
    probe = ("import sys, threading; import workers.node.processes.preload; "
             "print(json.dumps([sorted(m for m in sys.modules "
             "if m.startswith(('prometheus_client', 'workers.node.'))), threading.active_count()]))")
    done = subprocess.run([sys.executable, "-c", "import json; " + probe], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["workers.node.processes", "workers.node.processes.lifetime",
                                        "workers.node.processes.preload", "workers.node.processes.spawn"], 1]
