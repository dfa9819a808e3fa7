"""The table flattened to a top-down image through the calibration."""

from __future__ import annotations

from concurrent.futures import Executor

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.image import Image

from .found import PX_PER_MM, Box


def rectify(
    frame: Image,
    calibration: Calibration,
    box: Box | None = None,
    helper: Executor | None = None,
) -> Image:
    """The table from straight above at ``PX_PER_MM`` (table mm -> image px); ``box``: only
    that part of it (the same pixels as that part of the whole). ``helper``: an idle thread
    that flattens the lower half meanwhile, into the same image (each half is one
    ``cv2.warpPerspective`` that lets go of the interpreter: the very same pixels); if that
    thread has not begun when this one is done with the upper half, this one does both."""
    size = round(calibration.geometry.size_mm * PX_PER_MM)
    x0, y0, x1, y1 = (0, 0, size, size) if box is None else box
    out = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
    if helper is None or y1 - y0 < 2:
        _warp(frame, calibration, (x0, y0, x1, y1), out)
        return out
    half = (y1 - y0) // 2
    lower_box = (x0, y0 + half, x1, y1)
    lower = helper.submit(_warp, frame, calibration, lower_box, out[half:])
    _warp(frame, calibration, (x0, y0, x1, y0 + half), out[:half])
    if lower.cancel():  # not begun: the other thread has had no core meanwhile
        _warp(frame, calibration, lower_box, out[half:])
    else:
        lower.result()
    return out


def _warp(frame: Image, calibration: Calibration, box: Box, out: Image) -> None:
    """The part ``box`` of the top-down image, written into ``out`` (contiguous, its size)."""
    x0, y0, x1, y1 = box
    scale = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    to_frame = calibration.homography @ scale
    to_frame = to_frame @ np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
    written = cv2.warpPerspective(
        frame, to_frame, (x1 - x0, y1 - y0), dst=out, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP
    )
    assert written is out or np.shares_memory(written, out), "OpenCV wrote elsewhere"
