"""Medians, percentiles and counts without numpy's per-call overhead: the same numbers, for
the small arrays the finder and the dice ask about many times a frame.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image import Image


def median_uint8(values: NDArray[np.uint8]) -> float:
    """``np.median(values).astype(np.uint8)`` from a histogram (a tenth of the time)."""
    counts = np.cumsum(np.bincount(values, minlength=256))
    n = int(counts[-1])
    lo = int(np.searchsorted(counts, (n - 1) // 2, side="right"))
    hi = int(np.searchsorted(counts, n // 2, side="right"))
    return float((lo + hi) // 2)


def percentile(a: NDArray[Any], q: float) -> NDArray[np.float64]:
    """``np.percentile(a, q, axis=0)`` (linear), the same numbers without its per-call
    overhead (it runs a few times per row of tiles)."""
    lo, hi, t = _ranks(a.shape[0], q)
    part = np.partition(a, (lo, hi) if hi != lo else lo, axis=0)
    return lerp_as_numpy(part[lo].astype(np.float64), part[hi].astype(np.float64), t)


def column_percentile(values: NDArray[Any], q: float) -> NDArray[np.float64]:
    """:func:`percentile` of 8-bit values, the columns laid as rows of 16-bit values and
    sorted (numpy's vectorised sort), where partitioning 8-bit columns took twice as long."""
    lo, hi, t = _ranks(values.shape[0], q)
    ordered = np.sort(values.T.astype(np.int16), axis=1)
    return lerp_as_numpy(ordered[:, lo].astype(np.float64), ordered[:, hi].astype(np.float64), t)


def _ranks(n: int, q: float) -> tuple[int, int, float]:
    """Where ``np.percentile`` (linear) takes the ``q``th percentile of ``n`` sorted values:
    the ranks either side and how far between them."""
    index = q / 100 * (n - 1)
    lo = int(np.floor(index))
    return lo, min(lo + 1, n - 1), index - lo


def lerp_as_numpy(below: Any, above: Any, t: Any) -> NDArray[np.float64]:
    """Between two neighbours at ``t`` as ``np.percentile`` interpolates: from the nearer
    end, so the last bits are numpy's."""
    diff = above - below
    return np.asarray(np.where(t >= 0.5, above - diff * (1 - t), below + diff * t), np.float64)


def true_counts(values: NDArray[np.bool_], axis: int) -> NDArray[np.int32]:
    """How many values hold along ``axis`` (0: per column, 1: per row): the counts of
    ``values.sum(axis)`` by OpenCV's reduction, several times faster on narrow arrays."""
    sums = cv2.reduce(values.view(np.uint8), axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S)
    return np.asarray(sums.reshape(-1), np.int32)


def median(values: NDArray[np.float64]) -> float:
    """``np.median`` of a 1-d array, the same number without its per-call overhead (a tenth
    of a millisecond, once per run of tiles)."""
    n = len(values)
    half = n // 2
    if n % 2:
        return float(np.partition(values, half)[half])
    part = np.partition(values, (half - 1, half))
    return float((part[half - 1] + part[half]) / 2)


def masked_percentile(values: Image, where: NDArray[np.bool_], q: float) -> NDArray[np.float64]:
    """Per column, ``np.percentile`` (linear) of the values ``where`` holds; 0 where it holds
    none. (Sorted with the others below every value: the held ones are each column's last.)"""
    rows = values.shape[0]
    ordered = np.sort(np.where(where, values.astype(np.int16), -1), axis=0)
    held = where.sum(axis=0)
    index = (rows - held) + q / 100 * np.maximum(held - 1, 0)
    lo = np.minimum(np.floor(index), rows - 1).astype(np.int64)
    hi = np.minimum(lo + 1, rows - 1)
    below = np.take_along_axis(ordered, lo[None], axis=0)[0].astype(np.float64)
    above = np.take_along_axis(ordered, hi[None], axis=0)[0].astype(np.float64)
    t = index - lo
    out = np.where(t > 0, below + (above - below) * t, below)
    return np.asarray(np.where(held > 0, out, 0.0))
