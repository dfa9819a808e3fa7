"""The table flattened to a top-down image through the calibration."""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.image import Image

from .found import PX_PER_MM, Box


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
