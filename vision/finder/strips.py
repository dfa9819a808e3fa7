"""Rows of tiles cut out of the top-down image all at once: every row's strip (its rotated
rectangle turned so that the row runs along it) sampled in one ``cv2.remap`` of the grey image
and one of the mask, laid side by side, and each strip's seam profile computed over all of
them in a few whole-array operations.

The strips are stored transposed: one array line per column of a strip (a line across its
row), the strips one after another, each as deep as its row and padded to the deepest. Every
per-column measure (how much of the line the blob covers, the brightness of its brighter
part, the notches at the row's edges) is then one operation over the whole array, masked to
each strip's own depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image import Image
from vision.stats import lerp_as_numpy, true_counts

# The widest map one remap may take (OpenCV's limit on an image side, with room).
_MAX_LINES = 30000


@dataclass(frozen=True)
class Strips:
    """Rows cut out side by side. Strip ``s`` has ``depth[s]`` lines along its row and
    ``length[s]`` lines across it, the latter from ``start[s]`` of the arrays; ``grey`` and
    ``cover`` are (lines, deepest), valid where ``inside``."""

    start: NDArray[np.int64]
    length: NDArray[np.int64]
    depth: NDArray[np.int64]
    owner: NDArray[np.int64]  # per line, its strip
    grey: NDArray[np.uint8]
    cover: NDArray[np.bool_]
    inside: NDArray[np.bool_]

    def line_cover(self) -> NDArray[np.float64]:
        """Per line, the share of it the blob covers (the strip's column mean)."""
        return np.asarray(true_counts(self.cover, 1) / self.depth[self.owner], np.float64)

    def covered_between(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
        """Per piece, from line ``a`` to before line ``b`` (``a < b``, pieces in order and
        apart: each ``b`` at most the next ``a``), how many of its lines are covered at each
        depth: one ``np.add.reduceat`` over the pieces' bounds (the sums between pieces are
        dropped)."""
        if not len(a):
            return np.zeros((0, self.cover.shape[1]), np.int64)
        bounds = np.empty(2 * len(a), np.int64)
        bounds[0::2], bounds[1::2] = a, b
        if bounds[-1] == len(self.cover):  # the last piece runs to the end
            bounds = bounds[:-1]
        sums = np.add.reduceat(self.cover, bounds, axis=0, dtype=np.int64)
        return np.asarray(sums[0::2], np.int64)


def cut_strips(
    grey: Image,
    mask: Image,
    centre: NDArray[np.float64],
    along: NDArray[np.float64],
    across: NDArray[np.float64],
    length: NDArray[np.float64],
    depth: NDArray[np.float64],
) -> Strips:
    """Each rectangle (``centre``, unit vectors ``along`` and ``across`` it, (n, 2) each;
    its ``length`` along and ``depth`` across) cut out of ``grey`` and ``mask`` (bilinear,
    the border repeated) with ``along`` running down the lines, as ``cv2.warpAffine``
    with the rectangle's own matrix cuts it."""
    n_len = np.maximum(1, _rounded(length))
    n_dep = np.maximum(1, _rounded(depth))
    start = np.concatenate([[0], np.cumsum(n_len)[:-1]]).astype(np.int64)
    total, deepest = int(n_len.sum()), int(n_dep.max())
    owner = np.repeat(np.arange(len(n_len)), n_len)
    x = (np.arange(total) - start[owner]).astype(np.float64)  # along the row
    y = np.arange(deepest, dtype=np.float64)  # across it
    origin = centre - along * (length / 2)[:, None] - across * (depth / 2)[:, None]
    # Each coordinate: where the line starts plus how far across, made in one buffer and
    # rounded to single precision as the sum is written (the same numbers as a cast after).
    buffer = np.empty((total, deepest))
    map_x, map_y = (np.empty((total, deepest), np.float32) for _ in (0, 1))
    for k, out in ((0, map_x), (1, map_y)):
        np.multiply(across[owner, k][:, None], y[None], out=buffer)
        np.add(buffer, (origin[owner, k] + along[owner, k] * x)[:, None], out=out)
    grey_strips, mask_strips = _remap((grey, mask), map_x, map_y)
    cover = mask_strips > 127
    inside = _per_line(y[None, :] < n_dep[:, None], n_len)
    return Strips(start, n_len, n_dep, owner, grey_strips, cover & inside, inside)


def _per_line(per_strip: NDArray[Any], length: NDArray[np.int64]) -> NDArray[Any]:
    """A row per strip repeated for each of its lines (a strip's lines are consecutive)."""
    return np.repeat(per_strip, length, axis=0)


def _rounded(values: NDArray[np.floating[Any]]) -> NDArray[np.int64]:
    """Python's ``round`` of each value (halves to even, as numpy's ``rint``)."""
    return np.asarray(np.rint(values), np.int64)


def _remap(
    images: tuple[Image, Image], map_x: NDArray[np.float32], map_y: NDArray[np.float32]
) -> tuple[Image, Image]:
    """Both images sampled where the maps say (bilinear, the border repeated)."""
    first, second = (
        np.asarray(
            np.concatenate(
                [
                    cv2.remap(
                        image,
                        map_x[i : i + _MAX_LINES],
                        map_y[i : i + _MAX_LINES],
                        cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE,
                    )
                    for i in range(0, len(map_x), _MAX_LINES)
                ]
            ),
            np.uint8,
        )
        for image in images
    )
    return first, second


def seam_profiles(strips: Strips, brighter_part: float) -> NDArray[np.float64]:
    """Per line of every strip, how unlike a seam it is (low at a seam or a gap), as
    :func:`vision.finder.seams.seam_profile` gives it strip by strip: the brightness of the
    line's brighter part within the middle three fifths of the row's depth, smoothed over
    three lines and as a share of what only a tenth of the strip's lines exceed, times the
    fuller of the two long edges' cover, smoothed alike."""
    y = np.arange(strips.grey.shape[1])[None, :]
    core_lo = _rounded(strips.depth * 0.2)
    core_hi = np.maximum(_rounded(strips.depth * 0.8), core_lo + 1)
    bright = _band_percentile(strips, core_lo, core_hi, brighter_part)
    prof = _smoothed(bright, strips)
    top = np.maximum(1.0, _percentile_per_strip(prof, strips, 90.0))
    prof = np.clip(prof / top[strips.owner], 0, 1)
    band = np.maximum(2, _rounded(strips.depth * 0.15))
    near = strips.cover & _per_line(y < band[:, None], strips.length)
    far = strips.cover & _per_line(y >= (strips.depth - band)[:, None], strips.length)
    edge = np.maximum(true_counts(near, 1), true_counts(far, 1)) / band[strips.owner]
    return np.asarray(prof * _smoothed(edge, strips))


def _band_percentile(
    strips: Strips, lo: NDArray[np.int64], hi: NDArray[np.int64], q: float
) -> NDArray[np.float64]:
    """Per line, ``np.percentile`` (linear) of its grey values from ``lo`` to before ``hi``
    of its strip (one value at least). Sorted with the others below every value, the band's
    are each line's last; only the columns some band reaches are sorted."""
    first, after = int(lo.min()), int(hi.max())
    y = np.arange(first, after)[None, :]
    band = _per_line((y >= lo[:, None]) & (y < hi[:, None]), strips.length)
    values = strips.grey[:, first:after].astype(np.int16)
    values[~band] = -1
    ordered = np.sort(values, axis=1)
    # Where in a line of the whole strips' depth the percentile lies (so that its fraction
    # rounds as it did there), then in the columns sorted.
    width, left_out = strips.grey.shape[1], strips.grey.shape[1] - (after - first)
    held = (hi - lo)[strips.owner]
    index = (width - held) + q / 100 * (held - 1)
    below_at = np.floor(index).astype(np.int64)
    above_at = np.minimum(below_at + 1, width - 1)
    below = np.take_along_axis(ordered, below_at[:, None] - left_out, axis=1)[:, 0]
    above = np.take_along_axis(ordered, above_at[:, None] - left_out, axis=1)[:, 0]
    below, above = below.astype(np.float64), above.astype(np.float64)
    t = index - below_at
    return lerp_as_numpy(below, above, t)


def _smoothed(values: NDArray[np.float64], strips: Strips) -> NDArray[np.float64]:
    """Each strip's values smoothed over three lines, nothing beyond its ends (as
    ``np.convolve(values, np.ones(3) / 3, mode="same")`` strip by strip)."""
    before = np.concatenate([[0.0], values[:-1]])
    after = np.concatenate([values[1:], [0.0]])
    before[strips.start] = 0.0
    after[strips.start + strips.length - 1] = 0.0
    return np.asarray((before + values + after) / 3)


def _percentile_per_strip(
    values: NDArray[np.float64], strips: Strips, q: float
) -> NDArray[np.float64]:
    """Per strip, ``np.percentile`` (linear) of its lines' values: the strips' values laid
    one strip a row (padded above every value) and the rows sorted."""
    longest = int(strips.length.max())
    at = np.arange(len(values)) - strips.start[strips.owner]
    laid = np.full((len(strips.start), longest), np.inf)
    laid[strips.owner, at] = values
    ordered = np.sort(laid, axis=1)
    index = q / 100 * (strips.length - 1)
    lo = np.floor(index).astype(np.int64)
    hi = np.minimum(lo + 1, strips.length - 1)
    rows = np.arange(len(strips.start))
    below, above = ordered[rows, lo], ordered[rows, hi]
    t = index - lo
    return lerp_as_numpy(below, above, t)


def runs_of(
    covered: NDArray[np.bool_], strips: Strips
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The runs of covered lines within each strip: their first lines and the lines after
    their last (positions in the whole arrays; no run crosses from one strip to the next)."""
    first = np.zeros(len(covered), bool)
    first[strips.start] = True
    last = np.zeros(len(covered), bool)
    last[strips.start + strips.length - 1] = True
    before = np.concatenate([[False], covered[:-1]]) & ~first
    after = np.concatenate([covered[1:], [False]]) & ~last
    begins = np.flatnonzero(covered & ~before)
    ends = np.flatnonzero(covered & ~after) + 1
    return begins, ends
