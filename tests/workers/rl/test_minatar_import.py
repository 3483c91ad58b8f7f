"""MinAtar is registered without the rendering libraries its import tries (matplotlib, seaborn and
scipy: about a second of every node process's CPU on its first MinAtar task), and without touching
them where the process has them already."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


STEP = ("from workers.rl.envs import make_env; env = make_env('MinAtar/Breakout-v1'); env.reset(seed=1); "
        "env.step(0); ")


def test_minatar_runs_without_its_rendering_libraries():
    loaded = run("import sys; " + STEP + "print(*(m in sys.modules for m in ('matplotlib', 'seaborn', 'scipy')))")
    assert loaded == ["False", "False", "False"]
    # and they stay importable afterwards
    assert run(STEP + "import matplotlib.colors; print(matplotlib.colors.to_hex('red'))") == ["#ff0000"]


def test_a_process_that_has_matplotlib_keeps_it():
    code = "import matplotlib.pyplot as plt; " + STEP + "import sys; print(sys.modules['matplotlib.pyplot'] is plt)"
    assert run(code) == ["True"]
