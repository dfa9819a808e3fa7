"""A blob's outline: the direction its rows run in, and its rectangle turned that way."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import TableGeometry

from .found import PX_PER_MM, Rect
from .sizes import one_row_mm


def every_pixel(points: NDArray[np.float32]) -> NDArray[np.float32]:
    """A closed outline compressed to the ends of its straight runs, with every pixel on it
    again (the runs are horizontal, vertical or diagonal: whole steps in both coordinates)."""
    following = np.roll(points, -1, axis=0)
    steps = np.maximum(np.abs(following - points).max(axis=1), 1).astype(np.int64)
    run = np.repeat(np.arange(len(points)), steps)
    # How far along its run each pixel lies, 0 at the run's start.
    along = np.arange(int(steps.sum())) - np.repeat(np.cumsum(steps) - steps, steps)
    share = (along / steps[run]).astype(np.float32)[:, None]
    return np.asarray(np.rint(points[run] + (following[run] - points[run]) * share), np.float32)


def _edge_direction(points: NDArray[np.float32]) -> float:
    """The direction, in degrees, the straight edges of an outline run in (folded to a
    quarter turn: a row's long and short sides count alike)."""
    outline = cv2.approxPolyDP(points.reshape(-1, 1, 2), 1.5 * PX_PER_MM, True).reshape(-1, 2)
    seg = np.concatenate([outline[1:], outline[:1]]) - outline  # each edge, wrapping
    weight = np.hypot(seg[:, 0], seg[:, 1])
    theta4 = 4 * np.arctan2(seg[:, 1], seg[:, 0])
    mean4 = np.arctan2((weight * np.sin(theta4)).sum(), (weight * np.cos(theta4)).sum())
    return float(np.degrees(mean4) / 4)


# A long blob of one row is turned to its smallest-area rectangle when that lies this near
# its edges' direction. Tiles touching on a rack strip near their colour leave ragged edges
# whose pieces skew the direction a degree or two; across a row of 14 that is 5-8 mm more
# depth, past what one row may measure (on 80 rendered hands laid out, 28 whole rows were
# taken for obstructions; none with this).
_TRUE_WITHIN_DEG = 5.0


def row_direction(points: NDArray[np.float32], least: Rect, g: TableGeometry) -> float:
    """The direction of a blob's rows, in degrees: its edges' (:func:`_edge_direction`),
    or, for a long blob of one row, its smallest-area rectangle's (``least``) when that is
    near it. (Short blobs are left to their edges: a 2x2 block and hands took wrong turns.)"""
    edges = _edge_direction(points)
    (_, _), (w, h), degrees = least
    off = (edges - degrees) % 90
    one_long_row = (
        max(w, h) >= 2 * g.tile_h_mm * PX_PER_MM and min(w, h) <= one_row_mm(g) * PX_PER_MM
    )
    return float(degrees) if one_long_row and min(off, 90 - off) < _TRUE_WITHIN_DEG else edges


def grid_rect(points: NDArray[np.float32], degrees: float) -> Rect:
    """The blob's bounding rectangle turned to ``degrees`` (the direction of its rows).

    Tiles lie in rows, so the outline's straight edges run in two perpendicular directions;
    the smallest-area rectangle of an L-shaped blob (a short row beside a long one) can be
    turned 45 degrees wrong, the edge directions are not."""
    theta = np.radians(degrees)
    u = np.array([np.cos(theta), np.sin(theta)], np.float32)
    v = np.array([-np.sin(theta), np.cos(theta)], np.float32)
    pu, pv = points @ u, points @ v
    u0, u1, v0, v1 = pu.min(), pu.max(), pv.min(), pv.max()
    centre = u * ((u0 + u1) / 2) + v * ((v0 + v1) / 2)
    return (
        (float(centre[0]), float(centre[1])),
        (float(u1 - u0) + 1, float(v1 - v0) + 1),
        float(np.degrees(theta)),
    )


def blob_rects(
    outlines: list[NDArray[np.float32]], leasts: list[Rect], g: TableGeometry
) -> list[Rect]:
    """:func:`grid_rect` of each blob turned to :func:`row_direction`, every blob at once
    (its outline's points, its smallest-area rectangle): the edges' directions summed per
    blob, the points' extents along and across taken per blob, over all blobs' arrays."""
    if not outlines:
        return []
    polys = [
        cv2.approxPolyDP(p.reshape(-1, 1, 2), 1.5 * PX_PER_MM, True).reshape(-1, 2)
        for p in outlines
    ]
    # In single precision, as the outline's points are (and the blob-by-blob sums were).
    corners = np.concatenate(polys).astype(np.float32)
    starts = np.cumsum([0] + [len(q) for q in polys[:-1]])
    following = np.arange(1, len(corners) + 1)
    following[np.append(starts[1:], len(corners)) - 1] = starts  # each outline wraps
    seg = corners[following] - corners
    weight = np.hypot(seg[:, 0], seg[:, 1])
    theta4 = 4 * np.arctan2(seg[:, 1], seg[:, 0])
    sin4 = np.add.reduceat(weight * np.sin(theta4), starts)
    cos4 = np.add.reduceat(weight * np.cos(theta4), starts)
    edges = np.degrees(np.arctan2(sin4, cos4)).astype(np.float64) / 4
    sides = np.array([least[1] for least in leasts], np.float64)
    least_deg = np.array([least[2] for least in leasts], np.float64)
    off = (edges - least_deg) % 90
    one_long_row = (sides.max(axis=1) >= 2 * g.tile_h_mm * PX_PER_MM) & (
        sides.min(axis=1) <= one_row_mm(g) * PX_PER_MM
    )
    near = np.minimum(off, 90 - off) < _TRUE_WITHIN_DEG
    degrees = np.where(one_long_row & near, least_deg, edges)
    # Each blob's points along and across its rows.
    points = np.concatenate(outlines).astype(np.float32)
    first = np.cumsum([0] + [len(p) for p in outlines[:-1]])
    owner = np.repeat(np.arange(len(outlines)), [len(p) for p in outlines])
    theta = np.radians(degrees)
    u = np.stack([np.cos(theta), np.sin(theta)], axis=1).astype(np.float32)
    v = np.stack([-np.sin(theta), np.cos(theta)], axis=1).astype(np.float32)
    pu = points[:, 0] * u[owner, 0] + points[:, 1] * u[owner, 1]
    pv = points[:, 0] * v[owner, 0] + points[:, 1] * v[owner, 1]
    u0, u1 = np.minimum.reduceat(pu, first), np.maximum.reduceat(pu, first)
    v0, v1 = np.minimum.reduceat(pv, first), np.maximum.reduceat(pv, first)
    centre = u * ((u0 + u1) / 2)[:, None] + v * ((v0 + v1) / 2)[:, None]
    columns = (centre[:, 0], centre[:, 1], u1 - u0, v1 - v0, np.degrees(theta))
    return [
        ((x, y), (a + 1, b + 1), d)
        for x, y, a, b, d in zip(*(c.tolist() for c in columns), strict=True)
    ]
