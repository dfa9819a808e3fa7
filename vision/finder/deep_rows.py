"""A blob of rows one behind another (a seat's discards late in a hand) cut into its rows,
then each row into its tiles.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.image import Image
from vision.stats import true_counts

from .found import PX_PER_MM, Found, Rect
from .one_row import split_rows
from .outline import grid_rect
from .seams import cut_strip, seam_lines, seam_profile
from .sizes import MAX_ROWS, two_rows_mm


def cut_rows(
    outline: NDArray[np.float32],
    grey: Image,
    mask: Image,
    calibration: Calibration,
    rect: Rect,
    across: NDArray[np.float64],
    depth: float,
    along: NDArray[np.float64],
    length: float,
) -> list[Found]:
    """The tiles of a blob (every pixel of its ``outline``; its grid rectangle ``rect``)
    taken as rows running ``along``, one behind another ``across``: as many rows as the depth
    holds (two at least), each cut from the next at the darkest line across the blob near
    where the seam is expected, then each row cut into its tiles."""
    parts, slack = row_parts(outline, grey, mask, calibration, rect, across, depth, along, length)
    return [f for row in split_rows(parts, grey, mask, calibration, slack) for f in row]


def row_parts(
    outline: NDArray[np.float32],
    grey: Image,
    mask: Image,
    calibration: Calibration,
    rect: Rect,
    across: NDArray[np.float64],
    depth: float,
    along: NDArray[np.float64],
    length: float,
) -> tuple[list[Rect], float]:
    """:func:`cut_rows`'s rows before they are cut into tiles: each row's rectangle, and the
    slack (mm) a row of them may take beyond a tile's length."""
    g = calibration.geometry
    centre = np.array(rect[0], np.float64)
    depth_mm = depth / PX_PER_MM
    rows = 2 if depth_mm < two_rows_mm(g) else round((depth_mm + 4) / (g.tile_h_mm + 4))
    rows = min(max(rows, 2), MAX_ROWS)
    strip = cut_strip(grey, centre, across, along, depth, length)
    cover2d = cut_strip(mask, centre, across, along, depth, length) > 127
    if rows == 2:  # both rows as deep as a row can be (below): no short row to mislead
        share = true_counts(cover2d, 0) / cover2d.shape[0]
        prof = seam_profile(strip, cover2d) * np.clip(share * 1.5, 0, 1)
    else:
        prof = seam_lines(strip, cover2d)
    pitch = len(prof) / rows
    # Two rows: where both are as deep as a row can be, else anywhere in the middle half
    # (a dark line of engraving inside the first row of two shallow ones was taken for the
    # seam); more: within a third of a row of the place.
    reach = round(0.5 * pitch if rows == 2 else 0.35 * pitch)
    shallowest, deepest = (g.tile_w_mm - 3) * PX_PER_MM, (g.tile_h_mm + 8) * PX_PER_MM
    cuts = []
    for j in range(1, rows):
        expected = round(j * pitch)
        lo, hi = max(0, expected - reach), min(len(prof), expected + reach)
        if rows == 2:
            both_rows = (
                round(max(shallowest, len(prof) - deepest)),
                round(min(deepest, len(prof) - shallowest)),
            )
            if both_rows[0] < both_rows[1]:
                lo, hi = both_rows
        cuts.append(lo + int(np.argmin(prof[lo:hi])) - depth / 2)
    from_centre = outline - centre.astype(np.float32)
    offset = from_centre @ across.astype(np.float32)
    # Where along the rows each outline pixel lies, as a line of the strips.
    line = np.clip(
        np.round(from_centre @ along.astype(np.float32) + length / 2), 0, cover2d.shape[0] - 1
    ).astype(np.int64)
    bounds = [-np.inf, *cuts, np.inf]
    # The outer rows of a deep blob carry its shadow: a little more slack. (With 8 mm for
    # two rows, a row of six discards cut from the first of the next measured 38-39 mm and
    # was taken for a hand over the table in 8 of 30 renders.)
    slack = 10.0 if rows == 2 else 12.0
    parts: list[Rect] = []
    # Per line along the rows, how many of its first pixels across them the blob covers.
    covered_to = np.zeros((cover2d.shape[0], cover2d.shape[1] + 1), np.int32)
    np.cumsum(cover2d, axis=1, out=covered_to[:, 1:])
    for a, b in itertools.pairwise(bounds):
        # A row shorter than the one beside it (the last discards) is where the blob fills
        # the row's band: the other row's edge, running on past it beside the cut, is not.
        first = 0 if a == -np.inf else min(max(0, round(a + depth / 2)), cover2d.shape[1])
        after = cover2d.shape[1] if b == np.inf else max(first, round(b + depth / 2))
        after = min(after, cover2d.shape[1])
        if after > first:  # more than half the band's pixels (the mean, to the bit)
            filled = (covered_to[:, after] - covered_to[:, first]) / (after - first) > 0.5
        else:
            filled = np.ones(len(cover2d), bool)
        filled = np.convolve(filled, np.ones(7), mode="same") > 0  # and its rim
        part = outline[(offset >= a) & (offset < b) & filled[line]]
        if len(part) >= 8:
            parts.append(grid_rect(part, rect[2]))
    return parts, slack
