"""Every family replays bit for bit in other processes with other thread counts (OpenMP, BLAS and
torch at 1 and at 2 threads): the same observations, rewards and flags, the same snapshot bytes, and
the same steps after restoring this process's snapshots there. Other machines and CPUs are not
covered here (SPECIFICATION.md, "Environments")."""

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
                     "resumed": {str(k): digest(resumed(name, k, v, acts)) for k, v in snaps.items()},
                     "suffix": {str(k): digest(records[k:]) for k in snaps}}
    return out, snapshots


@pytest.mark.parametrize("threads", [1, 2])
def test_every_family_replays_identically_in_another_process(here, tmp_path, threads):
    expected, snapshots = here
    (tmp_path / "snapshots.json").write_text(json.dumps(snapshots))
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-m", "tests.workers.rl.envcases", str(tmp_path / "snapshots.json"),
                          str(threads)], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    there = json.loads(out.stdout.strip().splitlines()[-1])
    for name in CASES:
        assert there[name] == {k: v for k, v in expected[name].items() if k != "suffix"}, name


def test_restored_runs_continue_as_the_original(here):
    expected, _ = here
    for name, got in expected.items():
        assert len(got["resumed"]) == 3, name
        assert got["resumed"] == got["suffix"], name
