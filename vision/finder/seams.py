"""Where a blob is cut: per line across a strip of it, how unlike a seam or a gap that line
is.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image import Image
from vision.stats import column_percentile, masked_percentile, percentile, true_counts


def cut_strip(
    grey: Image,
    centre: NDArray[np.float64],
    along: NDArray[np.float64],
    across: NDArray[np.float64],
    length: float,
    depth: float,
) -> Image:
    """The rotated rectangle cut out with ``along`` horizontal."""
    w, h = max(1, round(length)), max(1, round(depth))
    origin = centre - along * length / 2 - across * depth / 2
    m = np.array([[along[0], across[0], origin[0]], [along[1], across[1], origin[1]]])
    return np.asarray(
        cv2.warpAffine(
            grey,
            m,
            (w, h),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        ),
        np.uint8,
    )


def seam_profile(
    strip: Image, cover: NDArray[np.bool_] | None = None, brighter_part: float = 75.0
) -> NDArray[np.float64]:
    """Per column, how unlike a seam it is (low at a seam or a gap).

    Two signals: the brightness of the column's brighter part (its ``brighter_part``
    percentile: a seam's dark rim crosses the whole depth, an engraving never does), and the
    notches the rounded corners of two touching tiles cut into the row's outline (taken on
    the fuller of the two long edges, so a sideways tile, shallower than the row, does not
    look like a seam)."""
    h = strip.shape[0]
    core = strip[round(h * 0.2) : max(round(h * 0.8), round(h * 0.2) + 1)]
    prof = against_brightest(column_percentile(core, brighter_part))
    if cover is not None:
        band = max(2, round(h * 0.15))
        edge = np.maximum(true_counts(cover[:band], 0), true_counts(cover[-band:], 0)) / band
        prof = prof * np.convolve(edge, np.ones(3) / 3, mode="same")
    return np.asarray(prof)


def seam_lines(strip: Image, cover: NDArray[np.bool_], reach: int = 3) -> NDArray[np.float64]:
    """Per line across rows one behind another, how unlike the seam between two rows it is
    (low at a seam or a gap): the brightness of its brighter part, judged only where the
    blob goes on ``reach`` pixels to both sides of the line. A short last row (a few
    discards) leaves most of its lines uncovered: judged on all of them, those lines looked
    like a gap, and the cut fell inside the short row."""
    width = strip.shape[1]
    both = np.zeros_like(cover)
    if width > 2 * reach:
        both[:, reach : width - reach] = cover[:, : width - 2 * reach] & cover[:, 2 * reach :]
    return against_brightest(masked_percentile(strip, both, 75))


def against_brightest(brightness: NDArray[np.float64]) -> NDArray[np.float64]:
    """A line's brightness, smoothed over three, as a share of the line brightness that only
    a tenth of the lines exceed (0 to 1)."""
    prof = np.convolve(brightness, np.ones(3) / 3, mode="same")
    top = max(1.0, float(percentile(prof, 90)))
    return np.asarray(np.clip(prof / top, 0, 1))
