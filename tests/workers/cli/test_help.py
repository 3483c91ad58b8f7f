"""`decentrl --help` is instant: the console script imports only click at start."""

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = Path(sys.executable).parent / "decentrl"


def run(*argv):
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return proc, time.perf_counter() - start


def test_help_is_instant_and_imports_no_heavy_module():
    proc, seconds = run(str(SCRIPT), "--help")
    assert proc.returncode == 0, proc.stderr
    for command in ("node", "task", "demo"):
        assert f"  {command}  " in proc.stdout
    assert seconds < 1.0, f"decentrl --help took {seconds:.2f} s"
    probe, _ = run(sys.executable, "-c", "import sys, workers.cli; print(sorted(m for m in ('torch', 'web3', "
                   "'celery', 'gymnasium', 'eth_account') if m in sys.modules))")
    assert probe.stdout.strip() == "[]", probe.stdout


def test_every_subcommand_has_help():
    for argv in (["node", "init"], ["node", "stake"], ["node", "start"], ["node", "status"], ["task", "submit"],
                 ["task", "status"], ["task", "result"], ["demo"]):
        proc, seconds = run(str(SCRIPT), *argv, "--help")
        assert proc.returncode == 0 and "Usage: decentrl" in proc.stdout, (argv, proc.stderr)
        assert seconds < 1.0, (argv, seconds)
