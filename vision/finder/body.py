"""The set's body colour: tiles cut from rows one behind another count only if they show it (a
hand over the table cut into tile-sized pieces does not).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import TableGeometry
from vision.image import Image

from .found import PX_PER_MM, Found, tiles_axes

# A point of a face shows the set's body when its colour is this near the body's (as the
# cloth's is measured: lightness counts a third, light being uneven); a face shows its body
# when this many of its 25 points do. Measured on rendered tables: pieces of a hand over the
# table show 0-1 such points, even over jade tiles near a skin's tone; tiles show 6-24, even
# pictures that cover most of their face (the per-face median colour, used before, took 3-6
# of 12 such tiles in a row for a hand).
_BODY_NEAR = 14.0


_BODY_POINTS = 3


def rows_or_obstruction(
    top: Image,
    faces: list[Found],
    deep: list[tuple[list[Found], Found]],
    body: NDArray[np.float32] | None = None,
) -> list[Found]:
    """The tiles of each blob cut into rows when they have the body colour of the tiles
    found face up in plain rows and singly, ``faces`` (a set's tiles share one body; a hand
    or a sleeve cut into tile-sized pieces does not); else the blob is an obstruction, as it
    is when too few tiles show the body colour. (With the walls' backs among them, their
    colour was taken for the body, and every seat's discards two rows deep for a hand.)
    ``body``: the colour to go by when there are too few such tiles (a part of the table
    looked at again; without it a seat's discards two rows deep, alone in the part, were
    taken for a hand)."""
    if not deep:
        return []
    known = list(faces)
    if len(known) < 6 and len(deep) >= 2:
        # Few tiles elsewhere (a table of nothing but deep discard rows): the rows' own
        # pieces, several blobs of them, give the body colour, which a hand alone does not.
        known += [f for pieces, _ in deep for f in pieces]
    if len(known) < 3 and body is None:
        return [obstruction for _, obstruction in deep]
    # The known tiles' faces and every blob's pieces looked at in one pass (each tile's
    # points are its own), then the pieces counted blob by blob.
    told = known if len(known) >= 3 else []
    colours = _face_colours(top, told + [f for pieces, _ in deep for f in pieces])
    if told:
        body = _median_body(colours[: len(told)])
    assert body is not None
    far_each = _points_near(colours[len(told) :], body) < _BODY_POINTS
    out: list[Found] = []
    first = 0
    for pieces, obstruction in deep:
        far = int(far_each[first : first + len(pieces)].sum())
        first += len(pieces)
        # A few faces may read far (a tile mostly ink, one in a shadow); a hand is many.
        out += [obstruction] if far >= max(3, len(pieces) / 4) or not pieces else pieces
    return out


def _face_colours(top: Image, tiles: list[Found]) -> NDArray[np.float32]:
    """Per tile, the Lab colours of 25 points spread over its face, (tiles, 25, 3): every
    tile's points at once (:func:`tiles_axes`)."""
    if not tiles:
        return np.zeros((0, 25, 3), np.float32)
    steps = np.linspace(-0.4, 0.4, 5)
    centre, up, right, w, h = tiles_axes(tiles)
    up, right = up * h[:, None], right * w[:, None]
    # Every tile's 5 x 5 points at once: (tiles, 5, 5, 2).
    pts = (
        centre[:, None, None]
        + steps[None, :, None, None] * up[:, None, None]
        + steps[None, None, :, None] * right[:, None, None]
    )
    px = np.round(pts.reshape(-1, 2) * PX_PER_MM).astype(int)
    px[:, 0] = np.clip(px[:, 0], 0, top.shape[1] - 1)
    px[:, 1] = np.clip(px[:, 1], 0, top.shape[0] - 1)
    lab = cv2.cvtColor(top[px[:, 1], px[:, 0]].reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
    return np.asarray(lab.reshape(len(tiles), -1, 3), np.float32)


def _middle_colours(colours: NDArray[np.float32]) -> NDArray[np.float32]:
    """Per tile, the median of its face's colours (:func:`_face_colours`): mostly the tile's
    body (the engraving covers well under half a face), so alike for every tile of a set."""
    # 25 points a face: the median is the middle one (as np.median, without its overhead).
    return np.asarray(np.partition(colours, 12, axis=1)[:, 12], np.float32)


def _median_body(colours: NDArray[np.float32]) -> NDArray[np.float32]:
    """:func:`body_of` of the faces' colours (:func:`_face_colours`): per channel, the
    median of the tiles' middle colours, as ``np.median(..., axis=0)`` gives it (the two
    middle values' mean in single precision), without its per-call overhead."""
    middle = _middle_colours(colours)
    half = len(middle) // 2
    if len(middle) % 2:
        return np.asarray(np.partition(middle, half, axis=0)[half], np.float32)
    part = np.partition(middle, (half - 1, half), axis=0)
    return np.asarray((part[half - 1] + part[half]) / np.float32(2), np.float32)


def _colour_distance(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """Lab distance as the cloth's is measured (lightness a third: light is uneven)."""
    diff = np.abs(a - b)
    return np.asarray(diff[..., 1] + diff[..., 2] + diff[..., 0] / 3, np.float32)


def _points_near(colours: NDArray[np.float32], body: NDArray[np.float32]) -> NDArray[np.int64]:
    """Per tile (its face's colours, :func:`_face_colours`), how many of its points show the
    set's body colour (``body``): a tile shows its body between and around the engraving,
    however much ink it carries; a piece of a hand shows none."""
    distance = _colour_distance(colours, body)
    return np.asarray((distance < _BODY_NEAR).sum(axis=1), np.int64)


def set_body(top: Image, found: list[Found], geometry: TableGeometry) -> NDArray[np.float32] | None:
    """The set's body colour on the whole table ``top`` (:func:`rectify`), from the tiles
    found face up outside the walls; None with fewer than three."""
    faces = faces_up(found, geometry)
    return body_of(top, faces) if len(faces) >= 3 else None


def faces_up(found: list[Found], g: TableGeometry, dx: float = 0.0, dy: float = 0.0) -> list[Found]:
    """The tiles found outside the walls (each at (x + dx, y + dy) on the table): the walls
    are face down, and their backs are not the body colour of the set's faces. Every tile's
    zone at once: the first of the geometry's zones that holds it, as ``zone_at`` takes it."""
    tiles = [f for f in found if f.kind == "tile"]
    if not tiles:
        return []
    x = np.array([f.x for f in tiles], np.float64) + dx
    y = np.array([f.y for f in tiles], np.float64) + dy
    unplaced = np.ones(len(tiles), bool)
    in_wall = np.zeros(len(tiles), bool)
    for zone in g.zones:
        inside = unplaced & (zone.x0 <= x) & (x < zone.x1) & (zone.y0 <= y) & (y < zone.y1)
        if zone.name == "wall":
            in_wall |= inside
        unplaced &= ~inside
    return [f for f, wall in zip(tiles, in_wall.tolist(), strict=True) if not wall]


def body_of(top: Image, known: list[Found]) -> NDArray[np.float32]:
    """The body colour of the set on the table, from the tiles found singly and in plain
    rows: their median face colour. One colour: a set's faces share one body. (A set framed
    in several colours, as kde-alphabet's, loses rows to it; taking every colour three tiles
    share, 4 of 48 rendered hands over the table went unseen, against 1.)"""
    return _median_body(_face_colours(top, known))
