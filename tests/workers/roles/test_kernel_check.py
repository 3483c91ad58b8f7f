"""The CPU kernels are pinned (workers.cpu_kernels), so that machines with other x86-64 CPUs compute
the same bits, and a node checks it computes the network's reference bits (workers.roles.kernel_check)
before it starts. Another CPU is simulated in a child process by limiting MKL's and numpy's
instruction sets (a CPU without AVX-512, or without AVX2), or by ATen's fallback to its default
kernels (a CPU without AVX2)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workers import cpu_kernels
from workers.roles import kernel_check

ROOT = Path(__file__).resolve().parents[3]
AVX2_ONLY = {"MKL_ENABLE_INSTRUCTIONS": "AVX2", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
"""MKL's and numpy's kernels of a CPU with AVX2 and FMA but no AVX-512 (most AMD and older Intel)."""
NO_AVX2_ATEN = "import os, workers; os.environ['ATEN_CPU_CAPABILITY'] = 'default'\n"
"""What torch does on a CPU without AVX2, whatever the pin asks: ATen falls back to its default
kernels (set after the pin, before anything computes)."""

CHILD = """
import json
from workers.roles import kernel_check
print(json.dumps(kernel_check.fingerprint()))
"""


def fingerprint_in_child(prelude: str = "", **env) -> dict:
    out = subprocess.run([sys.executable, "-c", prelude + CHILD], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                         capture_output=True, text=True, timeout=300, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_importing_workers_pins_the_kernels():
    assert {k: os.environ.get(k) for k in cpu_kernels.PINNED} == cpu_kernels.PINNED
    import torch

    assert torch.backends.cpu.get_cpu_capability() == "AVX2"


def test_this_machine_computes_the_reference_bits():
    """After a change of the pinned torch, numpy, gymnasium, mujoco or minatar versions the reference
    changes with them: `python -m workers.roles.kernel_check` prints the new digests and versions for
    kernel_check.REFERENCE and REFERENCE_VERSIONS."""
    assert kernel_check.fingerprint() == kernel_check.REFERENCE, "see this test's docstring"
    kernel_check.check()


def test_an_avx2_only_cpu_computes_the_same_bits_whatever_the_operator_set():
    """Without the pin, MKL's AVX2 matrix products gave other bits for every case (measured on this
    AVX-512 machine); an operator's own MKL_CBWR and ATen capability are overridden."""
    got = fingerprint_in_child(**AVX2_ONLY, MKL_CBWR="AVX512", ATEN_CPU_CAPABILITY="avx512")
    assert got == kernel_check.REFERENCE


def test_mkl_limited_to_sse4_gives_the_same_bits():
    """MKL's COMPATIBLE branch is one SSE2 path on every x86-64 CPU (its ISA branches, which it
    keeps for Intel CPUs only, gave other bits under this limit)."""
    assert fingerprint_in_child(MKL_ENABLE_INSTRUCTIONS="SSE4_2") == kernel_check.REFERENCE


def test_a_cpu_without_avx2_is_told_what_differs(monkeypatch):
    differ = fingerprint_in_child(NO_AVX2_ATEN)
    assert all(differ[name] != kernel_check.REFERENCE[name] for name in kernel_check.CASES), differ
    monkeypatch.setattr(kernel_check, "fingerprint", lambda: differ)
    with pytest.raises(kernel_check.KernelMismatch) as refused:
        kernel_check.check()
    assert "other bits than the network's reference (classic-gaussian, mujoco-mlp, pixels-cnn" in str(refused.value)
    assert "x86-64 CPU with AVX2" in str(refused.value)
    assert "installed here" not in str(refused.value)  # the same packages: the CPU is what differs


def test_a_mismatch_names_the_packages_that_are_not_the_references(monkeypatch):
    assert kernel_check.versions() == kernel_check.REFERENCE_VERSIONS  # this machine is the reference
    monkeypatch.setattr(kernel_check, "fingerprint", lambda: dict(kernel_check.REFERENCE, **{"mujoco-mlp": "0"}))
    monkeypatch.setattr(kernel_check, "versions", lambda: dict(kernel_check.REFERENCE_VERSIONS, mujoco="3.3.0"))
    with pytest.raises(kernel_check.KernelMismatch, match=r"\(mujoco-mlp; .*installed here: mujoco 3.3.0 "
                                                          r"\(reference 4.0.1\)\)"):
        kernel_check.check()
