"""Every tile, die and obstruction of the table, or of the part of it that changed: each blob
on the cloth looked at in turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.image import Image

from .blobs import Blob, blobs_of, cleared_outlines, meets
from .body import faces_up, rows_or_obstruction
from .cloth import Cloth, cloth_mask_outlined, cloth_of
from .dice_blobs import dice_in
from .found import PX_PER_MM, Box, Found, Rect, obstruction_at, rect_axes
from .markers import marker_boxes
from .on_cloth import flatten_on_cloth, grey_of
from .one_row import needs_cutting, split_rows
from .outline import blob_rects, every_pixel
from .sizes import fills, one_row_mm
from .split import first_rows, rows_behind, split_blob
from .topdown import rectify

# What is told of each blob's tiles as soon as they are cut (see find).
TilesFound = Callable[[list[Found]], None]


def find(
    frame: Image,
    calibration: Calibration,
    top: Image | None = None,
    cloth: Cloth | None = None,
    on_tiles: TilesFound | None = None,
    mask: NDArray[np.uint8] | None = None,
    grey: Image | None = None,
    outlines: Sequence[NDArray[np.int32]] | None = None,
) -> list[Found]:
    """Every tile, die and obstruction in the frame (table mm). ``on_tiles`` is told each
    blob's tiles as soon as they are cut, for work on them to begin. Rows one behind another
    are told of too, though their tiles are judged only at the end: those of a hand over the
    table cut into rows are not among the tiles found. ``top``, ``cloth``, ``mask``,
    ``grey`` and ``outlines``: the top-down image, the cloth, the mask of what lies on it,
    the image in grey and the mask's outer outlines, where already known (none:
    :func:`flatten_on_cloth`)."""
    if top is None and cloth is None:
        flat = flatten_on_cloth(frame, calibration)
        top, cloth, mask, grey = flat.top, flat.cloth, flat.mask, flat.grey
        outlines = flat.outlines
    top = rectify(frame, calibration) if top is None else top
    found = _find_in(
        top, calibration, cloth, on_tiles=on_tiles, mask=mask, grey=grey, outlines=outlines
    )
    assert found is not None  # only a part of the table can cut a blob
    return found[0]


@dataclass(frozen=True)
class Changed:
    """What :func:`find_changed` found: the tiles, dice and obstructions of every blob that
    meets the changed part, and the pixels those blobs cover (``covered``, from ``origin``)."""

    found: list[Found]
    covered: NDArray[np.bool_]
    origin: tuple[int, int]

    def covers(self, x_mm: float, y_mm: float) -> bool:
        col = int(np.floor(x_mm * PX_PER_MM)) - self.origin[0]
        row = int(np.floor(y_mm * PX_PER_MM)) - self.origin[1]
        h, w = self.covered.shape
        return 0 <= row < h and 0 <= col < w and bool(self.covered[row, col])


def find_changed(
    frame: Image,
    calibration: Calibration,
    box: Box,
    core: Box,
    cloth: Cloth,
    body: NDArray[np.float32] | None = None,
) -> Changed | None:
    """The blobs of ``box`` (top-down pixels) that meet ``core`` (where the frame changed),
    analysed as :func:`find` would; ``cloth``: the whole table's, and ``body`` the set's body
    colour as the whole table showed it (:func:`set_body`), for rows one behind another when
    the part holds too few tiles to tell it. None when such a blob reaches the edge of
    ``box`` (it may go on beyond: look at the whole)."""
    top = rectify(frame, calibration, box)
    x0, y0 = box[0], box[1]
    inner = (core[0] - x0, core[1] - y0, core[2] - x0, core[3] - y0)
    found = _find_in(top, calibration, cloth, (x0, y0), inner, body=body)
    if found is None:
        return None
    return Changed(found[0], found[1], (x0, y0))


def _find_in(
    top: Image,
    calibration: Calibration,
    cloth: Cloth | None,
    origin: tuple[int, int] = (0, 0),
    core: Box | None = None,
    on_tiles: TilesFound | None = None,
    body: NDArray[np.float32] | None = None,
    mask: NDArray[np.uint8] | None = None,
    grey: Image | None = None,
    outlines: Sequence[NDArray[np.int32]] | None = None,
) -> tuple[list[Found], NDArray[np.bool_]] | None:
    """:func:`find` on a top-down image whose first pixel is ``origin`` of the whole one.
    With ``core``, only blobs that meet it count, and one reaching the image's edge gives
    None; the pixels of the blobs that counted come back as well. ``on_tiles``: as for
    :func:`find` (on the whole image only); ``mask``, ``grey`` and ``outlines``: the
    cloth's mask, the image in grey and the mask's outer outlines, where known."""
    assert on_tiles is None or (origin == (0, 0) and core is None)
    assert outlines is None or mask is not None, "outlines of a mask not given"
    g = calibration.geometry
    if cloth is None and origin == (0, 0):
        cloth = cloth_of(top, g)
    if mask is None:
        mask, outlines = cloth_mask_outlined(top, cloth, origin)
    rows, cols = mask.shape
    # The printed markers are not tiles.
    markers = marker_boxes(g, origin)
    for x0, y0, x1, y1 in markers:
        mask[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = 0
    if outlines is not None:
        outlines = cleared_outlines(outlines, mask, markers)
    if grey is None:
        grey = grey_of(top)
    die_area = g.die_mm**2 * PX_PER_MM**2
    covered = np.zeros((rows, cols) if core is not None else (0, 0), bool)
    looked: list[_Look] = []
    for blob in blobs_of(mask, 0.5 * die_area, outlines):
        _, (bx, by, bw, bh), pixels = blob
        if core is not None:
            if not meets(pixels, bx, by, core):
                continue  # unchanged: what was found there before stands
            if bx == 0 or by == 0 or bx + bw >= cols or by + bh >= rows:
                return None
            covered[by : by + bh, bx : bx + bw] |= pixels > 0
        looked.append(_look(blob, grey, calibration))
    found, deep = _blobs_found(looked, grey, mask, calibration, on_tiles)
    dx, dy = origin[0] / PX_PER_MM, origin[1] / PX_PER_MM
    if deep:
        found += rows_or_obstruction(top, faces_up(found, g, dx, dy), deep, body)
    if origin != (0, 0):
        found = [replace(f, x=f.x + dx, y=f.y + dy) for f in found]
    return found, covered


def _blobs_found(
    looked: list[_Look],
    grey: Image,
    mask: NDArray[np.uint8],
    calibration: Calibration,
    on_tiles: TilesFound | None,
) -> tuple[list[Found], list[tuple[list[Found], Found]]]:
    """What the blobs looked at are, in their order: the tiles, dice and obstructions found,
    and the blobs cut into rows one behind another (a seat's discards late in a hand, or a
    hand over them), judged once the plain rows are known."""
    g = calibration.geometry
    found: list[Found] = []
    deep: list[tuple[list[Found], Found]] = []
    # Every blob's rectangle turned the way its rows run, at once.
    to_cut = [k for k, look in enumerate(looked) if look.to_cut]
    rects = blob_rects([looked[k].points for k in to_cut], [looked[k].least for k in to_cut], g)
    for k, rect in zip(to_cut, rects, strict=True):
        look = looked[k]
        # Every pixel of the outline of a blob of rows one behind another, made once for
        # cutting its rows first and for judging it.
        outline = every_pixel(look.points) if rows_behind(rect, g) else None
        looked[k] = _Look(look.points, look.area, look.least, look.dice, True, rect, outline)
    # Every blob's rows cut at once (their strips and profiles in whole arrays): a blob one
    # row deep, or the rows of a deeper one as it is cut first.
    firsts = [
        first_rows(look.points, look.rect, grey, mask, calibration, look.outline)
        if look.rect
        else ([], [])
        for look in looked
    ]
    # Blobs that need no cutting (one tile, dice, an obstruction) first: their tiles go to the
    # network (``on_tiles``) while the rows are being cut. Reported in the blobs' order.
    cut_later = [
        any(needs_cutting(r, slack, g) for r, slack in zip(*first, strict=True)) for first in firsts
    ]
    per_blob: list[tuple[list[Found], list[tuple[list[Found], Found]]]] = [([], []) for _ in looked]
    for wave in (False, True):
        now = [k for k, later in enumerate(cut_later) if later == wave]
        rows_cut = split_rows(
            [r for k in now for r in firsts[k][0]],
            grey,
            mask,
            calibration,
            [slack for k in now for slack in firsts[k][1]],
        )
        cuts = iter(rows_cut)
        for k in now:
            parts = firsts[k][0]
            row = [f for _ in parts for f in next(cuts)] if parts else None
            blob_found, blob_deep = per_blob[k]
            _add_blob(looked[k], row, grey, mask, calibration, blob_found, blob_deep, on_tiles)
    for blob_found, blob_deep in per_blob:
        found += blob_found
        deep += blob_deep
    return found, deep


@dataclass(frozen=True)
class _Look:
    """A blob's first look: its outline's points, pixel area and smallest-area rectangle;
    the dice it is, if any; and, when it is to be cut into tiles, its rectangle turned the
    way its rows run (:func:`blob_rects`, every blob's at once; None: dice, or too small
    for a tile), and every pixel of its outline when its rows lie one behind another."""

    points: NDArray[np.float32]
    area: int
    least: Rect
    dice: list[Found]
    to_cut: bool
    rect: Rect | None = None
    outline: NDArray[np.float32] | None = None  # every pixel of it, when cut into rows first


def _look(blob: Blob, grey: Image, calibration: Calibration) -> _Look:
    outline, (bx, by, _, _), pixels = blob
    g = calibration.geometry
    tile_area = g.tile_w_mm * g.tile_h_mm * PX_PER_MM**2
    area = int(np.count_nonzero(pixels))
    points = outline.reshape(-1, 2).astype(np.float32)
    (cx, cy), (rw, rh), turn = cv2.minAreaRect(points)
    least: Rect = ((cx, cy), (rw, rh), turn)  # the smallest-area rectangle, for its rows
    if area < 0.5 * g.die_mm**2 * PX_PER_MM**2:
        return _Look(points, area, least, [], False)
    dice = dice_in(pixels, grey, bx, by, area, (rw, rh), g)
    return _Look(points, area, least, dice, not dice and area >= 0.55 * tile_area)


def _add_blob(
    look: _Look,
    row: list[Found] | None,
    grey: Image,
    mask: NDArray[np.uint8],
    calibration: Calibration,
    found: list[Found],
    deep: list[tuple[list[Found], Found]],
    on_tiles: TilesFound | None,
) -> None:
    """What one blob is, added to ``found``: dice, tiles or an obstruction; or, cut into rows
    one behind another, to ``deep``, judged once the plain rows are known. ``row``: the
    blob cut as one row, when it is one row deep."""
    found += look.dice
    if look.rect is None:
        return
    g = calibration.geometry
    cut = split_blob(
        look.points, look.least, look.area, grey, mask, calibration, look.rect, row, look.outline
    )
    pieces = [f for f in cut if f.kind == "tile"]
    # Tiles fill their blob; a blob much larger than the tiles cut from it is something
    # else over the table (a hand, a sleeve): report it, trust nothing inside it. Cut
    # into rows, its tiles must also share the table's body colour (a hand cut into two
    # rows of tile-sized pieces fills them as well as tiles do).
    filled = fills(look.area, len(pieces), g)
    rw, rh = look.least[1]
    if not filled:
        found.append(_obstruction(look.least))
    elif min(rw / PX_PER_MM, rh / PX_PER_MM) > one_row_mm(g):
        deep.append((pieces, _obstruction(look.least)))  # judged once the plain rows are known
    else:
        found += pieces
    if on_tiles is not None and pieces and filled:
        on_tiles(pieces)


def _obstruction(least: Rect) -> Found:
    """The blob as something over the table: its smallest-area rectangle."""
    long_axis, _, length, depth = rect_axes(least)
    return obstruction_at(np.array(least[0]), depth, length, long_axis)
