"""bench/attest_gas.py run for real on its own anvil at two sizes (2 and 16 validators), to the
RESULT line: both paths seal every vote first (one commit per validator) and reach a verdict, the
aggregate opening is cheaper than the openings it replaces and about as dear for 16 signers as for
2, and the join table shows the key update the draws pay."""

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
    attest, joins = out.stdout.strip().split("\n\n")
    attest_rows = [line.split("|") for line in attest.splitlines()[1:]]
    assert [row[0].strip() for row in attest_rows] == ["2", "16"]
    # Every validator commits on either path: one transaction each, the same on both paths.
    commits = [int(row[1].replace(",", "")) for row in attest_rows]
    assert commits[1] > commits[0] > 0
    # The aggregate opening is nearly flat in the number of signers: the task key is kept up to date
    # at joins, so per signer it reads only the slot's holder and sealed vote (and clears the vote)
    # and the finalization looks its ballot up; it grew ~11k per signer when every signer's slot,
    # vote and key were read.
    opening = [int(row[3].replace(",", "")) - int(row[4].replace(",", "")) for row in attest_rows]
    assert (opening[1] - opening[0]) / 14 < 4_000, opening
    # The join table shows what that key costs the draw (once per task), never nothing.
    join_rows = [line.split("|") for line in joins.splitlines()[2:-1]]
    assert [row[0].strip() for row in join_rows] == ["2", "16"]
    assert all(int(row[5].replace(",", "")) > 0 for row in join_rows)
