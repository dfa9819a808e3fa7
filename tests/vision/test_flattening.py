"""The table flattened through maps made once per calibration (OpenCV's fixed-point remap)
against ``cv2.warpPerspective`` with exact bilinear weights: within three levels (nearly all within one), and a
part of the table exactly that part of the whole."""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import calibrate
from vision.finder import flattening_maps, rectify
from vision.finder.topdown import rectify_exactly

from .conftest import jade_table, rendered_table


def test_the_flattened_table_is_within_two_levels_of_the_exact_warp() -> None:
    for table in (rendered_table(71, "kde-traditional"), jade_table()):
        cal = calibrate(table.image, table.geometry)
        fast = rectify(table.image, cal).astype(int)
        exact = rectify_exactly(table.image, cal).astype(int)
        off = np.abs(fast - exact)
        assert off.max() <= 3  # at a sharp edge, a 1/64-pixel shift
        assert (off > 0).mean() < 0.08  # 1/32-pixel weights: about 5 % of values by one
        assert (off > 1).mean() < 1e-3


def test_a_part_of_the_table_is_that_part_of_the_whole() -> None:
    table = rendered_table(72, "xmj-real")
    cal = calibrate(table.image, table.geometry)
    whole = rectify(table.image, cal)
    for x0, y0, x1, y1 in ((0, 0, 900, 900), (200, 150, 520, 400), (0, 880, 37, 900)):
        assert np.array_equal(rectify(table.image, cal, (x0, y0, x1, y1)), whole[y0:y1, x0:x1])


def test_the_maps_are_opencvs_own_rounding_of_the_exact_places() -> None:
    table = rendered_table(73, "gnome-smooth")
    cal = calibrate(table.image, table.geometry)
    places, fractions = flattening_maps(cal)
    assert flattening_maps(cal)[0] is places  # made once per calibration
    along = np.arange(900, dtype=np.float64)
    xs, ys = np.meshgrid(along, along)
    p = np.stack([xs, ys, np.ones_like(xs)], -1) @ cal.homography.T
    map_x = (p[..., 0] / p[..., 2]).astype(np.float32)
    map_y = (p[..., 1] / p[..., 2]).astype(np.float32)
    theirs, their_fractions = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
    # convertMaps rounds single-precision places: a place on a 1/64 boundary may round the
    # other way, never further.
    assert (theirs != places).any(axis=-1).mean() < 1e-3
    assert (their_fractions != fractions).mean() < 1e-2
    sub_x = places[..., 0] + (fractions & 31) / 32 - map_x
    sub_y = places[..., 1] + (fractions >> 5) / 32 - map_y
    assert np.abs(sub_x).max() <= 1 / 64 + 1e-4
    assert np.abs(sub_y).max() <= 1 / 64 + 1e-4
