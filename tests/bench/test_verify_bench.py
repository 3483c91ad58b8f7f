"""bench/verify.py run for real at its smallest setting (one trial of the fraud matrix's reduced
spec), to the RESULT line: every whole-shard / whole-trace fault detected by the quorum, no honest
submission rejected by any validator, and a positive validator-to-worker compute ratio."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WHOLE_FAULTS = 9  # 5 sampler faults + 4 trainer faults, one trial each


def test_verify_bench_detects_every_whole_fault_and_rejects_no_honest_work():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "verify.py"), "--trials", "1", "--spec", "fraud"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    match = re.fullmatch(r"RESULT faults=(\d+) detected=(\d+) false_rejections=(\d+) verify_cost_ratio=([0-9.]+)",
                         lines[-1])
    assert match, lines[-1]
    faults, detected, false_rejections, ratio = int(match[1]), int(match[2]), int(match[3]), float(match[4])
    assert faults == WHOLE_FAULTS
    assert detected == faults
    assert false_rejections == 0
    assert 0 < ratio < 1
    assert sum(line.startswith("RESULT") for line in lines) == 1
