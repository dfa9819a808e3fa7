"""Tile crops as the recogniser sees them.

The scanner cuts every tile out of the camera frame through the calibration homography into
a ``CROP_W x CROP_H`` patch, long side vertical (vision/finder/crops.py); any other tile image
(an enrolment photo) is brought to that size here. Synthetic crops, for training and tests,
are vision/synth/crops.py's.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.image import Image

CROP_W = 48
CROP_H = 64


def normalise_crop(image: Image) -> Image:
    """Any tile image (an enrolment photo, a scanned patch) to the recogniser's input size,
    long side vertical."""
    image = _upright(image)
    return np.asarray(cv2.resize(image, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA), np.uint8)


def is_photo(image: Image) -> bool:
    """Wider, on its short side, than the scanner's cut: a single-tile photo at its own
    resolution (the scanner's crops are ``CROP_W`` wide)."""
    return bool(min(image.shape[:2]) > CROP_W)


def as_camera_sees(image: Image, width: int) -> Image:
    """A tile photo at the recogniser's input size as the table camera sees a tile ``width``
    pixels wide: brought down to that width, then up to the input, as the networks' training
    crops are made (vision/synth/crops.py). A photo brought straight down to the input is
    sharper than any crop the networks learnt from."""
    if width < 1:
        raise ValueError(f"as_camera_sees: width {width} is not a width in pixels")
    image = _upright(image)
    h, w = image.shape[:2]
    if w > width:
        small = cv2.resize(image, (width, round(width * h / w)), interpolation=cv2.INTER_AREA)
        image = np.asarray(small, np.uint8)
    return np.asarray(cv2.resize(image, (CROP_W, CROP_H), interpolation=cv2.INTER_LINEAR), np.uint8)


def _upright(image: Image) -> Image:
    """In three colours, long side vertical."""
    if image.ndim == 2:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    elif image.shape[2] == 4:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR), np.uint8)
    if image.shape[1] > image.shape[0]:
        image = np.asarray(cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), np.uint8)
    return image
