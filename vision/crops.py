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
    if image.ndim == 2:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    elif image.shape[2] == 4:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR), np.uint8)
    if image.shape[1] > image.shape[0]:
        image = np.asarray(cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), np.uint8)
    return np.asarray(cv2.resize(image, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA), np.uint8)
