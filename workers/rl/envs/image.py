"""Image operations for observation wrappers, in exact integer arithmetic.

Observations are verified bit for bit on other machines, so these never go through floating point
(whose sums BLAS and SIMD may order differently per CPU and thread count) nor OpenCV.
"""

from __future__ import annotations

import functools

import numpy as np

_LUMA = np.array([299, 587, 114], dtype=np.uint32)
"""ITU-R BT.601 luma weights in thousandths (what OpenCV's and PIL's RGB->gray use)."""


def grayscale(rgb: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 RGB -> (H, W, 1) uint8 luma, rounded half up."""
    return ((rgb.astype(np.uint32) @ _LUMA + 500) // 1000).astype(np.uint8)[..., None]


@functools.lru_cache(maxsize=16)
def _area_weights(size_in: int, size_out: int) -> tuple[np.ndarray, np.ndarray]:
    """Input indices (size_out, K) and integer weights (size_out, K) of area interpolation.

    Output pixel o covers input [o * size_in / size_out, (o + 1) * size_in / size_out). Scaled by
    size_out, pixel i covers [i * size_out, (i + 1) * size_out), so every overlap is an integer and
    each output's weights sum to size_in."""
    span = -(-size_in // size_out) + 1  # most input pixels one output pixel touches
    index = np.zeros((size_out, span), dtype=np.intp)
    weight = np.zeros((size_out, span), dtype=np.int64)
    for o in range(size_out):
        lo, hi = o * size_in, (o + 1) * size_in
        first = lo // size_out
        for k, i in enumerate(range(first, min(size_in, -(-hi // size_out)))):
            index[o, k] = i
            weight[o, k] = min(hi, (i + 1) * size_out) - max(lo, i * size_out)
    return index, weight


def resize(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """(H, W, C) uint8 -> (height, width, C) uint8 by area interpolation (each output pixel is the
    mean of the input area it covers, rounded half up), exact in integers."""
    h, w, _ = image.shape
    if (h, w) == (height, width):
        return image.copy()
    rows, row_w = _area_weights(h, height)
    cols, col_w = _area_weights(w, width)
    pixels = image.astype(np.int64)
    tall = sum(row_w[:, k, None, None] * pixels[rows[:, k]] for k in range(rows.shape[1]))
    full = sum(col_w[None, :, k, None] * tall[:, cols[:, k]] for k in range(cols.shape[1]))
    area = h * w
    return ((full + area // 2) // area).astype(np.uint8)
