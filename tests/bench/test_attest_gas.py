"""bench/attest_gas.py run for real on its own anvil at two sizes (2 and 16 validators), to the
RESULT line: both paths reach a verdict, and the aggregate is cheaper than the votes it replaces."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_attest_gas_runs_both_paths_and_prints_its_result_line():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "attest_gas.py"), "--sizes", "2,16"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    match = re.fullmatch(r"RESULT bls_gas_16=(\d+) ecdsa_gas_16=(\d+) ratio_16=([0-9.]+)", lines[-1])
    assert match, lines[-1]
    bls, ecdsa, ratio = int(match[1]), int(match[2]), float(match[3])
    assert 0 < bls < ecdsa
    assert abs(ratio - bls / ecdsa) < 1e-3
    assert [line.split("|")[0].strip() for line in lines[1:-1]] == ["2", "16"]
