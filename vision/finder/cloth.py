"""The cloth: its colour, whether brightness must tell the tiles from it, and the mask of what
lies on it (looked at coarse first, then at full resolution near what that found).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import TableGeometry
from vision.halves import collect
from vision.image import Image
from vision.stats import median_uint8

from .found import Box
from .markers import marker_boxes

_KERNEL3 = np.ones((3, 3), np.uint8)


# Distance from the cloth: |a - a0| + |b - b0| + |L - L0| // 3, far above 28. On whole
# numbers "> 28" is "3 |a - a0| + 3 |b - b0| + |L - L0| >= 87": two saturating
# multiply-adds of the channels (a sum past 255 is far all the same) instead of a weighted
# transform of the three, a third of its time.
_CLOTH_THRESHOLD = 28


_FAR_FROM_ONE = 3 * (_CLOTH_THRESHOLD + 1)


def _far_from_cloth(
    lab: Image, scalar: Any, out: NDArray[np.uint8] | None = None
) -> NDArray[np.uint8]:
    """255 where a Lab image is far from the cloth's colour (``out``: written there)."""
    light, a, b = cv2.split(cv2.absdiff(lab, scalar))
    weighted = cv2.scaleAdd(b, 3.0, cv2.scaleAdd(a, 3.0, light))
    far = cv2.threshold(weighted, _FAR_FROM_ONE - 1, 255, cv2.THRESH_BINARY, dst=out)[1]
    return np.asarray(far, np.uint8)


def _with_brighter(
    far: NDArray[np.uint8],
    lab: Image,
    brighter: NDArray[np.uint8],
    out: NDArray[np.uint8] | None = None,
) -> NDArray[np.uint8]:
    """``far``, and 255 where the Lab image is lighter than ``brighter`` (per pixel)."""
    bright = cv2.compare(cv2.extractChannel(lab, 0), brighter, cv2.CMP_GT)
    return np.asarray(cv2.bitwise_or(far, bright, dst=out), np.uint8)


def _off_cloth(
    lab: Image,
    scalar: Any,
    brighter: NDArray[np.uint8] | None,
    out: NDArray[np.uint8] | None = None,
) -> NDArray[np.uint8]:
    """255 where a Lab image is far from the cloth's colour, or brighter than ``brighter``
    (per pixel; None: brightness alone never counts), before any cleaning; ``out``: written
    there (a part of a larger mask, not copied)."""
    if brighter is None:
        return _far_from_cloth(lab, scalar, out)
    return _with_brighter(_far_from_cloth(lab, scalar), lab, brighter, out)


# Every 3rd pixel each way is looked at first. The 3x3 opening keeps a pixel only inside a
# 3x3 square of marked pixels; every such square holds one pixel of that grid and lies within
# 2 pixels of it: so the full-resolution mask is needed only that near marked grid pixels.
GRID = 3


REACH = 2


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
SAMPLE = 8


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
    (and where) brightness must tell the tiles from it (:func:`cloth_of_samples`)."""
    return cloth_of_samples(every_nth(top, SAMPLE), top.shape[:2], geometry)


def cloth_of_samples(
    sampled: Image, size: tuple[int, int], geometry: TableGeometry | None = None
) -> Cloth:
    """The cloth of a top-down image of ``size`` (rows, columns), from its every 8th pixel
    each way (``sampled``, BGR): its dominant colour, and whether (and where) brightness
    must tell the tiles from it. With the table's ``geometry``, its printed markers have no
    say in that choice: on a table bare but for a hand laid out, their black and white was
    most of what lay far from the cloth's colour, and outweighed the jade bodies that only
    brightness shows (2 of 6 such hands on a red cloth lost)."""
    sample = np.asarray(cv2.cvtColor(sampled, cv2.COLOR_BGR2LAB), np.uint8)
    flat = sample.reshape(-1, 3)
    lab = (median_uint8(flat[:, 0]), median_uint8(flat[:, 1]), median_uint8(flat[:, 2]))
    around = cv2.medianBlur(np.ascontiguousarray(sample[:, :, 0]), _AROUND).astype(np.float64)
    limit = np.minimum(np.maximum(around + _BRIGHTER_BY, around * _BRIGHTER_TIMES), 255)
    limit = limit.astype(np.uint8)
    scalar: Any = (*lab, 0.0)
    far = _far_from_cloth(sample, scalar)
    either = _with_brighter(far, sample, limit)
    for x0, y0, x1, y1 in marker_boxes(geometry) if geometry is not None else []:
        # The samples (every 8th pixel) from the box's first pixel up to its last.
        box = (slice(*_sampled(y0, y1)), slice(*_sampled(x0, x1)))
        far[box] = 0
        either[box] = 0
    by_colour, either_count = cv2.countNonZero(far), cv2.countNonZero(either)
    if by_colour >= _COLOUR_SUFFICES * either_count:
        return Cloth(lab)
    # Each pixel takes its sample's limit (nearest-neighbour at exactly 8x).
    rows, cols = size
    full_size = (limit.shape[1] * SAMPLE, limit.shape[0] * SAMPLE)
    full = cv2.resize(limit, full_size, interpolation=cv2.INTER_NEAREST)[:rows, :cols]
    return Cloth(lab, np.ascontiguousarray(full))


def every_nth(image: Image, n: int) -> Image:
    """``image[::n, ::n]``, contiguous: nearest-neighbour resizing at an exact ratio picks
    exactly those pixels, a fraction of the time of copying a strided slice; only a last
    partial row and column of blocks are sliced."""
    rows, cols = image.shape[:2]
    whole_rows, whole_cols = rows // n, cols // n
    out = np.empty((-(-rows // n), -(-cols // n), *image.shape[2:]), image.dtype)
    if whole_rows and whole_cols:
        out[:whole_rows, :whole_cols] = cv2.resize(
            image[: whole_rows * n, : whole_cols * n],
            (whole_cols, whole_rows),
            interpolation=cv2.INTER_NEAREST,
        ).reshape(whole_rows, whole_cols, *image.shape[2:])
    out[whole_rows:] = image[whole_rows * n :: n, ::n]
    out[:whole_rows, whole_cols:] = image[: whole_rows * n : n, whole_cols * n :: n]
    return out


def _sampled(lo: int, hi: int) -> tuple[int, int]:
    """The samples of every ``SAMPLE``-th pixel that lie in pixels [lo, hi)."""
    return max(0, -(-lo // SAMPLE)), max(0, -(-hi // SAMPLE))


def cloth_mask(
    top: Image, cloth: Cloth | None = None, origin: tuple[int, int] = (0, 0)
) -> NDArray[np.uint8]:
    """255 where something lies on the cloth. The cloth is the image's dominant colour
    (``cloth``: given, for a part of the table whose first pixel is ``origin`` of the whole);
    light changes its brightness more than its hue, so brightness counts for less, except
    where a pixel is clearly brighter than the cloth around it."""
    return cloth_mask_outlined(top, cloth, origin).mask


def cloth_mask_outlined(
    top: Image, cloth: Cloth | None = None, origin: tuple[int, int] = (0, 0)
) -> Outlined:
    """:func:`cloth_mask`, with the outer outlines of its blobs (:func:`fine_mask`)."""
    cloth = cloth_of(top) if cloth is None else cloth
    rows, cols = top.shape[:2]
    boxes = []
    if rows >= GRID and cols >= GRID:
        # The grid's pixels of whole blocks (a last partial row or column lies in the edges).
        grid = every_nth(top[: rows - rows % GRID, : cols - cols % GRID], GRID)
        boxes = boxes_near(coarse_marks(grid, cloth, origin), REACH)
    return fine_mask(top, boxes, cloth, origin)


def coarse_marks(grid: Image, cloth: Cloth, origin: tuple[int, int] = (0, 0)) -> NDArray[np.uint8]:
    """255 where a pixel of the grid (every 3rd pixel each way of a top-down image whose
    first pixel is ``origin`` of the whole, BGR) is not cloth, before any cleaning."""
    grid_lab = np.asarray(cv2.cvtColor(grid, cv2.COLOR_BGR2LAB), np.uint8)
    rows, cols = grid.shape[0] * GRID, grid.shape[1] * GRID
    step = (slice(0, rows, GRID), slice(0, cols, GRID))
    return _off_cloth(grid_lab, _scalar(cloth), _part(_brighter(cloth, origin, rows, cols), step))


# A region of marks that fills under a quarter of its box (a ring round the table's edge)
# is boxed per band of this many grid rows: a box per band and side, not one box of the
# whole table.
BAND = 32


_SPARSE = 0.25


def boxes_near(coarse: NDArray[np.uint8], reach: int) -> list[Box]:
    """Boxes (full-resolution pixels) holding every pixel within ``reach`` of a marked grid
    pixel: each region of the marks grown by ``reach`` (in grid steps, rounded up) boxed
    whole, or band by band where it fills little of its box."""
    steps = -(-reach // GRID)
    near = cv2.dilate(coarse, np.ones((2 * steps + 1, 2 * steps + 1), np.uint8))
    # The same components by any algorithm; OpenCV's default took 0.54 ms of the 300 x 300
    # grid, block-based decision trees (BBDT) 0.20.
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        near, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    boxes = []
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area >= _SPARSE * w * h:
            boxes.append((x * GRID, y * GRID, (x + w - 1) * GRID + 1, (y + h - 1) * GRID + 1))
            continue
        own = np.asarray(labels[y : y + h, x : x + w] == k, np.uint8)
        # Grown, every mark lies in a run at least 3 rows deep: a mark on a band's first row
        # has one above or below it, and each box grown by a row each way holds it.
        own[-y % BAND :: BAND] = 0
        parts, _ = cv2.findContours(own, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for px, py, pw, ph in map(cv2.boundingRect, parts):
            x0, y0, y1 = x + px, max(y + py - 1, y), min(y + py + ph, y + h - 1)
            boxes.append((x0 * GRID, y0 * GRID, (x0 + pw - 1) * GRID + 1, y1 * GRID + 1))
    return boxes


def edge_boxes(rows: int, cols: int) -> list[Box]:
    """The image's edges, always looked at in full: the opening counts what lies past the
    edge as marked."""
    edge = REACH + GRID
    return [
        (0, 0, cols, edge),
        (0, max(0, rows - edge), cols, rows),
        (0, 0, edge, rows),
        (max(0, cols - edge), 0, cols, rows),
    ]


class Outlined(NamedTuple):
    """The mask of what lies on the cloth, and the outer outline of each of its blobs (as
    ``cv2.findContours`` gives them, compressed)."""

    mask: NDArray[np.uint8]
    outlines: Sequence[NDArray[np.int32]]


def fine_mask(
    top: Image,
    boxes: list[Box],
    cloth: Cloth,
    origin: tuple[int, int] = (0, 0),
    helper: Executor | None = None,
) -> Outlined:
    """The mask of :func:`cloth_mask`, looked at in full resolution only in ``boxes`` (those
    near the grid's marks, :func:`boxes_near`) and at the image's edges (``helper``: half
    of the boxes marked there; each box's marks are its pixels' own); with its blobs' outer
    outlines, found to fill them (filling a blob's holes leaves its outer outline as it was:
    the finder takes its blobs from these, vision/finder/blobs.py)."""
    rows, cols = top.shape[:2]
    scalar, brighter = _scalar(cloth), _brighter(cloth, origin, rows, cols)
    mask = np.zeros((rows, cols), np.uint8)

    def mark(some: list[Box]) -> None:
        for x0, y0, x1, y1 in some:
            lab = np.asarray(cv2.cvtColor(top[y0:y1, x0:x1], cv2.COLOR_BGR2LAB), np.uint8)
            part = mask[y0:y1, x0:x1]
            written = _off_cloth(lab, scalar, _part(brighter, np.s_[y0:y1, x0:x1]), part)
            assert np.shares_memory(written, part), "OpenCV wrote elsewhere"

    in_halves(mark, [*boxes, *edge_boxes(rows, cols)], helper)
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, _KERNEL3), np.uint8)
    # A face close to the cloth's colour may show only its shaded rim: fill what it encloses.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, -1)
    return Outlined(np.asarray(mask, np.uint8), [np.asarray(c, np.int32) for c in contours])


def in_halves(work: Callable[[list[Box]], None], boxes: list[Box], helper: Executor | None) -> None:
    """``work`` on every box: on two threads, about half the pixels each, when there is a
    ``helper``; what it has not begun when this thread is done with its own half is done
    here. A half it has begun is waited for: the work writes into an image this thread
    reads next."""
    if helper is None or len(boxes) < 2:
        work(boxes)
        return
    halves: tuple[list[Box], list[Box]] = ([], [])
    areas = [0, 0]
    for box in sorted(boxes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]), reverse=True):
        lighter = int(areas[1] < areas[0])
        halves[lighter].append(box)
        areas[lighter] += (box[2] - box[0]) * (box[3] - box[1])
    far = helper.submit(work, halves[1])
    work(halves[0])
    collect(far, partial(work, halves[1]), None)


def _scalar(cloth: Cloth) -> Any:
    return (*cloth.lab, 0.0)  # an OpenCV Scalar


def _brighter(
    cloth: Cloth, origin: tuple[int, int], rows: int, cols: int
) -> NDArray[np.uint8] | None:
    """The cloth's brightness limits over a part of the table (None: colour suffices)."""
    if cloth.brighter is None:
        return None
    return cloth.brighter[origin[1] : origin[1] + rows, origin[0] : origin[0] + cols]


def _part(image: NDArray[np.uint8] | None, where: tuple[slice, slice]) -> NDArray[np.uint8] | None:
    return None if image is None else np.ascontiguousarray(image[where])
