"""The table flattened to a top-down image through the calibration."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.image import Image

from .found import PX_PER_MM, Box


def rectify(frame: Image, calibration: Calibration, box: Box | None = None) -> Image:
    """The table from straight above at ``PX_PER_MM`` (table mm -> image px); ``box``: only
    that part of it (the same pixels as that part of the whole)."""
    size = table_px(calibration)
    x0, y0, x1, y1 = (0, 0, size, size) if box is None else box
    out = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
    _warp(frame, _to_table(calibration), (x0, y0, x1, y1), out)
    return out


def rectify_every_nth(
    frame: Image, calibration: Calibration, n: int, count: tuple[int, int] | None = None
) -> Image:
    """Every ``n``-th pixel each way of the top-down image (:func:`rectify`), flattened
    straight from the frame: the same pixels as ``rectify(frame, calibration)[::n, ::n]``
    (the tests check it) at a fraction of its work. ``count``: only the first (rows,
    columns) of them."""
    size = table_px(calibration)
    rows, cols = count if count is not None else (-(-size // n), -(-size // n))
    to_frame = calibration.homography @ np.diag([n / PX_PER_MM, n / PX_PER_MM, 1.0])
    return np.asarray(
        cv2.warpPerspective(
            frame, to_frame, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        ),
        np.uint8,
    )


def rectify_boxes(frame: Image, calibration: Calibration, boxes: list[Box], out: Image) -> None:
    """The parts ``boxes`` of the top-down image written into ``out`` (the whole image's
    size): the same pixels as :func:`rectify` of each, the calibration's matrix made once."""
    to_table = _to_table(calibration)
    for x0, y0, x1, y1 in boxes:
        _warp(frame, to_table, (x0, y0, x1, y1), out[y0:y1, x0:x1])


def table_px(calibration: Calibration) -> int:
    """The top-down image's side in pixels."""
    return round(calibration.geometry.size_mm * PX_PER_MM)


def _to_table(calibration: Calibration) -> NDArray[np.float64]:
    """Top-down pixels -> frame pixels, before a part's own offset."""
    scale = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    return np.asarray(calibration.homography @ scale, np.float64)


def _warp(frame: Image, to_table: NDArray[np.float64], box: Box, out: Image) -> None:
    """The part ``box`` of the top-down image (``to_table``: :func:`_to_table`), written
    into ``out`` (its size; a view into a larger image is written in place)."""
    x0, y0, x1, y1 = box
    to_frame = to_table @ np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
    written = cv2.warpPerspective(
        frame, to_frame, (x1 - x0, y1 - y0), dst=out, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP
    )
    assert written is out or np.shares_memory(written, out), "OpenCV wrote elsewhere"
