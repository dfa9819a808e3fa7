"""Synthetic crops for training and enrolment tests.

:func:`synthetic_crop` imitates the scanner's crop (vision/crops.py) from a face image: the tile
body and bevel, a little felt at the border (localisation is never exact), the camera's low
resolution, blur, noise, colour cast, JPEG, and the tile turned either way up.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.crops import CROP_H, CROP_W
from vision.image import Image


def synthetic_crop(
    face: Image,
    rng: np.random.Generator,
    strength: float = 1.0,
    camera_width: int | None = None,
    native: bool = False,
) -> Image:
    """One camera-like crop of a tile showing ``face``; ``strength`` scales the damage;
    ``camera_width``: the tile's width in the camera's pixels (drawn from 18-43 when not given,
    and the input's own width at strength 0); ``native``: the crop left at that width, not
    brought to the recogniser's input size (the same draws either way)."""
    big_w, big_h = CROP_W * 2, CROP_H * 2
    felt = rng.integers(20, 200, size=3).astype(np.float32)
    canvas = np.empty((big_h, big_w, 3), np.float32)
    canvas[:] = felt
    # The tile fills the crop up to a few pixels of localisation error on each side.
    err = 0.06 * strength
    x0 = big_w * rng.uniform(-err, err)
    y0 = big_h * rng.uniform(-err, err)
    x1 = big_w * (1 + rng.uniform(-err, err))
    y1 = big_h * (1 + rng.uniform(-err, err))
    size = (max(4, round(x1 - x0)), max(4, round(y1 - y0)))
    tile = _tile_top(face, size, rng)
    th, tw = tile.shape[:2]
    ox, oy = round(x0), round(y0)
    sx0, sy0 = max(0, -ox), max(0, -oy)
    dx0, dy0 = max(0, ox), max(0, oy)
    w = min(tw - sx0, big_w - dx0)
    h = min(th - sy0, big_h - dy0)
    patch = tile[sy0 : sy0 + h, sx0 : sx0 + w]
    region = canvas[dy0 : dy0 + h, dx0 : dx0 + w]
    canvas[dy0 : dy0 + h, dx0 : dx0 + w] = np.where(np.isnan(patch), region, patch)
    # Small perspective and rotation left over after rectification.
    j = 4.0 * strength
    src = np.array([[0, 0], [big_w, 0], [big_w, big_h], [0, big_h]], np.float32)
    dst = src + rng.uniform(-j, j, size=(4, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    canvas = np.asarray(
        cv2.warpPerspective(canvas, m, (big_w, big_h), borderMode=cv2.BORDER_REPLICATE), np.float32
    )
    # Light: gain, colour cast, a gradient across the tile, maybe a glare spot.
    canvas *= rng.uniform(1 - 0.35 * strength, 1 + 0.2 * strength)
    canvas *= (1 + rng.normal(0, 0.06 * strength, size=3)).astype(np.float32)
    gx = np.linspace(-1, 1, big_w, dtype=np.float32)[None, :] * rng.uniform(-0.2, 0.2) * strength
    gy = np.linspace(-1, 1, big_h, dtype=np.float32)[:, None] * rng.uniform(-0.2, 0.2) * strength
    canvas *= (1 + gx + gy)[:, :, None]
    if rng.random() < 0.2 * strength:
        cx, cy = rng.uniform(0, big_w), rng.uniform(0, big_h)
        spot = np.exp(
            -((xx_grid(big_w, big_h)[0] - cx) ** 2 + (xx_grid(big_w, big_h)[1] - cy) ** 2)
            / (2 * (big_w * 0.25) ** 2)
        )
        canvas += (spot * rng.uniform(30, 90))[:, :, None]
    # The camera sees a tile at 20-40 pixels wide: lose the detail, then scale to the input.
    camera_w = camera_width or (int(rng.integers(18, 44)) if strength > 0 else CROP_W)
    camera_h = round(camera_w * CROP_H / CROP_W)
    small = cv2.resize(canvas, (camera_w, camera_h), interpolation=cv2.INTER_AREA)
    small = np.asarray(small, np.float32)
    sigma = rng.uniform(0, 0.8 * strength)
    if sigma > 0.1:
        small = np.asarray(cv2.GaussianBlur(small, (0, 0), sigma), np.float32)
    small += rng.normal(0, rng.uniform(0, 6 * strength), size=small.shape).astype(np.float32)
    small8 = np.clip(small, 0, 255).astype(np.uint8)
    if strength > 0:
        ok, enc = cv2.imencode(
            ".jpg", small8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))]
        )
        if ok:
            small8 = np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR), np.uint8)
    # ``native``: the crop at the camera's own pixels, as a photo or a close tile gives it.
    crop: Image = small8
    if not native:
        crop = np.asarray(
            cv2.resize(small8, (CROP_W, CROP_H), interpolation=cv2.INTER_LINEAR), np.uint8
        )
    if rng.random() < 0.5:
        crop = np.asarray(cv2.rotate(crop, cv2.ROTATE_180), np.uint8)
    return np.asarray(crop, np.uint8)


def recolour(crop: Image, rng: np.random.Generator) -> Image:
    """Sometimes the channels swapped or the colour dropped, for training: colour is the
    least reliable cue between sets (jade, blue or black inks; a number printed in any ink),
    so the shapes must carry the kind."""
    roll = rng.random()
    if roll < 0.2:
        return np.ascontiguousarray(crop[:, :, rng.permutation(3)])
    if roll < 0.3:
        grey = crop.mean(axis=2, keepdims=True)
        return np.repeat(grey, 3, axis=2).astype(crop.dtype)
    return crop


def _tile_top(face: Image, size: tuple[int, int], rng: np.random.Generator) -> NDArray[np.float32]:
    """The top of a tile at ``size``: the engraved face inset in the body (by a margin that
    varies from set to set), a darker rounded rim, and the cloth in the rounded corners."""
    tw, th = size
    body = np.median(np.concatenate([face[:3].reshape(-1, 3), face[-3:].reshape(-1, 3)]), axis=0)
    tile = np.empty((th, tw, 3), np.float32)
    tile[:] = body
    margin = rng.uniform(0.0, 0.14) if rng.random() < 0.8 else 0.0
    mx, my = round(tw * margin), round(th * margin * 0.75)
    inner = cv2.resize(
        face, (max(2, tw - 2 * mx), max(2, th - 2 * my)), interpolation=cv2.INTER_AREA
    )
    tile[my : my + inner.shape[0], mx : mx + inner.shape[1]] = inner
    rim = max(2, round(min(th, tw) * rng.uniform(0.03, 0.08)))
    yy, xx = np.mgrid[0:th, 0:tw]
    edge = np.minimum(np.minimum(xx, tw - 1 - xx), np.minimum(yy, th - 1 - yy)).astype(np.float32)
    tile *= (np.clip(edge / rim, 0, 1) * 0.4 + 0.6)[:, :, None]
    # Rounded corners: NaN marks where the cloth shows through.
    r = min(th, tw) * rng.uniform(0.05, 0.16)
    cx = np.minimum(xx, tw - 1 - xx)
    cy = np.minimum(yy, th - 1 - yy)
    outside = (cx < r) & (cy < r) & ((r - cx) ** 2 + (r - cy) ** 2 > r * r)
    tile[outside] = np.nan
    return tile


_GRIDS: dict[tuple[int, int], tuple[NDArray[np.float32], NDArray[np.float32]]] = {}


def xx_grid(w: int, h: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    if (w, h) not in _GRIDS:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        _GRIDS[(w, h)] = (xx, yy)
    return _GRIDS[(w, h)]
