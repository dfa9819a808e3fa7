"""Where the printed corner markers lie in the top-down image (they are not tiles)."""

from __future__ import annotations

import numpy as np

from vision.geometry import TableGeometry

from .found import PX_PER_MM, Box


def marker_boxes(g: TableGeometry, origin: tuple[int, int] = (0, 0)) -> list[Box]:
    """Where the printed markers lie in the top-down image whose first pixel is ``origin``
    of the whole (10 mm around each; the ends may lie outside the image)."""
    boxes = []
    for corners in g.marker_corners().values():
        pts = (np.array(corners) * PX_PER_MM).astype(np.int32) - np.array(origin)
        x0, y0 = pts.min(axis=0) - round(10 * PX_PER_MM)
        x1, y1 = pts.max(axis=0) + round(10 * PX_PER_MM)
        boxes.append((int(x0), int(y0), int(x1), int(y1)))
    return boxes
