"""Blobs that are dice: one die, or two at rest against each other (vision/dice_pair.py)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.dice_pair import Square, single_die, split_pair
from vision.geometry import TableGeometry
from vision.image import Image

from .blobs import with_margin
from .found import PX_PER_MM, Found

# The most two dice touching may cover, in dice (see the pair test in dice_in).
_PAIR_DICE_AREAS = 3.5


def dice_pair(
    pixels: NDArray[np.uint8], grey: Image, x: int, y: int, side: float
) -> tuple[Square, Square] | None:
    """Two touching dice in the blob at (x, y), centres in image pixels; the grey image is
    passed with a margin of the cloth around the blob (to tell the dice from their shadow)."""
    padded, under, (x0, y0) = with_margin(pixels, grey, x, y)
    pair = split_pair(padded, side, under)
    if pair is None:
        return None
    a, b, _ = pair
    return (Square(a.x + x0, a.y + y0, a.angle), Square(b.x + x0, b.y + y0, b.angle))


def dice_in(
    pixels: NDArray[np.uint8],
    grey: Image,
    x: int,
    y: int,
    area: int,
    size: tuple[float, float],
    g: TableGeometry,
) -> list[Found]:
    """The dice a blob is (its ``area`` pixels from (x, y); its smallest-area rectangle's
    sides ``size``, pixels): one die, two at rest against each other, or none."""
    rw, rh = size
    long_ = max(rw / PX_PER_MM, rh / PX_PER_MM)
    tile_area = g.tile_w_mm * g.tile_h_mm * PX_PER_MM**2
    die_area = g.die_mm**2 * PX_PER_MM**2
    if long_ < 1.6 * g.die_mm and area < 0.6 * tile_area:
        padded, under, (x0, y0) = with_margin(pixels, grey, x, y)
        die = single_die(padded, under, g.die_mm * PX_PER_MM)
        if die is not None:
            dx, dy = (x0 + die.x) / PX_PER_MM, (y0 + die.y) / PX_PER_MM
            return [Found("die", dx, dy, die.angle, g.die_mm, g.die_mm)]
    # Two dice side by side are at least two dice long; a tile is shorter, and fills
    # its rectangle (a cheap test first: most blobs are tiles). Nor do two dice cover
    # more than 3.5 dice (2.5 at most with their shadows, on 30 rendered pairs), as
    # every row of tiles does: looked at for a pair, rows took a tenth of the finding.
    pair_like = area < _PAIR_DICE_AREAS * die_area and (
        long_ >= 1.95 * g.die_mm or area < 0.85 * rw * rh
    )
    pair = dice_pair(pixels, grey, x, y, g.die_mm * PX_PER_MM) if pair_like else None
    if pair is None:
        return []
    # Two dice at rest against each other.
    return [
        Found("die", sq.x / PX_PER_MM, sq.y / PX_PER_MM, sq.angle, g.die_mm, g.die_mm)
        for sq in pair
    ]
