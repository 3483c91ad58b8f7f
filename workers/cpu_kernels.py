"""The CPU float kernels every node computes with, pinned so that nodes on different x86-64 CPUs
get the same bits.

torch picks its matrix-product and vector kernels by the CPU it runs on: MKL's sgemm by the
widest instruction set it finds (AVX-512 here, AVX2 on most AMD and older Intel CPUs) and ATen's
own kernels by its CPU capability. The same honest round then gives other bits on an AVX2-only
machine (measured: every shard's log-probabilities, every trace state and the checkpoint), so a
validator there would reject a trainer's trace that must re-execute bit for bit, and slash an
honest node. Pinned, every x86-64 CPU with AVX2 computes MKL's AVX2 reproducibility branch
(strict: the bits do not depend on memory alignment) and ATen's AVX2 kernels, and gets the same
bits (workers.roles.kernel_check proves it at `decentrl node start`).

MKL and ATen read these variables at their first computation, not at import, so `workers`
sets them when it is imported (workers/__init__.py), before any of its modules computes."""

from __future__ import annotations

import os

MKL_BRANCH = "AVX2,STRICT"
"""MKL's Conditional Numerical Reproducibility branch (MKL_CBWR): AVX2 code paths on any CPU that
has AVX2, strict mode. The slower COMPATIBLE branch (SSE2 paths on any x86-64) took ~2x the time
of a CNN step; this one ~1.05x of the unpinned AVX-512 kernels."""

ATEN_CAPABILITY = "avx2"
"""ATen's CPU capability (ATEN_CPU_CAPABILITY): its AVX2 kernels, on AVX-512 CPUs too."""

PINNED = {"MKL_CBWR": MKL_BRANCH, "ATEN_CPU_CAPABILITY": ATEN_CAPABILITY}
"""The environment variables that pin them. An operator's own values are overridden: a node that
computes other bits than its task's validators is rejected for honest work."""


def pin() -> None:
    """Set PINNED in this process's environment (inherited by every process it starts)."""
    os.environ.update(PINNED)
