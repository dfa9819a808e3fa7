"""The whole table flattened only where something lies on the cloth.

The cloth's colour is measured on every 8th pixel and the mask is looked at first on every
3rd (vision/finder/cloth.py): both grids are flattened straight from the frame, the same
pixels as the whole top-down image's at a fraction of its work. The top-down image itself is
then flattened in full only near what the grid marks (``MARGIN`` beyond the boxes the mask
looks at in full) and along its edges; elsewhere it holds the cloth's colour. Every later
stage looks at the blobs of the mask and a few pixels around them: on 440 tables of every
set the finder found exactly what it finds on the whole image (bench/vision/README.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.halves import collect
from vision.image import Image

from .cloth import (
    GRID,
    REACH,
    SAMPLE,
    Cloth,
    boxes_near,
    cloth_mask_outlined,
    cloth_of,
    cloth_of_samples,
    coarse_marks,
    edge_boxes,
    fine_mask,
    in_halves,
)
from .found import Box
from .topdown import rectify, rectify_boxes, rectify_every_nth, table_px

# Pixels flattened beyond the boxes the mask looks at in full (themselves 2-5 pixels beyond
# the grid's marks): a row's strip, a die's square and a face's points lie within.
MARGIN = 8


@dataclass(frozen=True, eq=False)  # arrays inside: compared by identity
class Flattened:
    """The top-down image (in full near whatever lies on the cloth, the cloth's colour
    elsewhere), the cloth, the mask of what lies on it, and the image in grey; and the
    outer outlines of the mask's blobs, found in making it."""

    top: Image
    cloth: Cloth
    mask: NDArray[np.uint8]
    grey: Image
    outlines: Sequence[NDArray[np.int32]]


def flatten_on_cloth(
    frame: Image, calibration: Calibration, helper: Executor | None = None
) -> Flattened:
    """The table's cloth, its mask and its top-down image where the mask needs it: what
    ``rectify``, ``cloth_of`` and ``cloth_mask`` give on the whole image, the top-down
    image only near the mask's blobs. ``helper``: an idle thread that measures the cloth
    while this one flattens the mask's grid, lays the cloth's colour while this one finds
    the boxes, then flattens and marks half the boxes (each box's pixels are its own: the
    very same image and mask); what it has not begun when this thread is done with its
    own part, this one does."""
    size = table_px(calibration)
    if size < GRID:  # too small for a grid: the whole image
        top = rectify(frame, calibration)
        cloth = cloth_of(top, calibration.geometry)
        mask, outlines = cloth_mask_outlined(top, cloth)
        return Flattened(top, cloth, mask, grey_of(top), outlines)
    measured = None if helper is None else helper.submit(cloth_from_frame, frame, calibration)
    start = time.perf_counter()
    grid = rectify_every_nth(frame, calibration, GRID, (size // GRID, size // GRID))
    if measured is None:
        cloth = cloth_from_frame(frame, calibration)
    else:
        here = partial(cloth_from_frame, frame, calibration)
        cloth = collect(measured, here, time.perf_counter() - start)
    # The second thread lays the cloth's colour over the whole image while this one finds
    # the boxes (it is idle then; the boxes' pixels are flattened over it after).
    laid = None if helper is None else helper.submit(cloth_canvas, size, cloth)
    start = time.perf_counter()
    boxes = boxes_near(coarse_marks(grid, cloth), REACH)
    canvas = None
    if laid is not None:
        canvas = collect(laid, partial(cloth_canvas, size, cloth), time.perf_counter() - start)
    top, grey = flatten_near(frame, calibration, boxes, cloth, helper, canvas)
    mask, outlines = fine_mask(top, boxes, cloth, helper=helper)
    return Flattened(top, cloth, mask, grey, outlines)


def cloth_from_frame(frame: Image, calibration: Calibration) -> Cloth:
    """:func:`cloth_of` the top-down image, from its every 8th pixel flattened alone."""
    size = table_px(calibration)
    sampled = rectify_every_nth(frame, calibration, SAMPLE)
    return cloth_of_samples(sampled, (size, size), calibration.geometry)


def flatten_near(
    frame: Image,
    calibration: Calibration,
    boxes: list[Box],
    cloth: Cloth,
    helper: Executor | None = None,
    canvas: tuple[Image, Image] | None = None,
) -> tuple[Image, Image]:
    """The top-down image flattened within ``MARGIN`` of ``boxes`` (those the mask looks
    at in full) and along its edges; the cloth's colour elsewhere: in colour and in grey.
    Each box holds the very pixels of the whole image there (``helper``: half of them
    flattened there). ``canvas``: :func:`cloth_canvas`, where laid already (written into)."""
    size = table_px(calibration)
    top, grey = cloth_canvas(size, cloth) if canvas is None else canvas
    grown = [
        (max(0, x0 - MARGIN), max(0, y0 - MARGIN), min(size, x1 + MARGIN), min(size, y1 + MARGIN))
        for x0, y0, x1, y1 in boxes
    ]
    work = partial(_flatten_boxes, frame, calibration, top, grey)
    in_halves(work, grown + edge_boxes(size, size), helper)
    return top, grey


def _flatten_boxes(
    frame: Image, calibration: Calibration, top: Image, grey: Image, boxes: list[Box]
) -> None:
    """``boxes`` of the top-down image flattened into ``top``, and in grey into ``grey``
    (grey is a pixel's own: each box's grey is the whole image's there)."""
    rectify_boxes(frame, calibration, boxes, top)
    for x0, y0, x1, y1 in boxes:
        part = grey[y0:y1, x0:x1]
        written = cv2.cvtColor(top[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY, dst=part)
        assert np.shares_memory(written, part), "OpenCV wrote elsewhere"


def grey_of(top: Image) -> Image:
    """The top-down image in grey, whole."""
    return np.asarray(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), np.uint8)


def cloth_canvas(size: int, cloth: Cloth) -> tuple[Image, Image]:
    """``size`` x ``size`` images of the cloth's colour: BGR, and in grey."""
    bgr = _bgr(cloth)
    top = np.empty((size, size, 3), np.uint8)
    # One row of the cloth's colour copied down (a 3-value broadcast is 100 times slower).
    top.reshape(size, size * 3)[:] = np.tile(bgr, size)
    grey = cv2.cvtColor(bgr.reshape(1, 1, 3), cv2.COLOR_BGR2GRAY)[0, 0]
    return top, np.full((size, size), grey, np.uint8)


def _bgr(cloth: Cloth) -> NDArray[np.uint8]:
    lab = np.array([[cloth.lab]], np.uint8)
    return np.asarray(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)[0, 0], np.uint8)
