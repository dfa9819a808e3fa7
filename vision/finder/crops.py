"""Each tile cut from the full-resolution camera frame, long side vertical, at the
recogniser's input size.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.crops import CROP_H, CROP_W
from vision.image import Image

from .found import Found, tile_axes

_CROP_CORNERS = np.array([[0, 0], [CROP_W, 0], [CROP_W, CROP_H], [0, CROP_H]], np.float32)


def corners_mm(tile: Found) -> NDArray[np.float64]:
    """The tile's corners on the table, in the crop's corner order (long side vertical)."""
    c, up, right = tile_axes(tile)
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
    return _cut(frame, calibration.to_frame(corners_mm(tile)).astype(np.float32))


def tile_crops(frame: Image, calibration: Calibration, tiles: list[Found]) -> list[Image]:
    """:func:`tile_crop` of each tile, the corners taken through the calibration at once."""
    if not tiles:
        return []
    corners = calibration.to_frame(np.concatenate([corners_mm(t) for t in tiles]))
    quads = corners.astype(np.float32).reshape(len(tiles), 4, 2)
    return [_cut(frame, quad) for quad in quads]
