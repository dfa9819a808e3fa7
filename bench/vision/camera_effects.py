"""Camera effects for training the embedding beyond those of vision.synth.crops.

``synthetic_crop`` (which the benchmarks use too, so it stays as it is) makes the crop; these
add, on a share of training crops, what real tables show that it does not: a hand's or a
neighbouring tile's shadow, motion and defocus blur, the table camera's smallest tiles (14-18
px wide), warm and cool light, washed-out or harsh contrast, and the edge of the next tile
where localisation cut into it.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.image import Image


def camera_extra(crop: Image, rng: np.random.Generator) -> Image:
    """``crop`` (BGR uint8, the network's input size) with some of the effects above."""
    out = crop.astype(np.float32)
    h, w = out.shape[:2]
    if rng.random() < 0.2:  # a shadow across part of the tile
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)
        side = np.cos(a) * (xx - w / 2) + np.sin(a) * (yy - h / 2) > rng.uniform(-0.3, 0.4) * w
        soft = cv2.GaussianBlur(side.astype(np.float32), (0, 0), rng.uniform(1, 4))
        out *= (1 - soft * rng.uniform(0.2, 0.5))[:, :, None]
    if rng.random() < 0.15:  # the smallest tiles the camera sees
        small_w = int(rng.integers(14, 19))
        small = cv2.resize(out, (small_w, round(small_w * h / w)), interpolation=cv2.INTER_AREA)
        out = np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    if rng.random() < 0.15:  # motion blur along a random direction
        length = int(rng.integers(3, 6))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1 / length
        turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, turn, (length, length))
        out = np.asarray(cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6)), np.float32)
    if rng.random() < 0.3:  # warm or cool light
        out *= np.array([1 + rng.uniform(-0.15, 0.15), 1.0, 1 + rng.uniform(-0.15, 0.15)])
    if rng.random() < 0.3:  # contrast and gamma
        mean = out.mean()
        out = (out - mean) * rng.uniform(0.6, 1.3) + mean
        out = 255 * (np.clip(out, 0, 255) / 255) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.1:  # the next tile's edge, where the crop cut into it
        band = int(rng.integers(1, 5))
        colour = rng.integers(120, 255, size=3)
        if rng.random() < 0.5:
            out[:, :band] = colour
        else:
            out[:band] = colour
    return np.clip(out, 0, 255).astype(np.uint8)
