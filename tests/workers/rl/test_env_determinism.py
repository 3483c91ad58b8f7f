"""Every family replays bit for bit in other processes with other thread counts (OpenMP, BLAS and
torch at 1 and at 2 threads) and with numpy's SIMD kernels for an older CPU: the same observations,
rewards and flags, the same snapshot bytes, and the same steps after restoring this process's
snapshots there. Other machines and CPUs are not covered here (SPECIFICATION.md, 12, "Environments")."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workers.rl.envcases import CASES, digest, resumed, run

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def here():
    """This process's records, snapshots and continuations of every case."""
    out, snapshots = {}, {}
    for name in CASES:
        records, snaps, acts = run(name)
        snapshots[name] = {str(k): v.hex() for k, v in snaps.items()}
        out[name] = {"records": digest(records), "snapshots": {str(k): digest([v]) for k, v in snaps.items()},
                     "resumed": {str(k): digest(v) for k, v in resumed(name, snaps, acts).items()},
                     "suffix": {str(k): digest(records[k:]) for k in snaps}}
    return out, snapshots


SIMD_BEYOND_BASELINE = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
"""numpy's runtime-dispatched kernels past x86-64-v2 (AVX2, FMA, AVX-512): turned off in one child,
as on an older CPU, for the envs whose steps call numpy's sin/cos (Acrobot, Pendulum)."""


def test_every_family_replays_identically_in_other_processes(here, tmp_path):
    """One child with 1 thread; one with 2 threads and numpy's kernels for an older CPU; run at once."""
    expected, snapshots = here
    (tmp_path / "snapshots.json").write_text(json.dumps(snapshots))
    children = {}
    for threads, simd in ((1, {}), (2, {"NPY_DISABLE_CPU_FEATURES": SIMD_BEYOND_BASELINE})):
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
                   OPENBLAS_NUM_THREADS=str(threads), **simd)
        children[threads] = subprocess.Popen(
            [sys.executable, "-m", "tests.workers.rl.envcases", str(tmp_path / "snapshots.json"), str(threads)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for threads, child in children.items():
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        there = json.loads(out.strip().splitlines()[-1])
        for name in CASES:
            assert there[name] == {k: v for k, v in expected[name].items() if k != "suffix"}, (name, threads)


def test_restored_runs_continue_as_the_original(here):
    expected, _ = here
    for name, got in expected.items():
        assert len(got["resumed"]) == 3, name
        assert got["resumed"] == got["suffix"], name
