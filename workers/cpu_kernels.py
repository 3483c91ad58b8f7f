"""The CPU float kernels every node computes with, pinned so that nodes on different x86-64 CPUs
get the same bits.

torch picks its matrix-product and vector kernels by the CPU it runs on: MKL's sgemm by the
widest instruction set it finds (AVX-512 here, AVX2 on many others) and by the CPU's vendor, and
ATen's own kernels by its CPU capability. The same honest round gave other bits with MKL limited
to AVX2 than with this machine's AVX-512 (measured: every shard's log-probabilities, every trace
state and the checkpoint), so a validator on one machine would reject a trainer's trace that
must re-execute bit for bit, and slash an honest node. Pinned, MKL runs its COMPATIBLE
reproducibility branch (one SSE2 code path on every Intel and AMD x86-64 CPU; strict: the bits
do not depend on memory alignment) and ATen its AVX2 kernels, on every CPU that has AVX2
(workers.roles.kernel_check proves it at `decentrl node start`).

MKL and ATen read these variables at their first computation, not at import, so `workers`
sets them when it is imported (workers/__init__.py), before any of its modules computes."""

from __future__ import annotations

import os

MKL_BRANCH = "COMPATIBLE,STRICT"
"""MKL's Conditional Numerical Reproducibility branch (MKL_CBWR). MKL's ISA branches (AVX2, AVX512)
are "available only for Intel processors": on AMD it would ignore them and dispatch as it likes.
COMPATIBLE is the branch it keeps on both vendors. Its products gave the same bits with MKL
limited to AVX-512, AVX2 and SSE4.2; a CNN step (batch 64) costs ~1.5x and a 256x256 MLP step ~2x
the unpinned AVX-512 kernels, a small round's whole work (rollout, update, trace) the same."""

ATEN_CAPABILITY = "avx2"
"""ATen's CPU capability (ATEN_CPU_CAPABILITY): its AVX2 kernels, on AVX-512 CPUs too. A CPU
without AVX2 falls back to ATen's default kernels, whose bits differ (the check refuses it)."""

PINNED = {"MKL_CBWR": MKL_BRANCH, "ATEN_CPU_CAPABILITY": ATEN_CAPABILITY}
"""The environment variables that pin them. An operator's own values are overridden: a node that
computes other bits than its task's validators is rejected for honest work."""


def pin() -> None:
    """Set PINNED in this process's environment (inherited by every process it starts)."""
    os.environ.update(PINNED)
