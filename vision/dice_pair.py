"""Two dice that touch: one blob on the cloth, separated into two squares of the die's size.

Dice thrown into the tray often come to rest against each other (or so close that their
shadows join them); the cloth mask then holds one blob about twice a die's area. The die's
side is known from the calibration, so the blob is explained by two squares of exactly that
side: a first guess from the blob's two halves (k-means on its pixels) and the directions of
each half's outline edges, then each square's centre and turn moved in shrinking steps while
that covers the blob better (intersection over union of the two squares with the blob).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.stats import median, percentile

# A blob is tried as two dice only within these multiples of one die's area: two dice cover
# 2x less what their rounded corners leave out, plus their shadow where it joins them.
PAIR_AREA = (1.45, 2.8)
BODIES_AREA = 2.2  # two dice's bodies, shadow left out, cover at most this many dice
# How well the two squares must cover the blob to be believed (rounded corners alone cost
# a few percent).
MIN_FIT = 0.8
SIZE_TOLERANCE = 0.25  # a single die's body: each side within a quarter of the die's side
_STEPS = ((2.0, 8.0), (1.0, 4.0), (0.5, 2.0), (0.25, 1.0))  # (px, degrees) per round
_SUPERSAMPLE = 4  # squares drawn at a quarter pixel, so that fine steps change the score


@dataclass(frozen=True)
class Square:
    x: float  # centre, in the blob's image pixels
    y: float
    angle: float  # degrees in [0, 90): the direction of one side from the x axis


def _edge_angle(points: NDArray[np.float32]) -> float:
    """The direction the outline's straight edges run in, modulo 90 degrees (a square's
    sides), weighted by their length."""
    if len(points) < 3:
        return 0.0
    poly = cv2.approxPolyDP(points.reshape(-1, 1, 2), 1.0, False).reshape(-1, 2)
    seg = np.diff(poly, axis=0).astype(np.float64)
    weight = np.hypot(seg[:, 0], seg[:, 1])
    theta4 = 4 * np.arctan2(seg[:, 1], seg[:, 0])
    mean = np.arctan2((weight * np.sin(theta4)).sum(), (weight * np.cos(theta4)).sum()) / 4
    return float(np.degrees(mean)) % 90.0


class _Scorer:
    """Intersection over union of two squares with the blob, on a finer grid."""

    def __init__(self, pixels: NDArray[np.uint8], side: float) -> None:
        k = _SUPERSAMPLE
        h, w = pixels.shape
        self.blob = cv2.resize(pixels, (w * k, h * k), interpolation=cv2.INTER_NEAREST) > 0
        self.blob_area = int(self.blob.sum())
        self.side = side
        self.canvas = np.zeros(self.blob.shape, np.uint8)

    def __call__(self, squares: tuple[Square, Square]) -> float:
        k = _SUPERSAMPLE
        self.canvas[:] = 0
        for sq in squares:
            # Pixel centres sit at +0.5: a square centred on (x, y) covers x - side/2 ... .
            centre = ((sq.x + 0.5) * k - 0.5, (sq.y + 0.5) * k - 0.5)
            corners = cv2.boxPoints((centre, (self.side * k, self.side * k), sq.angle))
            cv2.fillConvexPoly(self.canvas, np.round(corners * 16).astype(np.int32), 1, 8, 4)
        drawn = self.canvas > 0
        inter = int(np.count_nonzero(drawn & self.blob))
        union = self.blob_area + int(np.count_nonzero(drawn)) - inter
        return inter / union if union else 0.0


def die_bodies(pixels: NDArray[np.uint8], grey: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The blob less its shadow: the pixels of ``pixels`` brighter than a third of the way
    from the cloth (around the blob) to the dice's white, with their pips filled in."""
    inside = grey[pixels > 0]
    around = grey[pixels == 0]
    if not len(inside) or not len(around):
        return pixels
    cloth = median(around.astype(np.float64))
    white = float(percentile(inside, 90))
    bright = ((grey > cloth + (white - cloth) / 3) & (pixels > 0)).astype(np.uint8)
    outlines, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(bright)
    cv2.drawContours(filled, outlines, -1, 1, -1)
    return filled


def single_die(pixels: NDArray[np.uint8], grey: NDArray[np.uint8], side: float) -> Square | None:
    """One die in the blob: its body (shadow left out) a square of about ``side`` pixels,
    centred on the body, turned as its straight edges run; ``None`` if it is not."""
    body = die_bodies(pixels, grey)
    outlines, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not outlines:
        return None
    outline = max(outlines, key=cv2.contourArea).reshape(-1, 2).astype(np.float32)
    (cx, cy), (w, h), _ = cv2.minAreaRect(outline)
    if abs(w - side) >= SIZE_TOLERANCE * side or abs(h - side) >= SIZE_TOLERANCE * side:
        return None
    return Square(float(cx), float(cy), _edge_angle(np.concatenate([outline, outline[:1]])))


def split_pair(
    pixels: NDArray[np.uint8], side: float, grey: NDArray[np.uint8] | None = None
) -> tuple[Square, Square, float] | None:
    """Two squares of ``side`` pixels that explain the blob ``pixels`` (1 inside; ``grey``:
    the image under it, with a margin of cloth, to leave the shadow out), and how well
    (intersection over union); ``None`` when the blob is not two dice's size or the best two
    squares do not cover it well."""
    area = int(np.count_nonzero(pixels))
    if not PAIR_AREA[0] * side**2 <= area <= PAIR_AREA[1] * side**2:
        return None
    if grey is not None:
        # Without the shadow, two dice cover at most twice a die (a tile, which the blob's
        # area alone does not rule out, covers 2.6 times a die of 16 mm).
        pixels = die_bodies(pixels, grey)
        area = int(np.count_nonzero(pixels))
        if not PAIR_AREA[0] * side**2 <= area <= BODIES_AREA * side**2:
            return None
    if not PAIR_AREA[0] * side**2 <= area <= PAIR_AREA[1] * side**2:
        return None
    ys, xs = np.nonzero(pixels)
    coords = np.stack([xs, ys], axis=1).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    cv2.setRNGSeed(0)  # k-means' first centres: the same answer for the same blob
    _, labels, centres = cv2.kmeans(coords, 2, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    # Each half's own stretch of the outline gives its die's turn.
    outlines, _ = cv2.findContours(pixels, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(outlines, key=len).reshape(-1, 2).astype(np.float32)
    nearest = np.linalg.norm(outline[:, None, :] - centres[None, :, :], axis=2).argmin(axis=1)
    guess = []
    for i in range(2):
        mine = outline[nearest == i]
        half = coords[labels == i]
        cx, cy = half.mean(axis=0) if len(half) else centres[i]
        guess.append(Square(float(cx), float(cy), _edge_angle(mine)))
    score = _Scorer(pixels, side)
    best = (guess[0], guess[1])
    best_fit = score(best)
    for step_px, step_deg in _STEPS:
        improved = True
        while improved:
            improved = False
            for i in range(2):
                for dx, dy, da in (
                    (step_px, 0, 0),
                    (-step_px, 0, 0),
                    (0, step_px, 0),
                    (0, -step_px, 0),
                    (0, 0, step_deg),
                    (0, 0, -step_deg),
                ):
                    sq = best[i]
                    moved = Square(sq.x + dx, sq.y + dy, (sq.angle + da) % 90.0)
                    trial = (moved, best[1]) if i == 0 else (best[0], moved)
                    fit = score(trial)
                    if fit > best_fit + 1e-9:
                        best, best_fit, improved = trial, fit, True
    a, b = best
    if best_fit < MIN_FIT or np.hypot(a.x - b.x, a.y - b.y) < 0.8 * side:
        return None
    return a, b, best_fit
