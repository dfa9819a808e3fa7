"""The finder's whole-frame computations give what the row-by-row ones give: every row's
strip and seam profile cut at once against each row's own ``cv2.warpAffine`` and
``seam_profile``, and the row cutting DP over many runs at once against the one-end-at-a-time
reference, run by run."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.calibration import calibrate
from vision.finder import cloth_mask, cutting, rectify
from vision.finder.blobs import blobs_of, cleared_outlines
from vision.finder.found import rect_axes
from vision.finder.seams import cut_strip, seam_profile
from vision.finder.split import blob_rect, one_row_deep
from vision.finder.strips import cut_strips, runs_of, seam_profiles
from vision.stats import column_percentile, percentile
from vision.synth.render import Rendered

from .conftest import hand_laid_out, rendered_table
from .test_scan_fast_paths import reference_partition


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    runs=st.integers(1, 6),
    sideways_only=st.booleans(),
    coarse=st.booleans(),
    gap=st.sampled_from([0.0, 2.0]),
)
def test_runs_cut_at_once_are_cut_as_one_at_a_time(
    seed: int, runs: int, sideways_only: bool, coarse: bool, gap: float
) -> None:
    rng = np.random.default_rng(seed)
    profiles = [rng.random(int(rng.integers(1, 320))) for _ in range(runs)]
    covers = [rng.random(len(p)) for p in profiles]
    if coarse:  # many exact ties
        profiles = [np.round(p, 1) for p in profiles]
        covers = [np.round(c, 1) for c in covers]
    lengths = [30.0] if sideways_only else [22.0, 30.0]
    many = cutting.partition_many(profiles, lengths, 3.5, covers, 22 / 30, gap)
    for profile, cover, cut in zip(profiles, covers, many, strict=True):
        args: tuple[Any, ...] = (profile, lengths, 3.5, cover, 22 / 30, gap)
        assert cut == reference_partition(*args)


def _rows_of(table: Rendered) -> tuple[Any, Any, list[Any]]:
    """The top-down grey image, the mask, and every blob's rectangle one row deep."""
    cal = calibrate(table.image, table.geometry)
    top = rectify(table.image, cal)
    mask = cloth_mask(top)
    grey = np.asarray(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY), np.uint8)
    rects = []
    for outline, _, _ in blobs_of(mask, 200):
        points = outline.reshape(-1, 2).astype(np.float32)
        least = cv2.minAreaRect(points)
        rect = blob_rect(points, least, table.geometry)
        if one_row_deep(rect, table.geometry):
            rects.append(rect)
    return grey, mask, rects


def test_strips_cut_at_once_are_each_rows_own_strip_and_profile() -> None:
    for table in (rendered_table(731, "kde-traditional"), hand_laid_out(3001, "xmj-real", 1.5)):
        grey, mask, rects = _rows_of(table)
        assert len(rects) >= 1
        axes = [rect_axes(rect) for rect in rects]
        centre = np.array([rect[0] for rect in rects], np.float64)
        along, across = np.array([a[0] for a in axes]), np.array([a[1] for a in axes])
        length, depth = np.array([a[2] for a in axes]), np.array([a[3] for a in axes])
        strips = cut_strips(grey, mask, centre, along, across, length, depth)
        profiles = seam_profiles(strips, 95.0)
        covered = strips.line_cover() > 0.3
        begins, ends = runs_of(covered, strips)
        for s, (c, (a, b, n, d)) in enumerate(zip(centre, axes, strict=True)):
            lines = slice(strips.start[s], strips.start[s] + strips.length[s])
            one = cut_strip(grey, c, a, b, n, d)
            cover = cut_strip(mask, c, a, b, n, d) > 127
            h = one.shape[0]
            assert np.array_equal(strips.grey[lines, :h], one.T)
            assert np.array_equal(strips.cover[lines, :h], cover.T)
            assert not strips.cover[lines, h:].any()
            assert np.allclose(profiles[lines], seam_profile(one, cover, 95.0), atol=1e-12)
            # The runs of covered lines, strip by strip.
            edges = np.diff(np.concatenate([[0], cover.mean(axis=0) > 0.3, [0]]).astype(int))
            mine = (begins >= lines.start) & (begins < lines.stop)
            assert list(begins[mine] - lines.start) == list(np.flatnonzero(edges == 1))
            assert list(ends[mine] - lines.start) == list(np.flatnonzero(edges == -1))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.tuples(st.integers(1, 60), st.integers(1, 60)),
    fill=st.floats(0.1, 0.9),
    opened=st.booleans(),
    boxes=st.lists(
        st.tuples(st.integers(-8, 60), st.integers(-8, 60), st.integers(0, 25), st.integers(0, 25)),
        max_size=4,
    ),
)
def test_outlines_left_by_clearing_boxes_are_those_of_the_cleared_mask(
    seed: int,
    size: tuple[int, int],
    fill: float,
    opened: bool,
    boxes: list[tuple[int, int, int, int]],
) -> None:
    rng = np.random.default_rng(seed)
    mask = np.where(rng.random(size) < fill, 255, 0).astype(np.uint8)
    if opened:  # blobs with holes, as the cloth's mask has before it is filled
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    before, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cleared = [(x, y, x + w, y + h) for x, y, w, h in boxes]
    for x0, y0, x1, y1 in cleared:
        mask[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = 0
    after, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    left = cleared_outlines([np.asarray(o, np.int32) for o in before], mask, cleared)
    # The same outlines, point by point from the same first point (blobs_of orders them).
    assert sorted(o.tobytes() for o in left) == sorted(o.tobytes() for o in after)
    assert [b[1] for b in blobs_of(mask, 0, left)] == [b[1] for b in blobs_of(mask, 0)]


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 200), st.integers(1, 80)),
    q=st.sampled_from([0.0, 50.0, 75.0, 90.0, 95.0, 100.0]),
)
def test_column_percentiles_by_sorting_are_those_by_partitioning(
    seed: int, shape: tuple[int, int], q: float
) -> None:
    values = np.random.default_rng(seed).integers(0, 256, shape).astype(np.uint8)
    got = column_percentile(values, q)
    assert got.dtype == np.float64
    assert np.array_equal(got, percentile(values, q))
    assert np.array_equal(got, np.percentile(values, q, axis=0))
