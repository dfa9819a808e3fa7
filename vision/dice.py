"""Counting the pips of a die seen from above.

The die is cut out of the camera frame around its centre (through the calibration, so it
has a known size), and pips are what is dark or red on the white body (Chinese dice paint
the 1 and the 4 red, and the 1 is a large pip). Pips that blur into one another are counted
by area.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.artwork import Image
from vision.calibration import Calibration

CROP = 56  # pixels across the die's crop


def die_crop(frame: Image, calibration: Calibration, x: float, y: float) -> Image:
    side = calibration.geometry.die_mm * 1.3  # the whole die whichever way it is turned
    corners = np.array([[x - side / 2, y - side / 2], [x + side / 2, y - side / 2],
                        [x + side / 2, y + side / 2], [x - side / 2, y + side / 2]])  # fmt: skip
    src = calibration.to_frame(corners).astype(np.float32)
    dst = np.float32([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]])
    m = cv2.getPerspectiveTransform(src, dst)
    return np.asarray(cv2.warpPerspective(frame, m, (CROP, CROP), flags=cv2.INTER_CUBIC,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)  # fmt: skip


def count_pips(crop: Image) -> tuple[int | None, float]:
    """(pips, confidence); ``None`` when the crop does not look like a die's face."""
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    v = hsv[:, :, 2].astype(np.float32)
    s = hsv[:, :, 1].astype(np.float32)
    body = float(np.percentile(v, 90))
    if body < 60:
        return None, 0.0
    # The die's face: the hull of its white body (the cloth shows at its corners when turned).
    white = ((v > body * 0.75) & (s < 70)).astype(np.uint8)
    points = cv2.findNonZero(white)
    if points is None or len(points) < CROP * CROP * 0.15:
        return None, 0.0
    face = np.zeros_like(white)
    cv2.fillConvexPoly(face, cv2.convexHull(points), 1)
    face = cv2.erode(face, np.ones((3, 3), np.uint8), iterations=4)
    # Dark against the body, or saturated (red pips).
    ink = (((v < body * 0.72) | (s > 50)) & (face > 0)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in range(1, count)], np.float64)
    areas = areas[areas >= 6]
    if len(areas) == 0:
        return None, 0.0
    big_pip = CROP * CROP * 0.03  # the 1's large pip at this crop size
    if len(areas) == 1:
        return (1, 0.95) if areas[0] > big_pip else (None, 0.0)
    # Several pips: they are alike, so a blob twice the usual size is two pips run together.
    single = float(np.median(areas)) if len(areas) >= 3 else float(areas.min())
    pips = int(sum(max(1, round(a / single)) for a in areas))
    if not 1 <= pips <= 6:
        return None, 0.0
    # A clean count is when every blob is one pip's size.
    spread = float(np.abs(areas / np.median(areas) - 1).max())
    confidence = 0.95 if spread < 0.6 else 0.7
    return pips, confidence
