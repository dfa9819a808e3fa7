"""One row of tiles cut into its tiles, upright or sideways as the cutting took them."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.image import Image

from .cutting import cut_run
from .found import PX_PER_MM, Found, Rect, obstruction_at, rect_axes, tile_at
from .seams import cut_strip, seam_profile


def _runs(covered: NDArray[np.bool_]) -> list[tuple[int, int]]:
    edges = np.diff(np.concatenate([[0], covered.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


# Between tiles of one row, a seam's rim crosses a tile's whole depth; an engraving (a column
# of dots, bamboo) may cross three quarters of it. Judged by the brightest twentieth of each
# line, engravings stop looking like seams: on 16 rendered hands of xmj-real's scanned tiles
# laid out (224 tiles), 15 missed and 11 false, against 2 and 0 judged by the brightest
# quarter. (Rows one behind another are still cut apart by the brightest quarter: so, a
# symbola discard blob two rows deep was lost.)
_ALONG_ROW_BRIGHTER_PART = 95.0


def split_row(
    rect: Rect, grey: Image, mask: Image, calibration: Calibration, slack_mm: float = 8.0
) -> list[Found]:
    """The tiles of one row; deeper than a tile's length and ``slack_mm``, not a row."""
    g = calibration.geometry
    tw, th = g.tile_w_mm * PX_PER_MM, g.tile_h_mm * PX_PER_MM
    centre = np.array(rect[0], np.float64)
    along, across, length, depth = rect_axes(rect)
    # One tile, its long side either way (with its share of the slack: the shadow of a deep
    # blob's outer row lengthens a lone last discard in it).
    one = th + (slack_mm - 4) * PX_PER_MM
    if length < one and depth < one:
        if length >= depth:
            return [tile_at(centre, along, th, tw)]
        return [tile_at(centre, across, th, tw)]
    if depth > th + slack_mm * PX_PER_MM or depth < tw - 6 * PX_PER_MM:
        return [obstruction_at(centre, depth, length, along)]
    upright_row = abs(depth - th) < abs(depth - tw)
    lengths = [tw, th] if upright_row else [th]
    strip = cut_strip(grey, centre, along, across, length, depth)
    cover2d = cut_strip(mask, centre, along, across, length, depth) > 127
    cover = cover2d.mean(axis=0)
    profile = seam_profile(strip, cover2d, _ALONG_ROW_BRIGHTER_PART) * np.clip(cover * 1.5, 0, 1)
    # Per line across the row, how much of it is covered up to each column (a piece's share
    # is a difference of two: each piece's mean, without a pass over its pixels).
    covered_to = np.zeros((cover2d.shape[0], cover2d.shape[1] + 1), np.int64)
    np.cumsum(cover2d, axis=1, out=covered_to[:, 1:])
    out = []
    for a0, b0 in _runs(cover > 0.3):
        if b0 - a0 < tw - 6 * PX_PER_MM:
            continue
        pieces = cut_run(
            profile[a0:b0], lengths, cover[a0:b0] * depth / th, tw / th, tw, upright_row
        )
        if pieces is None:
            c = centre + along * ((a0 + b0) / 2 - length / 2)
            out.append(obstruction_at(c, depth, b0 - a0, along))
            continue
        for a, b, cut_as in pieces:
            a, b = a + a0, b + a0
            # Where across the row this piece lies (a sideways tile is shallower than the row).
            rows = np.flatnonzero((covered_to[:, b] - covered_to[:, a]) / (b - a) > 0.5)
            lo, hi = (rows[0], rows[-1] + 1) if len(rows) else (0, strip.shape[0])
            c = centre + along * ((a + b) / 2 - length / 2) + across * ((lo + hi) / 2 - depth / 2)
            if upright_row and cut_as == 0:
                out.append(tile_at(c, across, th, tw))  # upright: long side across the row
            else:
                out.append(tile_at(c, along, th, tw))  # sideways: long side along the row
    return out
