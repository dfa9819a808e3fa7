"""The mask's blobs: each one's outline, box and pixels, in connected-component labelling
order.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image import Image

from .found import Box

# A blob: its outline, its bounding box (x, y, w, h) and its pixels within that box.
Blob = tuple[NDArray[np.int32], tuple[int, int, int, int], NDArray[np.uint8]]


def blobs_of(
    mask: NDArray[np.uint8],
    min_area: float,
    outlines: Sequence[NDArray[np.int32]] | None = None,
) -> list[Blob]:
    """The mask's 8-connected blobs in the order connected-component labelling numbers
    them: each blob's outline, bounding box and pixels within that box (1 where the blob
    is). Blobs whose box is smaller than ``min_area`` are left out. ``outlines``: the
    mask's outer outlines, where known (:func:`cleared_outlines`).

    Outlines rather than labelling: every blob has one outer outline, which starts at its
    first pixel; the outline filled, less any hole in the mask, is the blob (the tests check
    both against the labelling), at a fraction of a labelling's cost."""
    if outlines is None:
        found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        outlines = [np.asarray(outline, np.int32) for outline in found]
    blobs: list[Blob] = []
    for outline in outlines:
        x, y, w, h = cv2.boundingRect(outline)
        if w * h < min_area:
            continue
        pixels = np.zeros((h, w), np.uint8)
        cv2.drawContours(pixels, [outline], -1, 1, -1, offset=(-x, -y))
        # Less any hole: 1 only where the mask is set (the smaller of 1 and the mask's value).
        cv2.min(pixels, mask[y : y + h, x : x + w], dst=pixels)
        blobs.append((outline, (x, y, w, h), pixels))
    blobs.sort(key=_label_order)
    return blobs


def cleared_outlines(
    outlines: Sequence[NDArray[np.int32]], mask: NDArray[np.uint8], boxes: list[Box]
) -> list[NDArray[np.int32]]:
    """The outer outlines of ``mask`` with ``boxes`` cleared in it (set to 0 since), from
    its outer outlines before (``outlines``), as ``cv2.findContours`` would give them: a
    blob whose bounding box meets no cleared box is as it was; what is left of any other is
    outlined again, alone (a blob's outline depends on its own pixels only), at the cost of
    its box rather than of the whole mask."""
    rows, cols = mask.shape
    cleared = [(max(0, x0), max(0, y0), min(cols, x1), min(rows, y1)) for x0, y0, x1, y1 in boxes]
    kept: list[NDArray[np.int32]] = []
    for outline in outlines:
        x, y, w, h = cv2.boundingRect(outline)
        if not any(x0 < x + w and x < x1 and y0 < y + h and y < y1 for x0, y0, x1, y1 in cleared):
            kept.append(outline)
            continue
        # The blob's pixels left (its outline filled, less the mask's zeros), with a pixel of
        # nothing round them.
        pixels = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(pixels, [outline], -1, 255, -1, offset=(1 - x, 1 - y))
        inner = pixels[1:-1, 1:-1]
        np.minimum(inner, mask[y : y + h, x : x + w], out=inner)
        parts, _ = cv2.findContours(
            pixels, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x - 1, y - 1)
        )
        kept += [np.asarray(part, np.int32) for part in parts]
    return kept


def _label_order(blob: Blob) -> tuple[int, int]:
    """Where a blob comes in connected-component labelling, which scans 2x2 blocks row pair
    by row pair: its first block in that order."""
    _, (x, y, _, _), pixels = blob
    first_pair = pixels[: 2 - y % 2].any(axis=0)  # its pixels in the topmost row pair
    return y // 2, (x + int(np.argmax(first_pair))) // 2


def meets(pixels: NDArray[np.uint8], x: int, y: int, core: Box) -> bool:
    """Whether a blob (its pixels from (x, y)) has a pixel in ``core``."""
    h, w = pixels.shape
    c0, r0 = max(core[0] - x, 0), max(core[1] - y, 0)
    c1, r1 = min(core[2] - x, w), min(core[3] - y, h)
    return c0 < c1 and r0 < r1 and bool(pixels[r0:r1, c0:c1].any())


def with_margin(
    pixels: NDArray[np.uint8], grey: Image, x: int, y: int, margin: int = 3
) -> tuple[NDArray[np.uint8], NDArray[np.uint8], tuple[int, int]]:
    """A blob's pixels and the grey image under them, with a margin of what is around, and
    where that box starts."""
    h, w = pixels.shape
    x0, y0 = max(0, x - margin), max(0, y - margin)
    x1, y1 = min(grey.shape[1], x + w + margin), min(grey.shape[0], y + h + margin)
    padded = np.zeros((y1 - y0, x1 - x0), np.uint8)
    padded[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = pixels
    return padded, np.asarray(grey[y0:y1, x0:x1], np.uint8), (x0, y0)
