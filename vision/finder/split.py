"""A blob's tiles: one row cut at its seams, or rows one behind another cut apart first, the
blob's rows taken the way that explains it best.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.geometry import TableGeometry
from vision.image import Image

from .deep_rows import cut_rows, row_parts
from .found import PX_PER_MM, Found, Rect, obstruction_at, rect_axes
from .one_row import split_row
from .outline import every_pixel, grid_rect, row_direction
from .sizes import MAX_ROWS, fills, one_row_mm


def blob_rect(points: NDArray[np.float32], least: Rect, g: TableGeometry) -> Rect:
    """The blob's rectangle turned the way its rows run (its outline ``points``, its
    smallest-area rectangle ``least``)."""
    return grid_rect(points, row_direction(points, least, g))


def first_rows(
    points: NDArray[np.float32],
    rect: Rect,
    grey: Image,
    mask: Image,
    calibration: Calibration,
    outline: NDArray[np.float32] | None = None,
) -> tuple[list[Rect], list[float]]:
    """The rows a blob of this rectangle (:func:`blob_rect`) is cut into first, before
    they are cut into tiles, and each one's slack (mm): itself when it is one row deep,
    its rows running along it when it is deeper (:func:`row_parts`), none otherwise.
    ``outline``: every pixel of the outline (:func:`every_pixel`), when made already."""
    g = calibration.geometry
    if one_row_deep(rect, g):
        return [rect], [8.0]
    if not rows_behind(rect, g):
        return [], []
    along, across, length, depth = rect_axes(rect)
    outline = every_pixel(points) if outline is None else outline
    parts, slack = row_parts(outline, grey, mask, calibration, rect, across, depth, along, length)
    return parts, [slack] * len(parts)


def rows_behind(rect: Rect, g: TableGeometry) -> bool:
    """Whether a blob of this rectangle (:func:`blob_rect`) is cut as rows one behind
    another (deeper than one row, not too deep for rows)."""
    depth_mm = rect_axes(rect)[3] / PX_PER_MM
    return one_row_mm(g) < depth_mm < MAX_ROWS * (g.tile_h_mm + 16)


def one_row_deep(rect: Rect, g: TableGeometry) -> bool:
    """Whether a blob of this rectangle (:func:`blob_rect`) is cut as one row."""
    depth_mm = rect_axes(rect)[3] / PX_PER_MM
    return g.tile_w_mm - 6 <= depth_mm <= one_row_mm(g)


def split_blob(
    points: NDArray[np.float32],
    least: Rect,
    area: float,
    grey: Image,
    mask: Image,
    calibration: Calibration,
    given: Rect | None = None,
    row: list[Found] | None = None,
    outline: NDArray[np.float32] | None = None,
) -> list[Found]:
    """The tiles of a blob (its outline ``points``, its smallest-area rectangle ``least``):
    one row cut at its seams, or rows one behind another cut apart first. ``given``: its
    :func:`blob_rect`, and ``row`` that cut as one row, or as rows running along it
    (:func:`first_rows`; :func:`split_rows` cuts every row of a frame at once), when it
    was; ``outline``: every pixel of its outline, when made already."""
    g = calibration.geometry

    def or_along_least(found: list[Found]) -> list[Found]:
        # When cutting along the edges' direction leaves something unexplained, the blob cut
        # along its smallest rectangle instead, if that explains it better: as one row when
        # it is one row deep, else as rows one behind another. The notches between tiles laid
        # a few millimetres apart, or a short second row beside a long first one, turn the
        # edges' direction 4-7 degrees off; a row measured that way came out 6-10 mm deeper
        # than it is: too deep for a row of tiles, or cut into rows too shallow for tiles,
        # a hand either way (three discards; a seat's six and two behind them).
        if not _unexplained(found, area, g):
            return found
        score = cutting_score(found, area, g)
        l_along, l_across, l_length, l_depth = rect_axes(least)
        if l_depth <= one_row_mm(g) * PX_PER_MM:
            other = split_row(least, grey, mask, calibration)
        elif l_depth < deepest_mm * PX_PER_MM and abs(turn_between(least[2], rect[2])) > 1.0:
            other = cut_rows(
                every_pixel(points) if outline is None else outline,
                grey,
                mask,
                calibration,
                least,
                l_across,
                l_depth,
                l_along,
                l_length,
            )
        else:
            return found
        return other if cutting_score(other, area, g) < score else found

    rect = blob_rect(points, least, g) if given is None else given
    centre = np.array(rect[0], np.float64)
    along, across, length, depth = rect_axes(rect)
    depth_mm = depth / PX_PER_MM
    deepest_mm = MAX_ROWS * (g.tile_h_mm + 16)
    if depth_mm < g.tile_w_mm - 6 or depth_mm >= deepest_mm:
        return [obstruction_at(centre, depth, length, along)]
    if depth_mm <= one_row_mm(g):
        return or_along_least(row if row is not None else split_row(rect, grey, mask, calibration))
    # Rows one behind another. A blob about as deep as it is long may hold its rows either
    # way (a seat's late discards, four tiles wide and three deep, were cut into columns and
    # a seam between two of them missed): unless the first cutting explains it cleanly, it
    # is cut the other way too, and kept the way that explains it better.
    # Every pixel of the outline, so that each row gets its own sides (a compressed outline
    # keeps only the ends of straight runs: a row between two corners got none of them).
    outline = every_pixel(points) if outline is None else outline
    if row is None:
        found = cut_rows(outline, grey, mask, calibration, rect, across, depth, along, length)
    else:
        found = row
    near_square = length < 1.35 * depth and length < deepest_mm * PX_PER_MM
    score = cutting_score(found, area, g)
    if near_square and score[:2] != (0, 0):
        other = cut_rows(outline, grey, mask, calibration, rect, along, length, across, depth)
        if cutting_score(other, area, g) < score:
            found = other
    return or_along_least(found)


def turn_between(a: float, b: float) -> float:
    """The smallest turn between two rectangles' directions, in degrees (a rectangle looks
    the same turned by 90)."""
    return (a - b + 45.0) % 90.0 - 45.0


def cutting_score(cut: list[Found], area: float, g: TableGeometry) -> tuple[int, int, int]:
    """How well a cutting explains a blob of ``area`` pixels, lower better: the obstructions
    it leaves (and one more when its tiles do not fill the blob); then the tiles turned
    across the others (rows one behind another are laid alike: a cut in the wrong place
    leaves a row as deep as upright tiles, cut across); then more tiles."""
    tiles = [f for f in cut if f.kind == "tile"]
    along_y = sum(1 for f in tiles if min(f.angle, 180 - f.angle) < 45)
    turned = min(along_y, len(tiles) - along_y)
    return _unexplained(cut, area, g), turned, -len(tiles)


def _unexplained(cut: list[Found], area: float, g: TableGeometry) -> int:
    """:func:`cutting_score`'s first term alone (most blobs are explained: nothing more to
    weigh)."""
    tiles = sum(1 for f in cut if f.kind == "tile")
    return len(cut) - tiles + (not fills(area, tiles, g))
