"""What the finder reports, and the rotated rectangles it measures them by.

Everything is in table millimetres; the top-down image the finder works on has
``PX_PER_MM`` pixels to the millimetre.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

PX_PER_MM = 1.0


@dataclass(frozen=True)
class Found:
    """A tile-sized or die-sized thing on the table.

    ``angle`` is the direction of the long side, degrees in [0, 180) from the table's y axis
    (0: long side towards East/West). ``w``/``h`` are its short/long side in mm.
    """

    kind: str  # "tile", "die" or "obstruction"
    x: float
    y: float
    angle: float
    w: float
    h: float


Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in top-down pixels


Rect = tuple[tuple[float, float], tuple[float, float], float]


# The finder asks for the same rectangles' axes several times (to cut a row, then to judge
# its blob): computed once each.
@lru_cache(maxsize=4096)
def rect_axes(
    rect: tuple[tuple[float, float], tuple[float, float], float],
) -> tuple[NDArray[np.float64], NDArray[np.float64], float, float]:
    """Unit vectors along the long and short sides of a rotated rect, and their lengths
    (the vectors shared by every call with this rect: never written to)."""
    (_, _), (rw, rh), angle = rect
    t = np.deg2rad(angle)
    u = np.array([np.cos(t), np.sin(t)])  # along the rect's "width"
    v = np.array([-np.sin(t), np.cos(t)])
    u.flags.writeable = False
    v.flags.writeable = False
    if rw >= rh:
        return u, v, rw, rh
    return v, u, rh, rw


def tile_at(
    centre: NDArray[np.float64], long_axis: NDArray[np.float64], h: float, w: float
) -> Found:
    """A tile centred at ``centre`` (pixels of the top-down image), ``h`` long along
    ``long_axis`` and ``w`` wide; its angle is its long side's from the y axis, folded into
    [0, 180)."""
    angle = float(np.degrees(np.arctan2(-long_axis[0], long_axis[1]))) % 180.0
    return Found(
        "tile", centre[0] / PX_PER_MM, centre[1] / PX_PER_MM, angle, w / PX_PER_MM, h / PX_PER_MM
    )


def tiles_at(
    centres: NDArray[np.float64], long_axes: NDArray[np.float64], h: float, w: float
) -> list[Found]:
    """:func:`tile_at` of each centre and long axis ((n, 2) each), the angles computed for
    all at once (the same numbers: the same operations, element by element)."""
    angles = np.degrees(np.arctan2(-long_axes[:, 0], long_axes[:, 1])) % 180.0
    xs, ys = centres[:, 0] / PX_PER_MM, centres[:, 1] / PX_PER_MM  # numpy's floats, as there
    w_mm, h_mm = w / PX_PER_MM, h / PX_PER_MM
    return [
        Found("tile", x, y, angle, w_mm, h_mm)
        for x, y, angle in zip(xs, ys, angles.tolist(), strict=True)
    ]


def obstruction_at(
    centre: NDArray[np.float64], depth: float, length: float, long_axis: NDArray[np.float64]
) -> Found:
    """Something over the table: the rectangle ``length`` along ``long_axis`` and ``depth``
    across it (pixels), for the watcher to hold still only what lies under it."""
    return replace(tile_at(centre, long_axis, length, depth), kind="obstruction")


def tile_axes(
    tile: Found,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The tile's centre on the table, and unit vectors along its long and short sides."""
    t = np.deg2rad(tile.angle)
    up = np.array([-np.sin(t), np.cos(t)])  # along the long side
    right = np.array([np.cos(t), np.sin(t)])
    return np.array([tile.x, tile.y]), up, right


def tiles_axes(tiles: list[Found]) -> tuple[NDArray[np.float64], ...]:
    """:func:`tile_axes` of every tile at once (the same operations, element by element:
    the same numbers to the bit), as (n, 2) arrays of centres, ups and rights, with each
    tile's width and length: (centre, up, right, w, h)."""
    x, y, angle, w, h = np.array([(f.x, f.y, f.angle, f.w, f.h) for f in tiles], np.float64).T
    t = np.deg2rad(angle)
    sin, cos = np.sin(t), np.cos(t)
    centre = np.stack([x, y], axis=1)
    up = np.stack([-sin, cos], axis=1)  # along the long side
    right = np.stack([cos, sin], axis=1)
    return centre, up, right, w, h
