"""Counting the pips of a die seen from above.

The die is cut out of the camera frame around its centre (through the calibration, so it
has a known size), and pips are what is dark or red on the white body (Chinese dice paint
the 1 and the 4 red, and the 1 is a large pip). Pips that blur into one another are counted
by area.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.image import Image
from vision.stats import percentile

CROP = 48  # pixels across the die's face


def die_crop(
    frame: Image, calibration: Calibration, x: float, y: float, angle: float = 0.0
) -> Image:
    """The die's top face, cut square to its sides (``angle``: its turn in degrees, the
    finder measures it) so that the pips sit on a known grid."""
    half = calibration.geometry.die_mm / 2
    t = np.deg2rad(angle)
    u = np.array([np.cos(t), np.sin(t)]) * half
    v = np.array([-np.sin(t), np.cos(t)]) * half
    c = np.array([x, y])
    corners = np.array([c - u - v, c + u - v, c + u + v, c - u + v])
    src = calibration.to_frame(corners).astype(np.float32)
    dst = np.array([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return np.asarray(
        cv2.warpPerspective(
            frame, m, (CROP, CROP), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE
        ),
        np.uint8,
    )


def count_pips(crop: Image) -> tuple[int | None, float]:
    """(pips, confidence) of a crop from :func:`die_crop`; ``None`` when it does not look like
    a die's face."""
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    v = hsv[:, :, 2].astype(np.float32)
    s = hsv[:, :, 1].astype(np.float32)
    # The face inside the rounded, shaded rim.
    margin = CROP // 8
    face = np.zeros(crop.shape[:2], np.uint8)
    face[margin:-margin, margin:-margin] = 1
    # numpy's percentiles by vision/stats.py: the same numbers in under a third of the time.
    inner = v[margin:-margin, margin:-margin].reshape(-1)
    body = float(percentile(inner, 85))
    if body < 60 or float(percentile(s[margin:-margin, margin:-margin].reshape(-1), 50)) > 80:
        return None, 0.0  # not a white die
    # How much each pixel looks like paint: dark against the body, or saturated (red pips).
    paint = np.maximum(1.0 - v / max(body, 1.0), s / 170.0)
    paint = cv2.GaussianBlur(paint.astype(np.float32), (0, 0), 1.8)
    paint[face == 0] = 0
    # One peak per pip: local maxima at least most of a pip spacing apart.
    spacing = max(3, round(CROP * 0.27 * 0.7))  # pips are 0.27 of the side apart
    peaks = paint == cv2.dilate(paint, np.ones((2 * spacing + 1, 2 * spacing + 1), np.float32))
    peaks &= paint > 0.3
    peaks &= paint > 0.5 * float(paint.max())  # pips are alike; shading on the rim is weaker
    ys, xs = np.nonzero(peaks)
    # The 1 is one large pip in the middle: one blob far bigger than an ordinary pip.
    blobs = (paint > 0.5 * float(paint.max())).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    centre_blob = labels[CROP // 2, CROP // 2]
    if centre_blob and stats[centre_blob, cv2.CC_STAT_AREA] > np.pi * (0.13 * CROP) ** 2:
        return 1, 0.9
    pips = len(ys)
    if pips == 0:
        return None, 0.0
    strength = paint[ys, xs]
    if not 1 <= pips <= 6:
        return None, 0.0
    # A clean count: every pip about as strong as the others.
    spread = float(strength.min() / strength.max())
    confidence = 0.95 if spread > 0.5 else 0.7
    return pips, confidence
