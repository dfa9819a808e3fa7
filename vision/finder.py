"""Finding tiles and dice on the table, in millimetres.

The frame is flattened through the calibration to a top-down image at ``PX_PER_MM`` where a
tile always measures ``tile_w x tile_h`` millimetres. Everything that is not cloth (far from
its colour, or, on a table whose tiles are near that colour, clearly brighter) is a blob; a
blob one tile deep is a row of touching tiles, cut at the seams (the dark rounded rims where
two tiles meet) into pieces whose lengths are tile widths (upright) or tile lengths (turned
sideways, as a claimed tile is); a blob two to four tiles deep (a seat's discard rows, joined
by blur and shadow late in a hand) is first cut into rows (either way, when it is about as
long as it is deep), and its pieces must share the body colour of the table's other tiles to
count as tiles. Squares of the die's
size are dice (measured on the die's white body, its shadow left out), and a blob
that two such squares explain is two dice at rest against each other (vision/dice_pair.py).
What fits neither (a hand over the table, a heap) is reported as an obstruction and its tiles
are simply not seen in that frame.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.artwork import Image
from vision.calibration import Calibration
from vision.crops import CROP_H, CROP_W
from vision.dice_pair import Square, single_die, split_pair
from vision.geometry import TableGeometry

PX_PER_MM = 1.0
_KERNEL3 = np.ones((3, 3), np.uint8)


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


def rectify(frame: Image, calibration: Calibration, box: Box | None = None) -> Image:
    """The table from straight above at ``PX_PER_MM`` (table mm -> image px); ``box``: only
    that part of it (the same pixels as that part of the whole)."""
    size = round(calibration.geometry.size_mm * PX_PER_MM)
    scale = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    to_frame = calibration.homography @ scale
    dsize = (size, size)
    if box is not None:
        x0, y0, x1, y1 = box
        to_frame = to_frame @ np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
        dsize = (x1 - x0, y1 - y0)
    return np.asarray(
        cv2.warpPerspective(frame, to_frame, dsize, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP),
        np.uint8,
    )


# Distance from the cloth: |a - a0| + |b - b0| + |L - L0| // 3 in one pass. The sum is a
# multiple of 1/3 before the floor, so "> 28" is ">= 29", and rounding the sum less 0.4 to
# the nearest integer keeps exactly those above 28.
_CLOTH_WEIGHTS = np.array([[1 / 3, 1.0, 1.0, -0.4]], np.float32)
_CLOTH_THRESHOLD = 28


def _far_from_cloth(lab: Image, scalar: Any) -> NDArray[np.uint8]:
    """255 where a Lab image is far from the cloth's colour."""
    dist = cv2.transform(cv2.absdiff(lab, scalar), _CLOTH_WEIGHTS)
    return np.asarray(cv2.threshold(dist, _CLOTH_THRESHOLD, 255, cv2.THRESH_BINARY)[1], np.uint8)


def _with_brighter(
    far: NDArray[np.uint8], lab: Image, brighter: NDArray[np.uint8]
) -> NDArray[np.uint8]:
    """``far``, and 255 where the Lab image is lighter than ``brighter`` (per pixel)."""
    bright = cv2.compare(cv2.extractChannel(lab, 0), brighter, cv2.CMP_GT)
    return np.asarray(cv2.bitwise_or(far, bright), np.uint8)


def _off_cloth(lab: Image, scalar: Any, brighter: NDArray[np.uint8] | None) -> NDArray[np.uint8]:
    """255 where a Lab image is far from the cloth's colour, or brighter than ``brighter``
    (per pixel; None: brightness alone never counts), before any cleaning."""
    far = _far_from_cloth(lab, scalar)
    return far if brighter is None else _with_brighter(far, lab, brighter)


# Every 3rd pixel each way is looked at first. The 3x3 opening keeps a pixel only inside a
# 3x3 square of marked pixels; every such square holds one pixel of that grid and lies within
# 2 pixels of it: so the full-resolution mask is needed only that near marked grid pixels.
_GRID = 3
_REACH = 2


def _median_uint8(values: NDArray[np.uint8]) -> float:
    """``np.median(values).astype(np.uint8)`` from a histogram (a tenth of the time)."""
    counts = np.cumsum(np.bincount(values, minlength=256))
    n = int(counts[-1])
    lo = int(np.searchsorted(counts, (n - 1) // 2, side="right"))
    hi = int(np.searchsorted(counts, n // 2, side="right"))
    return float((lo + hi) // 2)


Lab = tuple[float, float, float]

# A set's body may be near the cloth's colour: dark jade tiles on a red cloth showed only
# their engravings, and 17 % of them were lost. Such a table is told by what colour misses:
# where under 80 % of the places far from the cloth's colour or brighter than the cloth
# around them are far from its colour (0.46-0.57 on such tables; 0.87-1.0 on 90 tables of
# 9 other sets), brightness counts as well, on the whole table. "Brighter": by a fifth and
# 12 levels at least (light is uneven, but a change of light scales Lab lightness by about
# the same factor everywhere; the cloth's grain stays below; a shadow is darker, never
# brighter). "Around": the median of every 8th pixel over a window about 250 mm wide, wider
# than a seat's discards, so mostly cloth. Only on such tables: elsewhere brightness would
# close the narrow gaps between light tiles, which blur fills with a blend of tile and cloth.
_SAMPLE = 8
_AROUND = 31  # samples across the window (odd)
_BRIGHTER_BY = 12
_BRIGHTER_TIMES = 1.2
_COLOUR_SUFFICES = 0.8


@dataclass(frozen=True, eq=False)  # an array inside: compared by identity
class Cloth:
    """The cloth as the whole table shows it: its colour (Lab, OpenCV's 8-bit scale), and,
    where its colour hides the tiles' body, per pixel of the top-down image the lightness
    above which a pixel is not cloth (None: the colour tells tiles from the cloth)."""

    lab: Lab
    brighter: NDArray[np.uint8] | None = None


def cloth_of(top: Image, geometry: TableGeometry | None = None) -> Cloth:
    """The cloth of a top-down image, from every 8th pixel: its dominant colour, and whether
    (and where) brightness must tell the tiles from it. With the table's ``geometry``, its
    printed markers have no say in that choice: on a table bare but for a hand laid out,
    their black and white was most of what lay far from the cloth's colour, and outweighed
    the jade bodies that only brightness shows (2 of 6 such hands on a red cloth lost)."""
    sample = np.asarray(cv2.cvtColor(top[::_SAMPLE, ::_SAMPLE], cv2.COLOR_BGR2LAB), np.uint8)
    flat = sample.reshape(-1, 3)
    lab = (_median_uint8(flat[:, 0]), _median_uint8(flat[:, 1]), _median_uint8(flat[:, 2]))
    around = cv2.medianBlur(np.ascontiguousarray(sample[:, :, 0]), _AROUND).astype(np.float64)
    limit = np.minimum(np.maximum(around + _BRIGHTER_BY, around * _BRIGHTER_TIMES), 255)
    limit = limit.astype(np.uint8)
    scalar: Any = (*lab, 0.0)
    far = _far_from_cloth(sample, scalar)
    either = _with_brighter(far, sample, limit)
    for x0, y0, x1, y1 in _marker_boxes(geometry) if geometry is not None else []:
        # The samples (every 8th pixel) from the box's first pixel up to its last.
        box = (slice(*_sampled(y0, y1)), slice(*_sampled(x0, x1)))
        far[box] = 0
        either[box] = 0
    by_colour, either_count = cv2.countNonZero(far), cv2.countNonZero(either)
    if by_colour >= _COLOUR_SUFFICES * either_count:
        return Cloth(lab)
    # Each pixel takes its sample's limit (nearest-neighbour at exactly 8x).
    rows, cols = top.shape[:2]
    size = (limit.shape[1] * _SAMPLE, limit.shape[0] * _SAMPLE)
    full = cv2.resize(limit, size, interpolation=cv2.INTER_NEAREST)[:rows, :cols]
    return Cloth(lab, np.ascontiguousarray(full))


def _sampled(lo: int, hi: int) -> tuple[int, int]:
    """The samples of every ``_SAMPLE``-th pixel that lie in pixels [lo, hi)."""
    return max(0, -(-lo // _SAMPLE)), max(0, -(-hi // _SAMPLE))


def cloth_mask(
    top: Image, cloth: Cloth | None = None, origin: tuple[int, int] = (0, 0)
) -> NDArray[np.uint8]:
    """255 where something lies on the cloth. The cloth is the image's dominant colour
    (``cloth``: given, for a part of the table whose first pixel is ``origin`` of the whole);
    light changes its brightness more than its hue, so brightness counts for less, except
    where a pixel is clearly brighter than the cloth around it."""
    cloth = cloth_of(top) if cloth is None else cloth
    scalar: Any = (*cloth.lab, 0.0)  # an OpenCV Scalar
    rows, cols = top.shape[:2]
    brighter = cloth.brighter
    if brighter is not None:  # this part of it
        brighter = brighter[origin[1] : origin[1] + rows, origin[0] : origin[0] + cols]
    boxes = []
    if rows >= _GRID and cols >= _GRID:
        # The grid's pixels (nearest-neighbour resizing at an exact ratio picks exactly them,
        # many times faster than slicing; a last partial row or column lies in the edges).
        rows3, cols3 = rows // _GRID, cols // _GRID
        grid = cv2.resize(
            top[: rows3 * _GRID, : cols3 * _GRID], (cols3, rows3), interpolation=cv2.INTER_NEAREST
        )
        grid_lab = np.asarray(cv2.cvtColor(grid, cv2.COLOR_BGR2LAB), np.uint8)
        step = (slice(0, rows3 * _GRID, _GRID), slice(0, cols3 * _GRID, _GRID))
        coarse = _off_cloth(grid_lab, scalar, _part(brighter, step))
        reach = -(-_REACH // _GRID)  # in grid steps, rounded up
        near = cv2.dilate(coarse, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
        regions, _ = cv2.findContours(near, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        boxes = [
            (x * _GRID, y * _GRID, (x + w - 1) * _GRID + 1, (y + h - 1) * _GRID + 1)
            for x, y, w, h in map(cv2.boundingRect, regions)
        ]
    # The opening counts what lies past the image's edge as marked: the edges themselves
    # are always looked at in full.
    edge = _REACH + _GRID
    boxes += [(0, 0, cols, edge), (0, max(0, rows - edge), cols, rows)]
    boxes += [(0, 0, edge, rows), (max(0, cols - edge), 0, cols, rows)]
    mask = np.zeros((rows, cols), np.uint8)
    for x0, y0, x1, y1 in boxes:
        lab = np.asarray(cv2.cvtColor(top[y0:y1, x0:x1], cv2.COLOR_BGR2LAB), np.uint8)
        mask[y0:y1, x0:x1] = _off_cloth(lab, scalar, _part(brighter, np.s_[y0:y1, x0:x1]))
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, _KERNEL3), np.uint8)
    # A face close to the cloth's colour may show only its shaded rim: fill what it encloses.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, -1)
    return np.asarray(mask, np.uint8)


def _part(image: NDArray[np.uint8] | None, where: tuple[slice, slice]) -> NDArray[np.uint8] | None:
    return None if image is None else np.ascontiguousarray(image[where])


def _blobs(
    mask: NDArray[np.uint8], min_area: float
) -> list[tuple[NDArray[np.int32], tuple[int, int, int, int], NDArray[np.uint8]]]:
    """The mask's 8-connected blobs in the order connected-component labelling numbers
    them: each blob's outline, bounding box and pixels within that box (1 where the blob
    is). Blobs whose box is smaller than ``min_area`` are left out.

    Outlines rather than labelling: every blob has one outer outline, which starts at its
    first pixel; the outline filled, less any hole in the mask, is the blob (the tests check
    both against the labelling), at a fraction of a labelling's cost."""
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blobs = []
    for outline in outlines:
        x, y, w, h = cv2.boundingRect(outline)
        if w * h < min_area:
            continue
        pixels = np.zeros((h, w), np.uint8)
        cv2.drawContours(pixels, [outline], -1, 1, -1, offset=(-x, -y))
        pixels &= mask[y : y + h, x : x + w] > 0
        blobs.append((np.asarray(outline, np.int32), (x, y, w, h), pixels))
    blobs.sort(key=_label_order)
    return blobs


def _label_order(
    blob: tuple[NDArray[np.int32], tuple[int, int, int, int], NDArray[np.uint8]],
) -> tuple[int, int]:
    """Where a blob comes in connected-component labelling, which scans 2x2 blocks row pair
    by row pair: its first block in that order."""
    _, (x, y, _, _), pixels = blob
    first_pair = pixels[: 2 - y % 2].any(axis=0)  # its pixels in the topmost row pair
    return y // 2, (x + int(np.argmax(first_pair))) // 2


# What is told of each blob's tiles as soon as they are cut (see find).
TilesFound = Callable[[list[Found]], None]


def find(
    frame: Image,
    calibration: Calibration,
    top: Image | None = None,
    cloth: Cloth | None = None,
    on_tiles: TilesFound | None = None,
) -> list[Found]:
    """Every tile, die and obstruction in the frame (table mm). ``on_tiles`` is told each
    blob's tiles as soon as they are cut, for work on them to begin. Rows one behind another
    are told of too, though their tiles are judged only at the end: those of a hand over the
    table cut into rows are not among the tiles found."""
    top = rectify(frame, calibration) if top is None else top
    found = _find_in(top, calibration, cloth, on_tiles=on_tiles)
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


def _meets(pixels: NDArray[np.uint8], x: int, y: int, core: Box) -> bool:
    """Whether a blob (its pixels from (x, y)) has a pixel in ``core``."""
    h, w = pixels.shape
    c0, r0 = max(core[0] - x, 0), max(core[1] - y, 0)
    c1, r1 = min(core[2] - x, w), min(core[3] - y, h)
    return c0 < c1 and r0 < r1 and bool(pixels[r0:r1, c0:c1].any())


def _find_in(
    top: Image,
    calibration: Calibration,
    cloth: Cloth | None,
    origin: tuple[int, int] = (0, 0),
    core: Box | None = None,
    on_tiles: TilesFound | None = None,
    body: NDArray[np.float32] | None = None,
) -> tuple[list[Found], NDArray[np.bool_]] | None:
    """:func:`find` on a top-down image whose first pixel is ``origin`` of the whole one.
    With ``core``, only blobs that meet it count, and one reaching the image's edge gives
    None; the pixels of the blobs that counted come back as well. ``on_tiles``: as for
    :func:`find` (on the whole image only)."""
    assert on_tiles is None or (origin == (0, 0) and core is None)
    g = calibration.geometry
    if cloth is None and origin == (0, 0):
        cloth = cloth_of(top, g)
    mask = cloth_mask(top, cloth, origin)
    rows, cols = mask.shape
    # The printed markers are not tiles.
    for x0, y0, x1, y1 in _marker_boxes(g, origin):
        mask[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = 0
    grey = np.asarray(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), np.uint8)
    tile_area = g.tile_w_mm * g.tile_h_mm * PX_PER_MM**2
    die_area = g.die_mm**2 * PX_PER_MM**2
    found: list[Found] = []
    # Blobs cut into rows: a seat's discards late in a hand, or a hand over them.
    deep: list[tuple[list[Found], Found]] = []
    covered = np.zeros((rows, cols) if core is not None else (0, 0), bool)
    for outline, (bx, by, bw, bh), pixels in _blobs(mask, 0.5 * die_area):
        if core is not None:
            if not _meets(pixels, bx, by, core):
                continue  # unchanged: what was found there before stands
            if bx == 0 or by == 0 or bx + bw >= cols or by + bh >= rows:
                return None
            covered[by : by + bh, bx : bx + bw] |= pixels > 0
        area = int(np.count_nonzero(pixels))
        if area < 0.5 * die_area:
            continue
        points = outline.reshape(-1, 2).astype(np.float32)
        (cx, cy), (rw, rh), turn = cv2.minAreaRect(points)
        least: Rect = ((cx, cy), (rw, rh), turn)  # the smallest-area rectangle, for its rows
        short, long_ = sorted((rw / PX_PER_MM, rh / PX_PER_MM))
        if long_ < 1.6 * g.die_mm and area < 0.6 * tile_area:
            padded, under, (x0, y0) = _with_margin(pixels, grey, bx, by)
            die = single_die(padded, under, g.die_mm * PX_PER_MM)
            if die is not None:
                x, y = (x0 + die.x) / PX_PER_MM, (y0 + die.y) / PX_PER_MM
                found.append(Found("die", x, y, die.angle, g.die_mm, g.die_mm))
                continue
        # Two dice side by side are at least two dice long; a tile is shorter, and fills
        # its rectangle (a cheap test first: most blobs are tiles). Nor do two dice cover
        # more than 3.5 dice (2.5 at most with their shadows, on 30 rendered pairs), as
        # every row of tiles does: looked at for a pair, rows took a tenth of the finding.
        pair_like = area < _PAIR_DICE_AREAS * die_area and (
            long_ >= 1.95 * g.die_mm or area < 0.85 * rw * rh
        )
        pair = _dice_pair(pixels, grey, bx, by, g.die_mm * PX_PER_MM) if pair_like else None
        if pair is not None:  # two dice at rest against each other
            for sq in pair:
                x, y = sq.x / PX_PER_MM, sq.y / PX_PER_MM
                found.append(Found("die", x, y, sq.angle, g.die_mm, g.die_mm))
            continue
        if area < 0.55 * tile_area:
            continue
        cut = _split(points, least, area, grey, mask, calibration)
        pieces = [f for f in cut if f.kind == "tile"]
        # Tiles fill their blob; a blob much larger than the tiles cut from it is something
        # else over the table (a hand, a sleeve): report it, trust nothing inside it. Cut
        # into rows, its tiles must also share the table's body colour (a hand cut into two
        # rows of tile-sized pieces fills them as well as tiles do).
        long_axis, _, length, depth = _axis(least)
        obstruction = _obstruction(np.array([cx, cy]), depth, length, long_axis)
        filled = _filled(area, len(pieces), g)
        if not filled:
            found.append(obstruction)
        elif short > _one_row_mm(g):
            deep.append((pieces, obstruction))  # judged once the plain rows are known
        else:
            found += pieces
        if on_tiles is not None and pieces and filled:
            on_tiles(pieces)
    dx, dy = origin[0] / PX_PER_MM, origin[1] / PX_PER_MM
    if deep:
        found += _rows_or_obstruction(top, _faces(found, g, dx, dy), deep, body)
    if origin != (0, 0):
        found = [replace(f, x=f.x + dx, y=f.y + dy) for f in found]
    return found, covered


# The most two dice touching may cover, in dice (see the pair test in _find_in).
_PAIR_DICE_AREAS = 3.5


def _marker_boxes(g: TableGeometry, origin: tuple[int, int] = (0, 0)) -> list[Box]:
    """Where the printed markers lie in the top-down image whose first pixel is ``origin``
    of the whole (10 mm around each; the ends may lie outside the image)."""
    boxes = []
    for corners in g.marker_corners().values():
        pts = (np.array(corners) * PX_PER_MM).astype(np.int32) - np.array(origin)
        x0, y0 = pts.min(axis=0) - round(10 * PX_PER_MM)
        x1, y1 = pts.max(axis=0) + round(10 * PX_PER_MM)
        boxes.append((int(x0), int(y0), int(x1), int(y1)))
    return boxes


def _in_wall(g: TableGeometry, x: float, y: float) -> bool:
    zone = g.zone_at(x, y)
    return zone is not None and zone.name == "wall"


# A point of a face shows the set's body when its colour is this near the body's (as the
# cloth's is measured: lightness counts a third, light being uneven); a face shows its body
# when this many of its 25 points do. Measured on rendered tables: pieces of a hand over the
# table show 0-1 such points, even over jade tiles near a skin's tone; tiles show 6-24, even
# pictures that cover most of their face (the per-face median colour, used before, took 3-6
# of 12 such tiles in a row for a hand).
_BODY_NEAR = 14.0
_BODY_POINTS = 3


def _rows_or_obstruction(
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
    if len(known) >= 3:
        body = _set_body(top, known)
    elif body is None:
        return [obstruction for _, obstruction in deep]
    out: list[Found] = []
    for pieces, obstruction in deep:
        far = int((_body_points(top, pieces, body) < _BODY_POINTS).sum())
        # A few faces may read far (a tile mostly ink, one in a shadow); a hand is many.
        out += [obstruction] if far >= max(3, len(pieces) / 4) or not pieces else pieces
    return out


def _with_margin(
    pixels: NDArray[np.uint8], grey: Image, x: int, y: int, margin: int = 3
) -> tuple[NDArray[np.uint8], NDArray[np.uint8], tuple[int, int]]:
    """A blob's pixels and the grey image under them, with a margin of what is around, and
    where that box starts."""
    h, w = pixels.shape
    x0, y0 = max(0, x - margin), max(0, y - margin)
    x1, y1 = min(grey.shape[1], x + w + margin), min(grey.shape[0], y + h + margin)
    padded = np.zeros((y1 - y0, x1 - x0), np.uint8)
    padded[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = pixels
    return padded, np.asarray(grey[y0:y1, x0:x1], np.uint8), (x0, y0)


def _dice_pair(
    pixels: NDArray[np.uint8], grey: Image, x: int, y: int, side: float
) -> tuple[Square, Square] | None:
    """Two touching dice in the blob at (x, y), centres in image pixels; the grey image is
    passed with a margin of the cloth around the blob (to tell the dice from their shadow)."""
    padded, under, (x0, y0) = _with_margin(pixels, grey, x, y)
    pair = split_pair(padded, side, under)
    if pair is None:
        return None
    a, b, _ = pair
    return (Square(a.x + x0, a.y + y0, a.angle), Square(b.x + x0, b.y + y0, b.angle))


def _axis(
    rect: tuple[tuple[float, float], tuple[float, float], float],
) -> tuple[NDArray[np.float64], NDArray[np.float64], float, float]:
    """Unit vectors along the long and short sides of a rotated rect, and their lengths."""
    (_, _), (rw, rh), angle = rect
    t = np.deg2rad(angle)
    u = np.array([np.cos(t), np.sin(t)])  # along the rect's "width"
    v = np.array([-np.sin(t), np.cos(t)])
    if rw >= rh:
        return u, v, rw, rh
    return v, u, rh, rw


def _strip(
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


def _percentile(a: NDArray[Any], q: float) -> NDArray[np.float64]:
    """``np.percentile(a, q, axis=0)`` (linear), the same numbers without its per-call
    overhead (it runs a few times per row of tiles)."""
    n = a.shape[0]
    index = q / 100 * (n - 1)
    lo = int(np.floor(index))
    hi = min(lo + 1, n - 1)
    part = np.partition(a, (lo, hi) if hi != lo else lo, axis=0)
    below = part[lo].astype(np.float64)
    above = part[hi].astype(np.float64)
    t = index - lo
    diff = above - below
    # numpy's own interpolation, from the nearer end.
    return np.asarray(above - diff * (1 - t) if t >= 0.5 else below + diff * t)


def _median(values: NDArray[np.float64]) -> float:
    """``np.median`` of a 1-d array, the same number without its per-call overhead (a tenth
    of a millisecond, once per run of tiles)."""
    n = len(values)
    half = n // 2
    if n % 2:
        return float(np.partition(values, half)[half])
    part = np.partition(values, (half - 1, half))
    return float((part[half - 1] + part[half]) / 2)


def _seam_profile(
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
    prof = _against_brightest(_percentile(core, brighter_part))
    if cover is not None:
        band = max(2, round(h * 0.15))
        edge = np.maximum(cover[:band].mean(axis=0), cover[-band:].mean(axis=0))
        prof = prof * np.convolve(edge, np.ones(3) / 3, mode="same")
    return np.asarray(prof)


class Cutting(NamedTuple):
    """A row cut into pieces: each (start, end, index of the length it was cut as), and the
    cost of cutting so."""

    pieces: list[tuple[int, int, int]]
    cost: float


def _partition(
    profile: NDArray[np.float64],
    lengths: list[float],
    tol: float,
    depth_cover: NDArray[np.float64] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> Cutting | None:
    """Cut [0, n) into pieces of the allowed lengths (within ``tol``; the first, the row's
    own tiles, longer by up to ``gap`` more: a tile and the gap beside it, where blur and
    shadow join tiles laid a little apart), cutting where the profile is darkest. Dynamic
    programming over cut positions. Each piece comes with the index of the length it was
    cut as: a piece as long from both (a tile and the gap beside it) is what the cutting
    took it for, depth cover included, not what its size is nearer. The cutting's cost comes
    with the pieces (to weigh it against another).

    ``depth_cover`` is the fraction of the row's depth covered in each column: an upright
    tile (``lengths[0]``) covers it all, a sideways one only ``shallow`` of it; pieces are
    charged for covering otherwise.

    A piece is at least ``lo`` long, so the best cuts up to ``end`` depend only on cuts at
    least ``lo`` earlier: a block of ``lo`` ends is solved at once, in numpy, and every
    term that does not depend on earlier cuts is computed for all ends beforehand (added in
    the same order as one end at a time would, so the sums round the same)."""
    n = len(profile)
    # Every (length, piece size) pair; within a length, sizes descend so that starts ascend
    # and ties go to the earliest start, then to the earlier length.
    sizes, penalty, target, cut_as_of = [], [], [], []
    for which, length in enumerate(lengths):
        # Only the row's own tiles lie apart (a claimed tile, turned, is laid against the
        # set; and three upright tiles were cut as two sideways ones taking the gaps).
        room = gap if which == 0 else 0.0
        lo, hi = int(np.floor(length - tol)), int(np.ceil(length + tol + room))
        d = np.arange(hi, max(lo, 1) - 1, -1)
        sizes.append(d)
        # Charged by how far off, as a share of the room on that side.
        penalty.append(
            np.where(d > length, (d - length) / (2 * (tol + room)), (length - d) / (2 * tol))
        )
        target.append(np.full(len(d), 1.0 if which == 0 else shallow))
        cut_as_of.append(np.full(len(d), which))
    size = np.concatenate(sizes)
    size_cost = np.concatenate(penalty)
    size_length = np.concatenate(cut_as_of)
    shift = int(size.max())
    ends = np.arange(1, n + 1)
    starts = ends[:, None] - size[None, :]  # per end and pair; negative: no such piece
    seam = np.append(np.asarray(profile, np.float64)[: n - 1], 0.0)[:, None]  # cut at end
    charge = None
    if depth_cover is not None:
        csum = np.concatenate([[0.0], np.cumsum(depth_cover)])
        covered = (csum[ends, None] - csum[np.maximum(starts, 0)]) / (ends[:, None] - starts)
        charge = 3.0 * np.abs(covered - np.concatenate(target)[None, :])
    # Best cost of cutting [0, end), stored ``shift`` further on so that a negative start
    # reads infinity.
    best = np.full(n + 1 + shift, np.inf)
    best[shift] = 0.0
    prev = np.zeros(n + 1, np.int64)
    cut_as = np.zeros(n + 1, np.int64)
    index = starts + shift
    step = max(1, int(size.min()))
    for e0 in range(0, n, step):
        block = slice(e0, min(n, e0 + step))
        cost = best[index[block]]
        cost += seam[block]
        cost += size_cost
        if charge is not None:
            cost += charge[block]
        k = cost.argmin(axis=1)
        rows = np.arange(len(k))
        best[e0 + 1 + shift : block.stop + 1 + shift] = cost[rows, k]
        prev[e0 + 1 : block.stop + 1] = starts[block][rows, k]
        cut_as[e0 + 1 : block.stop + 1] = size_length[k]
    if best[n + shift] == np.inf:
        return None
    pieces = []
    end = n
    while end > 0:
        start = int(prev[end])
        pieces.append((start, end, int(cut_as[end])))
        end = start
    return Cutting(pieces[::-1], float(best[n + shift]))


Rect = tuple[tuple[float, float], tuple[float, float], float]


def _edge_direction(points: NDArray[np.float32]) -> float:
    """The direction, in degrees, the straight edges of an outline run in (folded to a
    quarter turn: a row's long and short sides count alike)."""
    outline = cv2.approxPolyDP(points.reshape(-1, 1, 2), 1.5 * PX_PER_MM, True).reshape(-1, 2)
    seg = np.concatenate([outline[1:], outline[:1]]) - outline  # each edge, wrapping
    weight = np.hypot(seg[:, 0], seg[:, 1])
    theta4 = 4 * np.arctan2(seg[:, 1], seg[:, 0])
    mean4 = np.arctan2((weight * np.sin(theta4)).sum(), (weight * np.cos(theta4)).sum())
    return float(np.degrees(mean4) / 4)


# A long blob of one row is turned to its smallest-area rectangle when that lies this near
# its edges' direction. Tiles touching on a rack strip near their colour leave ragged edges
# whose pieces skew the direction a degree or two; across a row of 14 that is 5-8 mm more
# depth, past what one row may measure (on 80 rendered hands laid out, 28 whole rows were
# taken for obstructions; none with this).
_TRUE_WITHIN_DEG = 5.0


def _row_direction(points: NDArray[np.float32], least: Rect, g: TableGeometry) -> float:
    """The direction of a blob's rows, in degrees: its edges' (:func:`_edge_direction`),
    or, for a long blob of one row, its smallest-area rectangle's (``least``) when that is
    near it. (Short blobs are left to their edges: a 2x2 block and hands took wrong turns.)"""
    edges = _edge_direction(points)
    (_, _), (w, h), degrees = least
    off = (edges - degrees) % 90
    one_long_row = (
        max(w, h) >= 2 * g.tile_h_mm * PX_PER_MM and min(w, h) <= _one_row_mm(g) * PX_PER_MM
    )
    return float(degrees) if one_long_row and min(off, 90 - off) < _TRUE_WITHIN_DEG else edges


def _grid_rect(points: NDArray[np.float32], degrees: float) -> Rect:
    """The blob's bounding rectangle turned to ``degrees`` (the direction of its rows).

    Tiles lie in rows, so the outline's straight edges run in two perpendicular directions;
    the smallest-area rectangle of an L-shaped blob (a short row beside a long one) can be
    turned 45 degrees wrong, the edge directions are not."""
    theta = np.radians(degrees)
    u = np.array([np.cos(theta), np.sin(theta)], np.float32)
    v = np.array([-np.sin(theta), np.cos(theta)], np.float32)
    pu, pv = points @ u, points @ v
    u0, u1, v0, v1 = pu.min(), pu.max(), pv.min(), pv.max()
    centre = u * ((u0 + u1) / 2) + v * ((v0 + v1) / 2)
    return (
        (float(centre[0]), float(centre[1])),
        (float(u1 - u0) + 1, float(v1 - v0) + 1),
        float(np.degrees(theta)),
    )


# Rows of tiles one blob may hold: a seat's discards lie in rows of six, three or four rows
# deep late in a hand, and the few millimetres between rows vanish under blur and shadow.
MAX_ROWS = 4


def _one_row_mm(g: TableGeometry) -> float:
    """The deepest a blob of one row of tiles can measure (its tiles turned either way)."""
    return float(1.6 * g.tile_w_mm + 4)


def _two_rows_mm(g: TableGeometry) -> float:
    """The deepest a blob of two rows of upright tiles can measure (with blur and shadow)."""
    return float(2 * g.tile_h_mm + 16)


def _filled(area: float, tiles: int, g: TableGeometry) -> bool:
    """Whether so many tiles fill a blob of this area (in pixels), its gaps and shadows with
    them."""
    return area <= 1.35 * max(1, tiles) * g.tile_w_mm * g.tile_h_mm * PX_PER_MM**2


def _split(
    points: NDArray[np.float32],
    least: Rect,
    area: float,
    grey: Image,
    mask: Image,
    calibration: Calibration,
) -> list[Found]:
    """The tiles of a blob (its outline ``points``, its smallest-area rectangle ``least``):
    one row cut at its seams, or rows one behind another cut apart first."""
    g = calibration.geometry

    def or_along_least(found: list[Found]) -> list[Found]:
        # When cutting along the edges' direction leaves something unexplained, the blob cut
        # along its smallest rectangle instead, if that explains it better: as one row when
        # it is one row deep, else as rows one behind another. The notches between tiles laid
        # a few millimetres apart, or a short second row beside a long first one, turn the
        # edges' direction 4-7 degrees off; a row measured that way came out 6-10 mm deeper
        # than it is: too deep for a row of tiles, or cut into rows too shallow for tiles,
        # a hand either way (three discards; a seat's six and two behind them).
        score = _cutting_score(found, area, g)
        if not score[0]:
            return found
        l_along, l_across, l_length, l_depth = _axis(least)
        if l_depth <= _one_row_mm(g) * PX_PER_MM:
            other = _split_row(least, grey, mask, calibration)
        elif l_depth < deepest_mm * PX_PER_MM and abs(_turn(least[2], rect[2])) > 1.0:
            other = _cut_rows(
                _every_pixel(points), grey, mask, calibration, least, l_across, l_depth,
                l_along, l_length,
            )
        else:
            return found
        return other if _cutting_score(other, area, g) < score else found

    rect = _grid_rect(points, _row_direction(points, least, g))
    centre = np.array(rect[0], np.float64)
    along, across, length, depth = _axis(rect)
    depth_mm = depth / PX_PER_MM
    deepest_mm = MAX_ROWS * (g.tile_h_mm + 16)
    if depth_mm < g.tile_w_mm - 6 or depth_mm >= deepest_mm:
        return [_obstruction(centre, depth, length, along)]
    if depth_mm <= _one_row_mm(g):
        return or_along_least(_split_row(rect, grey, mask, calibration))
    # Rows one behind another. A blob about as deep as it is long may hold its rows either
    # way (a seat's late discards, four tiles wide and three deep, were cut into columns and
    # a seam between two of them missed): unless the first cutting explains it cleanly, it
    # is cut the other way too, and kept the way that explains it better.
    # Every pixel of the outline, so that each row gets its own sides (a compressed outline
    # keeps only the ends of straight runs: a row between two corners got none of them).
    outline = _every_pixel(points)
    found = _cut_rows(outline, grey, mask, calibration, rect, across, depth, along, length)
    near_square = length < 1.35 * depth and length < deepest_mm * PX_PER_MM
    score = _cutting_score(found, area, g)
    if near_square and score[:2] != (0, 0):
        other = _cut_rows(outline, grey, mask, calibration, rect, along, length, across, depth)
        if _cutting_score(other, area, g) < score:
            found = other
    return or_along_least(found)


def _turn(a: float, b: float) -> float:
    """The smallest turn between two rectangles' directions, in degrees (a rectangle looks
    the same turned by 90)."""
    return (a - b + 45.0) % 90.0 - 45.0


def _cutting_score(cut: list[Found], area: float, g: TableGeometry) -> tuple[int, int, int]:
    """How well a cutting explains a blob of ``area`` pixels, lower better: the obstructions
    it leaves (and one more when its tiles do not fill the blob); then the tiles turned
    across the others (rows one behind another are laid alike: a cut in the wrong place
    leaves a row as deep as upright tiles, cut across); then more tiles."""
    tiles = [f for f in cut if f.kind == "tile"]
    along_y = sum(1 for f in tiles if min(f.angle, 180 - f.angle) < 45)
    turned = min(along_y, len(tiles) - along_y)
    unexplained = len(cut) - len(tiles) + (not _filled(area, len(tiles), g))
    return unexplained, turned, -len(tiles)


def _cut_rows(
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
    g = calibration.geometry
    centre = np.array(rect[0], np.float64)
    depth_mm = depth / PX_PER_MM
    rows = 2 if depth_mm < _two_rows_mm(g) else round((depth_mm + 4) / (g.tile_h_mm + 4))
    rows = min(max(rows, 2), MAX_ROWS)
    strip = _strip(grey, centre, across, along, depth, length)
    cover2d = _strip(mask, centre, across, along, depth, length) > 127
    if rows == 2:  # both rows as deep as a row can be (below): no short row to mislead
        prof = _seam_profile(strip, cover2d) * np.clip(cover2d.mean(axis=0) * 1.5, 0, 1)
    else:
        prof = _seam_lines(strip, cover2d)
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
    found: list[Found] = []
    for a, b in itertools.pairwise(bounds):
        # A row shorter than the one beside it (the last discards) is where the blob fills
        # the row's band: the other row's edge, running on past it beside the cut, is not.
        first = 0 if a == -np.inf else max(0, round(a + depth / 2))
        band = cover2d[:, first : None if b == np.inf else max(first, round(b + depth / 2))]
        filled = band.mean(axis=1) > 0.5 if band.shape[1] else np.ones(len(band), bool)
        filled = np.convolve(filled, np.ones(7), mode="same") > 0  # and its rim
        part = outline[(offset >= a) & (offset < b) & filled[line]]
        if len(part) >= 8:
            found += _split_row(_grid_rect(part, rect[2]), grey, mask, calibration, slack)
    return found


def _seam_lines(strip: Image, cover: NDArray[np.bool_], reach: int = 3) -> NDArray[np.float64]:
    """Per line across rows one behind another, how unlike the seam between two rows it is
    (low at a seam or a gap): the brightness of its brighter part, judged only where the
    blob goes on ``reach`` pixels to both sides of the line. A short last row (a few
    discards) leaves most of its lines uncovered: judged on all of them, those lines looked
    like a gap, and the cut fell inside the short row."""
    width = strip.shape[1]
    both = np.zeros_like(cover)
    if width > 2 * reach:
        both[:, reach : width - reach] = cover[:, : width - 2 * reach] & cover[:, 2 * reach :]
    return _against_brightest(_masked_percentile(strip, both, 75))


def _against_brightest(brightness: NDArray[np.float64]) -> NDArray[np.float64]:
    """A line's brightness, smoothed over three, as a share of the line brightness that only
    a tenth of the lines exceed (0 to 1)."""
    prof = np.convolve(brightness, np.ones(3) / 3, mode="same")
    top = max(1.0, float(_percentile(prof, 90)))
    return np.asarray(np.clip(prof / top, 0, 1))


def _masked_percentile(values: Image, where: NDArray[np.bool_], q: float) -> NDArray[np.float64]:
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


def _every_pixel(points: NDArray[np.float32]) -> NDArray[np.float32]:
    """A closed outline compressed to the ends of its straight runs, with every pixel on it
    again (the runs are horizontal, vertical or diagonal: whole steps in both coordinates)."""
    following = np.roll(points, -1, axis=0)
    steps = np.maximum(np.abs(following - points).max(axis=1), 1).astype(np.int64)
    run = np.repeat(np.arange(len(points)), steps)
    # How far along its run each pixel lies, 0 at the run's start.
    along = np.arange(int(steps.sum())) - np.repeat(np.cumsum(steps) - steps, steps)
    share = (along / steps[run]).astype(np.float32)[:, None]
    return np.asarray(np.rint(points[run] + (following[run] - points[run]) * share), np.float32)


def _face_colours(top: Image, tiles: list[Found]) -> NDArray[np.float32]:
    """Per tile, the Lab colours of 25 points spread over its face, (tiles, 25, 3)."""
    if not tiles:
        return np.zeros((0, 25, 3), np.float32)
    steps = np.linspace(-0.4, 0.4, 5)
    axes = [_tile_axes(tile) for tile in tiles]
    centre = np.array([c for c, _, _ in axes])
    up = np.array([u * tile.h for (_, u, _), tile in zip(axes, tiles, strict=True)])
    right = np.array([r * tile.w for (_, _, r), tile in zip(axes, tiles, strict=True)])
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


def _body_colours(top: Image, tiles: list[Found]) -> NDArray[np.float32]:
    """Per tile, the median colour of its face's points: mostly the tile's body (the
    engraving covers well under half a face), so alike for every tile of a set."""
    return np.asarray(np.median(_face_colours(top, tiles), axis=1), np.float32)


def _colour_distance(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """Lab distance as the cloth's is measured (lightness a third: light is uneven)."""
    diff = np.abs(a - b)
    return np.asarray(diff[..., 1] + diff[..., 2] + diff[..., 0] / 3, np.float32)


def _body_points(top: Image, tiles: list[Found], body: NDArray[np.float32]) -> NDArray[np.int64]:
    """Per tile, how many of its face's points show the set's body colour (``body``): a tile
    shows its body between and around the engraving, however much ink it carries; a piece
    of a hand shows none."""
    distance = _colour_distance(_face_colours(top, tiles), body)
    return np.asarray((distance < _BODY_NEAR).sum(axis=1), np.int64)


def set_body(top: Image, found: list[Found], geometry: TableGeometry) -> NDArray[np.float32] | None:
    """The set's body colour on the whole table ``top`` (:func:`rectify`), from the tiles
    found face up outside the walls; None with fewer than three."""
    faces = _faces(found, geometry)
    return _set_body(top, faces) if len(faces) >= 3 else None


def _faces(found: list[Found], g: TableGeometry, dx: float = 0.0, dy: float = 0.0) -> list[Found]:
    """The tiles found outside the walls (each at (x + dx, y + dy) on the table): the walls
    are face down, and their backs are not the body colour of the set's faces."""
    return [f for f in found if f.kind == "tile" and not _in_wall(g, f.x + dx, f.y + dy)]


def _set_body(top: Image, known: list[Found]) -> NDArray[np.float32]:
    """The body colour of the set on the table, from the tiles found singly and in plain
    rows: their median face colour. One colour: a set's faces share one body. (A set framed
    in several colours, as kde-alphabet's, loses rows to it; taking every colour three tiles
    share, 4 of 48 rendered hands over the table went unseen, against 1.)"""
    return np.asarray(np.median(_body_colours(top, known), axis=0), np.float32)


def _obstruction(
    centre: NDArray[np.float64], depth: float, length: float, long_axis: NDArray[np.float64]
) -> Found:
    """Something over the table: the rectangle ``length`` along ``long_axis`` and ``depth``
    across it (pixels), for the watcher to hold still only what lies under it."""
    return replace(_tile(centre, long_axis, length, depth), kind="obstruction")


def _runs(covered: NDArray[np.bool_]) -> list[tuple[int, int]]:
    edges = np.diff(np.concatenate([[0], covered.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


# A piece of a row may be this much longer than its tile: discards laid a little apart are
# joined by blur and shadow, and the piece takes the gap with it. Cut only as long as a tile,
# a row of them pitched 24-26 mm drifted off its seams until a piece took the drift as a
# sideways tile (on 48 rendered tables of six sets, 108 tiles found turned; 4 with this).
_GAP_MM = 2.0


# Between tiles of one row, a seam's rim crosses a tile's whole depth; an engraving (a column
# of dots, bamboo) may cross three quarters of it. Judged by the brightest twentieth of each
# line, engravings stop looking like seams: on 16 rendered hands of xmj-real's scanned tiles
# laid out (224 tiles), 15 missed and 11 false, against 2 and 0 judged by the brightest
# quarter. (Rows one behind another are still cut apart by the brightest quarter: so, a
# symbola discard blob two rows deep was lost.)
_ALONG_ROW_BRIGHTER_PART = 95.0


# A row at least this many upright tiles long (a hand laid out, not six discards laid by hand
# at uneven gaps) may be cut on an even pitch: each cut is charged for lying off the pitch and
# credited for lying on it, by up to this much shared among the cuts (0.5 a cut for a hand of
# 14; the profile charges a cut -1 to 1 against its median, a seam about -0.2). Shared, so
# that how many pieces a run holds is told by its seams and sizes, not by how many cuts earn
# the credit: at 0.5 a cut, 14 tiles laid up to 1.5 mm apart were cut as 15.
_EVEN_ROW_TILES = 7
_EVEN_PITCH_CREDIT = 6.5


def _off_pitch(n: int, count: int) -> NDArray[np.float64]:
    """Per end of a piece in a run of ``n`` cut into ``count`` equal pieces, how far it lies
    from the nearest of those cuts: -0.5 on one, 0.5 midway between two (a cutting taking
    random places gains nothing, one on the pitch gains)."""
    pitch = n / count
    at = np.arange(1, n + 1) / pitch
    return np.asarray(2 * np.abs(at - np.round(at)) - 0.5)


def _cut_run(
    profile: NDArray[np.float64],
    lengths: list[float],
    depth_cover: NDArray[np.float64],
    shallow: float,
    tw: float,
    upright_row: bool,
) -> list[tuple[int, int, int]] | None:
    """One run of a row's tiles cut at its seams (:func:`_partition`).

    A cut is charged by how much less like a seam its line is than the run's median line:
    where seams hardly show (tiles touching, a hand laid out), every cut cost about the same,
    and fewer, longer pieces (13 for 14 touching tiles) came cheaper. Where they hardly show
    and the faces' engravings are darker (dots, bamboo), the cuts followed the engravings
    instead, half a tile off: a long run of upright tiles is also cut on each even pitch its
    length allows, and kept so when that is cheaper, the pitch counted."""
    n = len(profile)
    tol, gap = 3.5 * PX_PER_MM, _GAP_MM * PX_PER_MM
    seams = profile - _median(profile)
    best = _partition(seams, lengths, tol, depth_cover, shallow, gap)
    if best is None or not upright_row or n < _EVEN_ROW_TILES * tw:
        return None if best is None else best.pieces
    # Tiles touching, or apart by up to the gap (and a pixel of measuring either way).
    for count in range(int(np.ceil(n / (tw + gap + 1))), int(n / (tw - 1)) + 1):
        prior = _EVEN_PITCH_CREDIT / (count - 1) * _off_pitch(n, count)
        even = _partition(seams + prior, lengths, tol, depth_cover, shallow, gap)
        if even is not None and even.cost < best.cost:
            best = even
    return best.pieces


def _split_row(
    rect: Rect, grey: Image, mask: Image, calibration: Calibration, slack_mm: float = 8.0
) -> list[Found]:
    """The tiles of one row; deeper than a tile's length and ``slack_mm``, not a row."""
    g = calibration.geometry
    tw, th = g.tile_w_mm * PX_PER_MM, g.tile_h_mm * PX_PER_MM
    centre = np.array(rect[0], np.float64)
    along, across, length, depth = _axis(rect)
    # One tile, its long side either way (with its share of the slack: the shadow of a deep
    # blob's outer row lengthens a lone last discard in it).
    one = th + (slack_mm - 4) * PX_PER_MM
    if length < one and depth < one:
        if length >= depth:
            return [_tile(centre, along, th, tw)]
        return [_tile(centre, across, th, tw)]
    if depth > th + slack_mm * PX_PER_MM or depth < tw - 6 * PX_PER_MM:
        return [_obstruction(centre, depth, length, along)]
    upright_row = abs(depth - th) < abs(depth - tw)
    lengths = [tw, th] if upright_row else [th]
    strip = _strip(grey, centre, along, across, length, depth)
    cover2d = _strip(mask, centre, along, across, length, depth) > 127
    cover = cover2d.mean(axis=0)
    profile = _seam_profile(strip, cover2d, _ALONG_ROW_BRIGHTER_PART) * np.clip(cover * 1.5, 0, 1)
    # Per line across the row, how much of it is covered up to each column (a piece's share
    # is a difference of two: each piece's mean, without a pass over its pixels).
    covered_to = np.zeros((cover2d.shape[0], cover2d.shape[1] + 1), np.int64)
    np.cumsum(cover2d, axis=1, out=covered_to[:, 1:])
    out = []
    for a0, b0 in _runs(cover > 0.3):
        if b0 - a0 < tw - 6 * PX_PER_MM:
            continue
        pieces = _cut_run(
            profile[a0:b0], lengths, cover[a0:b0] * depth / th, tw / th, tw, upright_row
        )
        if pieces is None:
            c = centre + along * ((a0 + b0) / 2 - length / 2)
            out.append(_obstruction(c, depth, b0 - a0, along))
            continue
        for a, b, cut_as in pieces:
            a, b = a + a0, b + a0
            # Where across the row this piece lies (a sideways tile is shallower than the row).
            rows = np.flatnonzero((covered_to[:, b] - covered_to[:, a]) / (b - a) > 0.5)
            lo, hi = (rows[0], rows[-1] + 1) if len(rows) else (0, strip.shape[0])
            c = centre + along * ((a + b) / 2 - length / 2) + across * ((lo + hi) / 2 - depth / 2)
            if upright_row and cut_as == 0:
                out.append(_tile(c, across, th, tw))  # upright: long side across the row
            else:
                out.append(_tile(c, along, th, tw))  # sideways: long side along the row
    return out


def _tile(centre: NDArray[np.float64], long_axis: NDArray[np.float64], h: float, w: float) -> Found:
    # Angle of the long side from the y axis, folded into [0, 180).
    angle = float(np.degrees(np.arctan2(-long_axis[0], long_axis[1]))) % 180.0
    return Found(
        "tile", centre[0] / PX_PER_MM, centre[1] / PX_PER_MM, angle, w / PX_PER_MM, h / PX_PER_MM
    )


_CROP_CORNERS = np.array([[0, 0], [CROP_W, 0], [CROP_W, CROP_H], [0, CROP_H]], np.float32)


def _tile_axes(
    tile: Found,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The tile's centre on the table, and unit vectors along its long and short sides."""
    t = np.deg2rad(tile.angle)
    up = np.array([-np.sin(t), np.cos(t)])  # along the long side
    right = np.array([np.cos(t), np.sin(t)])
    return np.array([tile.x, tile.y]), up, right


def _corners_mm(tile: Found) -> NDArray[np.float64]:
    """The tile's corners on the table, in the crop's corner order (long side vertical)."""
    c, up, right = _tile_axes(tile)
    hw, hh = tile.w / 2, tile.h / 2
    return np.array(
        [
            c - right * hw - up * hh,
            c + right * hw - up * hh,
            c + right * hw + up * hh,
            c - right * hw + up * hh,
        ]
    )


def _cut(frame: Image, corners_px: NDArray[np.float32]) -> Image:
    m = cv2.getPerspectiveTransform(corners_px, _CROP_CORNERS)
    return np.asarray(
        cv2.warpPerspective(
            frame, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        ),
        np.uint8,
    )


def tile_crop(frame: Image, calibration: Calibration, tile: Found) -> Image:
    """The tile cut from the camera frame (full resolution), long side vertical."""
    return _cut(frame, calibration.to_frame(_corners_mm(tile)).astype(np.float32))


def tile_crops(frame: Image, calibration: Calibration, tiles: list[Found]) -> list[Image]:
    """:func:`tile_crop` of each tile, the corners taken through the calibration at once."""
    if not tiles:
        return []
    corners = calibration.to_frame(np.concatenate([_corners_mm(t) for t in tiles]))
    quads = corners.astype(np.float32).reshape(len(tiles), 4, 2)
    return [_cut(frame, quad) for quad in quads]
