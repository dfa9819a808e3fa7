"""The table flattened to a top-down image through the calibration.

Each top-down pixel's place in the camera frame depends only on the calibration, so it is
worked out once per calibration, as OpenCV's fixed-point maps (whole pixel and 1/32 fraction,
as ``cv2.convertMaps`` makes them), and every frame is flattened by one ``cv2.remap``
through them: 1.8x faster than ``cv2.warpPerspective``, which works the places out again for
every frame. Its bilinear weights are in 1/32 steps where the warp's are exact, so a
flattened pixel may differ from the warp's by up to three levels at a sharp edge (5 % of
them by one, 0.003 % by more on a rendered table; the tests hold it to that)."""

from __future__ import annotations

from collections import OrderedDict

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.image import Image

from .found import PX_PER_MM, Box

# OpenCV's fixed-point remap: a place's fraction in 1/2**_BITS of a pixel.
_BITS = 5
_STEPS = 1 << _BITS

Maps = tuple[NDArray[np.int16], NDArray[np.uint16]]

# The maps of the last few calibrations (a table has one; 4.9 MB each at 900x900).
_KEEP = 2
_MAPS: OrderedDict[bytes, Maps] = OrderedDict()


def rectify(frame: Image, calibration: Calibration, box: Box | None = None) -> Image:
    """The table from straight above at ``PX_PER_MM`` (table mm -> image px); ``box``: only
    that part of it (exactly the same pixels as that part of the whole)."""
    places, fractions = flattening_maps(calibration)
    if box is not None:
        x0, y0, x1, y1 = box
        places, fractions = places[y0:y1, x0:x1], fractions[y0:y1, x0:x1]
    return np.asarray(
        cv2.remap(frame, places, fractions, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT),
        np.uint8,
    )


def rectify_exactly(frame: Image, calibration: Calibration) -> Image:
    """The whole table flattened by ``cv2.warpPerspective`` (exact bilinear weights): what
    :func:`rectify` approximates, for the tests."""
    size = _size(calibration)
    return np.asarray(
        cv2.warpPerspective(
            frame,
            _to_frame(calibration),
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        ),
        np.uint8,
    )


def flattening_maps(calibration: Calibration) -> Maps:
    """Where each top-down pixel lies in the frame, as ``cv2.remap``'s fixed-point maps:
    the whole pixel (x, y), and the fraction's 1/32 steps (y * 32 + x). Made once per
    calibration (about 25 ms) and kept."""
    size = _size(calibration)
    key = calibration.homography.tobytes() + size.to_bytes(4, "little")
    maps = _MAPS.get(key)
    if maps is None:
        maps = _MAPS[key] = _fixed_point_maps(_to_frame(calibration), size)
        while len(_MAPS) > _KEEP:
            _MAPS.popitem(last=False)
    else:
        _MAPS.move_to_end(key)
    return maps


def _size(calibration: Calibration) -> int:
    return round(calibration.geometry.size_mm * PX_PER_MM)


def _to_frame(calibration: Calibration) -> NDArray[np.float64]:
    scale = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
    return np.asarray(calibration.homography @ scale, np.float64)


def _fixed_point_maps(to_frame: NDArray[np.float64], size: int) -> Maps:
    """The maps of the homography ``to_frame`` (top-down pixel -> frame pixel) for a
    ``size`` x ``size`` image, rounded to 1/32 pixel as OpenCV rounds them."""
    along = np.arange(size, dtype=np.float64)
    x, y = along[None, :], along[:, None]
    m = to_frame
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    w = np.where(w != 0, _STEPS / np.where(w != 0, w, 1.0), 0.0)
    limit = np.iinfo(np.int32)
    fx = np.clip((m[0, 0] * x + m[0, 1] * y + m[0, 2]) * w, limit.min, limit.max)
    fy = np.clip((m[1, 0] * x + m[1, 1] * y + m[1, 2]) * w, limit.min, limit.max)
    ix, iy = np.rint(fx).astype(np.int32), np.rint(fy).astype(np.int32)
    places = np.empty((size, size, 2), np.int16)
    short = np.iinfo(np.int16)
    places[..., 0] = np.clip(ix >> _BITS, short.min, short.max)
    places[..., 1] = np.clip(iy >> _BITS, short.min, short.max)
    fractions = ((iy & (_STEPS - 1)) * _STEPS + (ix & (_STEPS - 1))).astype(np.uint16)
    return places, fractions
