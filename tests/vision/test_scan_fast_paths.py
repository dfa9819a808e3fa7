"""The scan's fast paths give exactly what the straightforward computations give: the row
cutting DP solved in blocks, the cloth mask looked at coarse-then-fine, blob boxes from
outlines, percentiles without numpy's overhead, the embedding under either runtime. The
references below are the plain versions the fast ones replaced."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from vision import embed_ahead, finder, stats
from vision.calibration import calibrate
from vision.crops import CROP_H, CROP_W
from vision.embedder import Embedder
from vision.finder import (
    blobs,
    cloth,
    cutting,
    find,
    finding,
    flatten_on_cloth,
    on_cloth,
    rectify,
    tile_crop,
    tile_crops,
    tile_quads,
)
from vision.finder.cloth import Outlined
from vision.finder.crops import corners_mm, corners_mm_of
from vision.finder.found import Found
from vision.finder.outline import every_pixel
from vision.finder.topdown import rectify_every_nth
from vision.geometry import TableGeometry
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.scan import Scanner
from vision.synth.render import Rendered

from .conftest import hand_laid_out, jade_table, rendered_table, scanned_tile_crops

# -- references -------------------------------------------------------------------------------


def reference_partition(
    profile: NDArray[np.float64],
    lengths: list[float],
    tol: float,
    depth_cover: NDArray[np.float64] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> cutting.Cutting | None:
    """One end at a time, one piece length at a time."""
    n = len(profile)
    best = np.full(n + 1, np.inf)
    prev = np.full(n + 1, -1, np.int64)
    cut_as = np.zeros(n + 1, np.int64)
    best[0] = 0.0
    csum = np.concatenate([[0.0], np.cumsum(depth_cover)]) if depth_cover is not None else None
    for end in range(1, n + 1):
        seam = profile[end - 1] if end < n else 0.0
        for which, length in enumerate(lengths):
            longer = gap if which == 0 else 0.0  # only the row's own tiles lie apart
            lo, hi = int(np.floor(length - tol)), int(np.ceil(length + tol + longer))
            s0, s1 = max(0, end - hi), min(end - 1, end - lo)
            if s1 < s0:
                continue
            starts = np.arange(s0, s1 + 1)
            off = (end - starts) - length
            room = np.where(off > 0, tol + longer, tol)
            cost = best[s0 : s1 + 1] + seam + np.abs(off) / (2 * room)
            if csum is not None:
                covered = (csum[end] - csum[starts]) / (end - starts)
                target = 1.0 if length == lengths[0] else shallow
                cost = cost + 3.0 * np.abs(covered - target)
            k = int(np.argmin(cost))
            if cost[k] < best[end]:
                best[end], prev[end], cut_as[end] = cost[k], starts[k], which
    if best[n] == np.inf:
        return None
    pieces, end = [], n
    while end > 0:
        pieces.append((int(prev[end]), end, int(cut_as[end])))
        end = int(prev[end])
    return cutting.Cutting(pieces[::-1], float(best[n]))


def reference_cloth_mask(
    top: NDArray[np.uint8], cloth: finder.Cloth | None = None, origin: tuple[int, int] = (0, 0)
) -> NDArray[np.uint8]:
    """Every pixel converted to Lab and measured against the cloth (given, or found from
    every 8th pixel): far from its colour, or (where the cloth hides the tiles' body colour)
    brighter than the cloth around it."""
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2LAB)
    if cloth is None:
        cloth = reference_cloth(top)
    felt = np.array(cloth.lab, np.int32)
    diff = np.abs(lab.astype(np.int32) - felt)
    dist = diff[:, :, 1] + diff[:, :, 2] + diff[:, :, 0] // 3
    marked = dist > 28
    if cloth.brighter is not None:
        (x0, y0), (h, w) = origin, top.shape[:2]
        marked |= lab[:, :, 0] > cloth.brighter[y0 : y0 + h, x0 : x0 + w]
    mask = marked.astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, -1)
    return np.asarray(mask, np.uint8)


def _outer_outlines(mask: NDArray[np.uint8]) -> list[NDArray[np.int32]]:
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [np.asarray(o, np.int32) for o in outlines]


def reference_cloth_mask_outlined(
    top: NDArray[np.uint8], cloth: finder.Cloth | None = None, origin: tuple[int, int] = (0, 0)
) -> Outlined:
    """:func:`reference_cloth_mask` and its outer outlines, found on the finished mask."""
    mask = reference_cloth_mask(top, cloth, origin)
    return Outlined(mask, _outer_outlines(mask))


def reference_cleared_outlines(
    outlines: Any, mask: NDArray[np.uint8], boxes: list[tuple[int, int, int, int]]
) -> list[NDArray[np.int32]]:
    """The outer outlines of the mask with the boxes cleared, found on the whole mask again."""
    return _outer_outlines(mask)


def reference_cloth(top: NDArray[np.uint8], geometry: TableGeometry | None = None) -> finder.Cloth:
    """The cloth from every 8th pixel in plain numpy: the median colour; each sample's
    brightness limit from the median of its 31 x 31 neighbourhood (edges repeated); brightness
    counted when under 80 % of what is far or bright is far, leaving out samples within 10 mm
    of a printed marker (with the ``geometry``)."""
    sample = cv2.cvtColor(top[::8, ::8], cv2.COLOR_BGR2LAB).astype(np.int32)
    felt = np.median(sample.reshape(-1, 3), axis=0).astype(np.uint8).astype(np.int32)
    light = sample[:, :, 0]
    padded = np.pad(light, 15, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (31, 31))
    around = np.median(windows.reshape(*light.shape, -1), axis=2)
    limit = np.minimum(np.maximum(around + 12, around * 1.2), 255).astype(np.uint8)
    diff = np.abs(sample - felt)
    far = diff[:, :, 1] + diff[:, :, 2] + diff[:, :, 0] // 3 > 28
    bright = light > limit
    if geometry is not None:
        rows, cols = np.mgrid[: light.shape[0], : light.shape[1]] * 8 / finder.PX_PER_MM
        for corners in geometry.marker_corners().values():
            (x0, y0), (x1, y1) = np.min(corners, axis=0) - 10, np.max(corners, axis=0) + 10
            near = (cols >= x0) & (cols < x1) & (rows >= y0) & (rows < y1)
            far &= ~near
            bright &= ~near
    lab = (float(felt[0]), float(felt[1]), float(felt[2]))
    if far.sum() >= 0.8 * (far | bright).sum():
        return finder.Cloth(lab)
    full = np.repeat(np.repeat(limit, 8, axis=0), 8, axis=1)[: top.shape[0], : top.shape[1]]
    return finder.Cloth(lab, full)


def reference_blobs(
    mask: NDArray[np.uint8], min_area: float
) -> list[tuple[tuple[int, int, int, int], NDArray[np.uint8]]]:
    """Connected-component labelling: each blob's box and pixels, in label order."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for i in range(1, count):
        x, y, w, h = (int(v) for v in stats[i, :4])
        if w * h >= min_area:
            out.append(((x, y, w, h), (labels[y : y + h, x : x + w] == i).astype(np.uint8)))
    return out


def assert_same_blobs(mask: NDArray[np.uint8], min_area: float) -> int:
    fast = blobs.blobs_of(mask, min_area)
    slow = reference_blobs(mask, min_area)
    assert [box for _, box, _ in fast] == [box for box, _ in slow]
    for (outline, _, pixels), (_, expect) in zip(fast, slow, strict=True):
        assert np.array_equal(pixels, expect)
        assert outline.shape[1:] == (1, 2)
    return len(fast)


# -- the row cutting DP -----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 320),
    sideways_only=st.booleans(),
    with_cover=st.booleans(),
    coarse=st.booleans(),
    gap=st.sampled_from([0.0, 2.0]),
)
def test_block_dp_cuts_rows_exactly_like_the_one_end_at_a_time_dp(
    seed: int, n: int, sideways_only: bool, with_cover: bool, coarse: bool, gap: float
) -> None:
    rng = np.random.default_rng(seed)
    profile = rng.random(n)
    cover = rng.random(n) if with_cover else None
    if coarse:  # many exact ties
        profile = np.round(profile, 1)
        cover = None if cover is None else np.round(cover, 1)
    lengths = [30.0] if sideways_only else [22.0, 30.0]
    args: tuple[Any, ...] = (profile, lengths, 3.5, cover, 22 / 30, gap)
    assert cutting.partition(*args) == reference_partition(*args)


# -- the cloth mask and its blobs -------------------------------------------------------------


@pytest.fixture(scope="module")
def jade_on_red() -> Rendered:
    """Dark red-brown jade tiles on a dark red cloth, in uneven light: their bodies are near
    the cloth's colour, only clearly brighter."""
    return jade_table()


@pytest.fixture(scope="module")
def table() -> Rendered:
    table: Rendered = rendered_table(731, "kde-traditional")
    return table


def test_coarse_then_fine_cloth_mask_is_the_full_resolution_mask(table: Rendered) -> None:
    top = rectify(table.image, calibrate(table.image, table.geometry))
    assert finder.cloth_of(top).brighter is None  # ivory tiles on green: colour suffices
    assert np.array_equal(finder.cloth_mask(top), reference_cloth_mask(top))


def test_where_the_cloth_hides_the_tiles_brightness_counts_exactly_as_defined(
    jade_on_red: Rendered,
) -> None:
    cal = calibrate(jade_on_red.image, jade_on_red.geometry)
    top = rectify(jade_on_red.image, cal)
    cloth, expected = finder.cloth_of(top), reference_cloth(top)
    assert cloth.lab == expected.lab
    assert cloth.brighter is not None and expected.brighter is not None
    assert np.array_equal(cloth.brighter, expected.brighter)
    assert np.array_equal(finder.cloth_mask(top), reference_cloth_mask(top))
    # A part of the table, measured against the whole table's cloth, is that part of it.
    # (Away from its edges, where the opening sees beyond: 5 pixels in.)
    part = finder.cloth_mask(
        rectify(jade_on_red.image, cal, (200, 150, 520, 400)), cloth, (200, 150)
    )
    whole = finder.cloth_mask(top, cloth)
    assert np.array_equal(part[5:-5, 5:-5], whole[155:395, 205:515])


def test_the_printed_markers_have_no_say_in_how_the_cloth_is_told(
    jade_on_red: Rendered, table: Rendered
) -> None:
    """On a table bare but for a jade hand laid out on a red cloth, the markers' black and
    white were most of what lay far from the cloth's colour: left out, brightness counts."""
    hand = hand_laid_out(3002, "kde-jade")  # the finder benchmark's hand 2 of that set
    for rendered, brighter in ((hand, True), (jade_on_red, True), (table, False)):
        top = rectify(rendered.image, calibrate(rendered.image, rendered.geometry))
        cloth = finder.cloth_of(top, rendered.geometry)
        expected = reference_cloth(top, rendered.geometry)
        assert (cloth.brighter is not None) == (expected.brighter is not None) == brighter
        if brighter:
            assert np.array_equal(cloth.brighter, expected.brighter)
    top = rectify(hand.image, calibrate(hand.image, hand.geometry))
    assert finder.cloth_of(top).brighter is None  # the markers counted: colour only


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    speckle=st.floats(0.0, 0.2),
    crop=st.integers(0, 40),
    lighter=st.booleans(),
)
def test_cloth_mask_is_exact_on_noisy_images_up_to_the_edges(
    seed: int, speckle: float, crop: int, lighter: bool
) -> None:
    """Random rectangles and single-pixel speckle on a plain cloth, some touching the image's
    edge (where the opening treats the outside as marked); ``lighter``: the rectangles are
    the cloth's colour made lighter (where brightness must tell them from it)."""
    rng = np.random.default_rng(seed)
    h, w = 150 - crop, 170
    top = np.empty((h, w, 3), np.uint8)
    cloth = rng.integers(20, 120, 3) if lighter else rng.integers(0, 256, 3)
    top[:] = cloth
    for _ in range(6):
        x, y = int(rng.integers(-10, w)), int(rng.integers(-10, h))
        if lighter:
            colour = tuple(int(c) for c in np.minimum(cloth * rng.uniform(1.1, 2.2), 255))
        else:
            colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        cv2.rectangle(
            top, (x, y), (x + int(rng.integers(2, 40)), y + int(rng.integers(2, 40))), colour, -1
        )
    spots = rng.random((h, w)) < speckle
    top[spots] = rng.integers(0, 256, (int(spots.sum()), 3))
    assert np.array_equal(finder.cloth_mask(top), reference_cloth_mask(top))


@pytest.mark.parametrize("felt", [(0, 0, 0), (255, 255, 255), (140, 110, 150), (61, 128, 129)])
def test_far_from_the_cloth_is_the_colour_distance_for_every_lab_value(
    felt: tuple[int, int, int],
) -> None:
    """Every lightness and every a against every 3rd b (and b's last): far exactly where
    |a - a0| + |b - b0| + |L - L0| // 3 > 28, the distance as documented."""
    light, a, b = np.meshgrid(
        np.arange(256), np.arange(256), np.r_[np.arange(0, 256, 3), 255], indexing="ij"
    )
    lab = np.stack([light, a, b], axis=-1).reshape(256, -1, 3).astype(np.uint8)
    diff = np.abs(lab.astype(np.int32) - np.array(felt, np.int32))
    expected = (diff[:, :, 1] + diff[:, :, 2] + diff[:, :, 0] // 3 > 28).astype(np.uint8) * 255
    far = cloth._far_from_cloth(lab, (*map(float, felt), 0.0))
    assert np.array_equal(far, expected)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    n=st.integers(1, 9),
    channels=st.sampled_from([0, 1, 3]),
)
def test_every_nth_pixel_is_the_strided_slice(rows: int, cols: int, n: int, channels: int) -> None:
    shape = (rows, cols) if channels == 0 else (rows, cols, channels)
    image = np.random.default_rng(rows * 97 + cols).integers(0, 256, shape, dtype=np.uint8)
    picked = cloth.every_nth(image, n)
    assert picked.flags.c_contiguous
    assert np.array_equal(picked, image[::n, ::n])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), inset=st.integers(0, 12), thickness=st.integers(1, 5))
def test_a_ring_of_marks_is_boxed_band_by_band_and_the_mask_stays_exact(
    seed: int, inset: int, thickness: int
) -> None:
    """A thin ring round the image (a table's edge seen as not cloth), with things inside it
    and speckle: the mask is the full-resolution one, from boxes a band deep, none of them
    near the whole image."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(300, 420)), int(rng.integers(300, 420))
    top = np.empty((h, w, 3), np.uint8)
    top[:] = rng.integers(0, 256, 3)
    ring = tuple(int(c) for c in rng.integers(0, 256, 3))
    cv2.rectangle(top, (inset, inset), (w - 1 - inset, h - 1 - inset), ring, thickness)
    for _ in range(8):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        size = (int(rng.integers(2, 40)), int(rng.integers(2, 40)))
        cv2.rectangle(top, (x, y), (x + size[0], y + size[1]), colour, -1)
    spots = rng.random((h, w)) < 0.002
    top[spots] = rng.integers(0, 256, (int(spots.sum()), 3))
    cloth_there = finder.cloth_of(top)
    assert np.array_equal(finder.cloth_mask(top, cloth_there), reference_cloth_mask(top))
    grid = np.ascontiguousarray(top[: h // 3 * 3 : 3, : w // 3 * 3 : 3])
    boxes = cloth.boxes_near(cloth.coarse_marks(grid, cloth_there), cloth.REACH)
    if (cloth.coarse_marks(grid, cloth_there)[1:-1, 1:-1] > 0).mean() < 0.2:
        assert max((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) < 0.5 * h * w


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_pixel_of_a_compressed_outline_is_the_full_outline(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mask = np.zeros((80, 90), np.uint8)
    for _ in range(4):
        x, y = int(rng.integers(0, 70)), int(rng.integers(0, 60))
        cv2.rectangle(
            mask, (x, y), (x + int(rng.integers(1, 30)), y + int(rng.integers(1, 30))), 255, -1
        )
        cv2.circle(
            mask,
            (int(rng.integers(10, 80)), int(rng.integers(10, 70))),
            int(rng.integers(1, 12)),
            255,
            -1,
        )
    simple, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    full, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    for compressed, every in zip(simple, full, strict=True):
        points = compressed.reshape(-1, 2).astype(np.float32)
        assert np.array_equal(every_pixel(points), every.reshape(-1, 2))


def test_every_nth_pixel_flattened_alone_is_that_of_the_whole_table(
    table: Rendered, jade_on_red: Rendered
) -> None:
    for rendered in (table, jade_on_red):
        cal = calibrate(rendered.image, rendered.geometry)
        top = rectify(rendered.image, cal)
        for n in (3, 8):
            assert np.array_equal(rectify_every_nth(rendered.image, cal, n), top[::n, ::n])
        first = rectify_every_nth(rendered.image, cal, 3, (299, 300))
        assert np.array_equal(first, top[: 299 * 3 : 3, : 300 * 3 : 3])


def _as_bytes(outlines: Any) -> list[bytes]:
    """Outlines compared point by point, in any order."""
    return sorted(np.asarray(o, np.int32).tobytes() for o in outlines)


def test_flattened_near_what_lies_on_the_cloth_gives_the_whole_tables_cloth_and_mask(
    table: Rendered, jade_on_red: Rendered
) -> None:
    """The cloth and the mask are those of the whole top-down image; the image is the whole
    one within ``MARGIN`` of every box the mask looks at in full, the cloth's colour on most
    of the rest; its grey, made box by box, is that of the image made."""
    for rendered, brighter in ((table, False), (jade_on_red, True)):
        cal = calibrate(rendered.image, rendered.geometry)
        top = rectify(rendered.image, cal)
        cloth = finder.cloth_of(top, rendered.geometry)
        flat = flatten_on_cloth(rendered.image, cal)
        assert flat.cloth.lab == cloth.lab
        assert (flat.cloth.brighter is not None) == (cloth.brighter is not None) == brighter
        if brighter:
            assert np.array_equal(flat.cloth.brighter, cloth.brighter)
        assert np.array_equal(flat.mask, finder.cloth_mask(top, cloth))
        # The outlines found in making the mask are its blobs' outer outlines, holes filled.
        assert flat.outlines is not None
        outer, _ = cv2.findContours(flat.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        assert _as_bytes(flat.outlines) == _as_bytes(outer)
        # Every pixel the mask marks, with MARGIN - 3 around it (the boxes reach 3 beyond).
        near = cv2.dilate(flat.mask, np.ones((2 * on_cloth.MARGIN - 5,) * 2, np.uint8)) > 0
        assert np.array_equal(flat.top[near], top[near])
        same = (flat.top == top).all(axis=2)
        assert 0.1 < same.mean() < 0.5  # flattened near the blobs only
        background = flat.top[~same]
        assert (background == background[0]).all()  # the cloth's colour
        assert np.array_equal(flat.grey, cv2.cvtColor(flat.top, cv2.COLOR_BGR2GRAY))


def test_blobs_from_outlines_are_the_labellings_blobs_in_its_order(table: Rendered) -> None:
    cal = calibrate(table.image, table.geometry)
    mask = finder.cloth_mask(rectify(table.image, cal))
    assert assert_same_blobs(mask, 100.0) > 20


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_blobs_are_exact_on_random_shapes_with_holes_cut(seed: int) -> None:
    """Filled polygons and speckle (as the cloth mask leaves them, holes filled), then
    rectangles cleared as the finder clears the markers, which may cut holes."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((90, 110), np.uint8)
    for _ in range(6):
        corners = rng.integers(0, 110, (int(rng.integers(3, 7)), 2)).astype(np.int32)
        cv2.fillPoly(mask, [corners], 255)
    mask[rng.random(mask.shape) < 0.03] = 255
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, outlines, -1, 255, -1)
    for _ in range(2):
        x, y = (int(v) for v in rng.integers(0, 100, 2))
        mask[y : y + int(rng.integers(2, 12)), x : x + int(rng.integers(2, 12))] = 0
    # Any value but 0 is a blob's pixel, not only 255.
    mask[mask > 0] = rng.integers(1, 256, int(np.count_nonzero(mask)))
    assert_same_blobs(mask, float(rng.integers(0, 30)))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(0, 255), min_size=1, max_size=80), narrow=st.booleans())
def test_histogram_median_is_numpys_cast_to_bytes(values: list[int], narrow: bool) -> None:
    array = np.array(values, np.uint8) // (64 if narrow else 1)  # narrow: many ties
    assert stats.median_uint8(array) == float(np.median(array).astype(np.uint8))


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(
        st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False), min_size=1, max_size=300
    )
)
def test_fast_median_is_numpys_to_the_bit(values: list[float]) -> None:
    array = np.array(values, np.float64)
    assert stats.median(array) == float(np.median(array))


def test_fast_percentile_is_numpys() -> None:
    rng = np.random.default_rng(4)
    for rows in (1, 2, 7, 18, 33):
        strip = rng.integers(0, 256, (rows, 57)).astype(np.uint8)
        expect = np.percentile(strip.astype(np.float64), 75, axis=0)
        assert np.array_equal(stats.percentile(strip, 75), expect)
        line = rng.random(rows * 3)
        assert stats.percentile(line, 90) == np.percentile(line, 90)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), share=st.floats(0.0, 1.0))
def test_masked_percentile_is_numpys_over_the_held_values(seed: int, share: float) -> None:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 256, (int(rng.integers(1, 40)), int(rng.integers(1, 30))))
    values = values.astype(np.uint8)
    held = rng.random(values.shape) < share
    got = stats.masked_percentile(values, held, 75)
    for j in range(values.shape[1]):
        column = values[held[:, j], j].astype(np.float64)
        expected = np.percentile(column, 75) if len(column) else 0.0
        assert got[j] == pytest.approx(expected, abs=1e-9)


def test_find_is_what_the_reference_computations_find(
    table: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finder as it runs (the table flattened only near what lies on the cloth, the mask
    coarse then fine, the rows cut in blocks) finds what the plain computations find on the
    whole top-down image."""
    cal = calibrate(table.image, table.geometry)
    fast = find(table.image, cal)
    monkeypatch.setattr(finding, "cloth_mask_outlined", reference_cloth_mask_outlined)
    monkeypatch.setattr(finding, "cleared_outlines", reference_cleared_outlines)
    monkeypatch.setattr(cutting, "partition_many", reference_partition_many)
    monkeypatch.setattr(cutting, "partition_laid", reference_partition_laid)
    assert fast == find(table.image, cal, rectify(table.image, cal))
    # And those are the table's tiles: each true tile found once, within 3 mm.
    truth = np.array([[t.x, t.y] for t in table.layout.tiles])
    tiles = [f for f in fast if f.kind == "tile"]
    nearest = [float(np.linalg.norm(truth - [f.x, f.y], axis=1).min()) for f in tiles]
    assert len(tiles) >= 0.95 * len(truth)
    assert float(np.median(nearest)) < 2.5


def reference_partition_many(
    profiles: list[NDArray[np.float64]],
    lengths: list[float],
    tol: float,
    depth_covers: list[NDArray[np.float64]] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> list[cutting.Cutting | None]:
    """Each run alone, by the reference: what the finder's batched cutting must equal."""
    covers = depth_covers or [None] * len(profiles)
    return [
        reference_partition(p, lengths, tol, c, shallow, gap)
        for p, c in zip(profiles, covers, strict=True)
    ]


def reference_partition_laid(
    profiles: NDArray[np.float64],
    n: NDArray[np.int64],
    lengths: list[float],
    tol: float,
    depth_covers: NDArray[np.float64] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> list[cutting.Cutting | None]:
    """The runs laid one a row, each cut alone by the reference."""
    runs = [profiles[r, : n[r]] for r in range(len(n))]
    covers = None if depth_covers is None else [depth_covers[r, : n[r]] for r in range(len(n))]
    return reference_partition_many(runs, lengths, tol, covers, shallow, gap)


# -- the tiles' corners and the network's input ----------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_every_tiles_corners_at_once_are_each_tiles_own_to_the_bit(seed: int) -> None:
    """The corners worked out on arrays are :func:`corners_mm`'s, tile by tile, at any angle
    (the axis-aligned ones and their neighbours too), size and place."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    angles = np.concatenate([rng.uniform(0, 180, n), [0.0, 90.0, 179.999999, 45.0]])
    tiles = [
        Found("tile", *rng.uniform([0, 0], [900, 900]), float(a), *rng.uniform([10, 15], [30, 45]))
        for a in angles
    ]
    at_once = corners_mm_of(tiles)
    assert at_once.shape == (len(tiles), 4, 2)
    assert np.array_equal(at_once, np.stack([corners_mm(t) for t in tiles]))


def test_a_scanned_tables_quads_are_each_tiles_own(table: Rendered) -> None:
    cal = calibrate(table.image, table.geometry)
    tiles = [f for f in find(table.image, cal) if f.kind == "tile"]
    quads = tile_quads(cal, tiles)
    one_by_one = [cal.to_frame(corners_mm(t)).astype(np.float32) for t in tiles]
    assert len(tiles) > 20
    assert np.array_equal(quads, np.stack(one_by_one))
    assert tile_quads(cal, []).shape == (0, 4, 2)


def test_the_networks_input_holds_each_crop_both_ways_up(table: Rendered) -> None:
    """Crop k's channels, and the same turned half a turn, at k and at n + k."""
    crops = scanned_tile_crops(table)
    blob = Embedder().blob(crops[:9])
    assert blob.shape == (18, 3, CROP_H, CROP_W) and blob.dtype == np.float32
    for k, crop in enumerate(crops[:9]):
        assert np.array_equal(blob[k], crop.transpose(2, 0, 1).astype(np.float32))
        turned = cv2.rotate(crop, cv2.ROTATE_180)
        assert np.array_equal(blob[9 + k], turned.transpose(2, 0, 1).astype(np.float32))


# -- the embedding ----------------------------------------------------------------------------


def test_both_runtimes_give_the_same_vectors(table: Rendered) -> None:
    cal = calibrate(table.image, table.geometry)
    crops = [tile_crop(table.image, cal, f) for f in find(table.image, cal) if f.kind == "tile"]
    crops.append(np.asarray(cv2.resize(crops[0], (30, 40)), np.uint8))  # another size
    ort = Embedder(runtime="onnxruntime", quantised=False)
    dnn = Embedder(runtime="opencv")
    assert ort.runtime == "onnxruntime" and dnn.runtime == "opencv"
    assert not ort.quantised and not dnn.quantised
    for kwargs in ({}, {"batch": 7}, {"shift_px": 3}):
        a, b = ort.embed(crops[:20], **kwargs), dnn.embed(crops[:20], **kwargs)
        assert a.shape == (20, 64)
        assert np.allclose(a, b, atol=2e-5)
    # Different crops stay different: the blob is built per crop, not one crop repeated.
    vectors = ort.embed(crops)
    assert np.abs(vectors[0] - vectors[1]).max() > 1e-3
    with pytest.raises(Exception, match="unknown runtime"):
        Embedder(runtime="tensorflow")


def test_the_8_bit_network_stays_close_to_the_float_one(table: Rendered) -> None:
    """The quantised copy the scanner runs by default: each embedding within a few
    thousandths of the float one in cosine, and the same kind wherever the float network is
    sure enough for the service to act (0.9)."""
    cal = calibrate(table.image, table.geometry)
    crops = [tile_crop(table.image, cal, f) for f in find(table.image, cal) if f.kind == "tile"]
    int8, float32 = Embedder(), Embedder(quantised=False)
    assert int8.quantised and int8.runtime == "onnxruntime"
    a, b = int8.embed(crops), float32.embed(crops)
    assert float((a * b).sum(axis=1).min()) > 0.99
    assert np.abs(a - b).max() > 1e-6  # really the other network
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    named = zip(recogniser.identify_embeddings(a), recogniser.identify_embeddings(b), strict=True)
    sure = [(x.best, y.best) for x, y in named if y.confidence >= 0.9]
    assert len(sure) > len(crops) // 2
    assert all(x == y for x, y in sure)


def test_scan_identities_are_those_of_each_crop_alone(table: Rendered) -> None:
    """Batching the scan's crops changes nothing: each tile gets what identifying its crop
    by itself gives."""
    cal = calibrate(table.image, table.geometry)
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    result = Scanner(cal, default).scan(table.image)
    tiles = [f for f in find(table.image, cal) if f.kind == "tile"]
    assert len(result.tiles) == len(tiles)
    batch = tile_crops(table.image, cal, tiles)
    assert all(
        np.array_equal(a, tile_crop(table.image, cal, t)) for a, t in zip(batch, tiles, strict=True)
    )
    for seen, spot in list(zip(result.tiles, tiles, strict=True))[::7]:
        alone = default.identify([tile_crop(table.image, cal, spot)])[0]
        assert seen.best == alone.best
        assert seen.confidence == pytest.approx(alone.confidence, abs=1e-4)


# -- embedding ahead, on a second thread ------------------------------------------------------


@pytest.fixture(scope="module")
def busy_table() -> Rendered:
    """Late discards in rows one behind another and a hand over the table: tiles the finder
    hands over before it has judged them, some of which it then takes for the hand."""
    table: Rendered = rendered_table(512, "kde-traditional", discards=60, hand=1.0)
    return table


def test_the_finder_hands_over_every_tile_it_finds_as_it_cuts_it(busy_table: Rendered) -> None:
    cal = calibrate(busy_table.image, busy_table.geometry)
    handed: list[finder.Found] = []
    found = find(busy_table.image, cal, on_tiles=handed.extend)
    assert found == find(busy_table.image, cal)
    tiles = [f for f in found if f.kind == "tile"]
    handed_ids = {id(f) for f in handed}
    assert all(id(f) in handed_ids for f in tiles)  # the very objects, found in order
    assert any(f.kind == "obstruction" for f in found)  # the hand: not a tile
    assert len(handed) >= len(tiles) > 40


def test_embedding_ahead_names_every_tile_as_embedding_at_the_end_does(
    busy_table: Rendered, table: Rendered
) -> None:
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    for rendered in (busy_table, table):
        cal = calibrate(rendered.image, rendered.geometry)
        with Scanner(cal, default, ahead=True) as ahead:
            first, again = ahead.scan(rendered.image), ahead.scan(rendered.image)
        at_the_end = Scanner(cal, default, ahead=False).scan(rendered.image)
        assert first.to_json() == at_the_end.to_json() == again.to_json()
        assert len(first.tiles) > 40


def test_a_busy_second_thread_names_every_tile_as_an_idle_one_does(
    busy_table: Rendered, table: Rendered
) -> None:
    """The second thread held by other work for the whole scan: every run is taken back
    (or done there late) and the names are those of a scan without it."""
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    for rendered in (busy_table, table):
        cal = calibrate(rendered.image, rendered.geometry)
        alone = Scanner(cal, default, ahead=False).scan(rendered.image).to_json()
        with Scanner(cal, default, ahead=True, away=False) as scanner:
            assert scanner.scan(rendered.image).to_json() == alone  # idle
            held = threading.Event()
            worker = scanner._embedding_thread()
            worker.submit(held.wait, 5.0)
            try:
                assert scanner.scan(rendered.image).to_json() == alone  # busy
            finally:
                held.set()


def _ahead_runs(
    table: Rendered, busy: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[int], list[int]]:
    """How many runs were begun as 4, 5 and 3 tiles are handed over (``busy``: the second
    thread held meanwhile), and the tiles of each run of the network, in order (the
    embedding's, then any second look's); the names are each crop's alone."""
    cal = calibrate(table.image, table.geometry)
    tiles = [f for f in find(table.image, cal) if f.kind == "tile"][:12]
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    ran: list[int] = []
    forward = default.embedder.forward

    def counted(blob: NDArray[np.float32], shared: bool = False) -> NDArray[np.float32]:
        ran.append(len(blob) // 2)  # each crop both ways up
        return forward(blob, shared)

    monkeypatch.setattr(default.embedder, "forward", counted)
    begun: list[int] = []
    with ThreadPoolExecutor(1) as worker:
        held = threading.Event()
        if busy:
            worker.submit(held.wait, 5.0)
        ahead = embed_ahead.EmbedAhead(worker, table.image, cal, default)
        for part in (tiles[:4], tiles[4:9], tiles[9:12]):
            ahead.add(part)
            begun.append(len(ahead._runs))
            if not busy:  # the run begun finished before more tiles come
                deadline = time.monotonic() + 5.0
                while ahead._runs and not ahead._runs[-1][1].done():
                    assert time.monotonic() < deadline
                    time.sleep(0.001)
        held.set()
        named = ahead.identities(tiles)
    runs = list(ran)
    alone = default.identify(tile_crops(table.image, cal, tiles))
    assert [i.best for i in named] == [i.best for i in alone]
    assert [i.confidence for i in named] == [i.confidence for i in alone]
    return begun, runs


def test_a_run_begins_with_fewer_tiles_when_the_other_side_is_idle(
    table: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    begun, ran = _ahead_runs(table, False, monkeypatch)
    # Idle: 4 tiles begin a run, and then 5; 3 are too few, embedded with the names.
    assert begun == [1, 2, 2]
    assert ran[:3] == [4, 5, 3]  # then the second looks' runs, if any


def test_a_busy_other_side_is_handed_whole_batches(
    table: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    begun, ran = _ahead_runs(table, True, monkeypatch)
    # The first run is begun at once (nothing of this scan's is running), then whole
    # batches only: 5 + 3 tiles make the second.
    assert begun == [1, 1, 2]
    assert sorted(ran[:2]) == [4, 8]


@pytest.mark.parametrize("discards", [0, 5])
def test_a_table_with_fewer_tiles_than_a_run_is_named_all_the_same(discards: int) -> None:
    """No tile, or too few for a run of the network on the other thread: the scan's own
    thread names them."""
    rendered = rendered_table(90, "kde-traditional", discards=discards, exposures=0, walls=False)
    assert len(rendered.layout.tiles) == discards
    cal = calibrate(rendered.image, rendered.geometry)
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    with Scanner(cal, default, ahead=True) as ahead:
        seen = ahead.scan(rendered.image)
    assert seen.to_json() == Scanner(cal, default, ahead=False).scan(rendered.image).to_json()
    assert len(seen.tiles) == discards


def test_an_error_in_the_network_run_ahead_reaches_the_scan(
    table: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    cal = calibrate(table.image, table.geometry)
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    runs: list[int] = []

    def failing(blob: NDArray[np.float32], shared: bool = False) -> NDArray[np.float32]:
        runs.append(len(blob))
        raise RuntimeError("network run failed")

    monkeypatch.setattr(default.embedder, "forward", failing)
    # The runs on the second thread (the network's process: tests/vision/test_embed_process.py).
    scanner = Scanner(cal, default, ahead=True, away=False)
    with scanner, pytest.raises(RuntimeError, match="run"):
        scanner.scan(table.image)
    # A whole batch went to the network (both ways up), whichever thread ran it first.
    assert runs and max(runs) >= 2 * embed_ahead.BATCH_TILES


def test_half_the_crops_on_a_helper_thread_give_the_same_vectors(table: Rendered) -> None:
    crops = scanned_tile_crops(table)
    embedder = Embedder()
    runs: list[int] = []

    def counted(blob: NDArray[np.float32]) -> NDArray[np.float32]:
        runs.append(len(blob))
        return embedder.forward(blob)

    with ThreadPoolExecutor(1) as helper:
        for kwargs in ({}, {"shift_px": 3}):
            alone = embedder.embed(crops, **kwargs)  # type: ignore[arg-type]
            split = embedder.embed(crops, helper=helper, **kwargs)  # type: ignore[arg-type]
            assert np.array_equal(alone, split)
        # Too few to split: all on the calling thread.
        assert np.array_equal(embedder.embed(crops[:5], helper=helper), embedder.embed(crops[:5]))
        helper.submit(counted, embedder.blob(crops[:3])).result()
    assert runs == [6]  # the helper runs what it is given, both ways up


def test_one_crops_shifted_copies_are_shared_with_the_helper(
    table: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second look at one crop: two of its four shifted copies run on the helper, two
    here, and its vector is the one embedded alone."""
    crops = scanned_tile_crops(table)
    embedder = Embedder()
    own = embedder.embed(crops[:1])
    alone = embedder.embed(crops[:1], shift_px=3, unshifted=own)
    runs: list[tuple[str, int]] = []
    forward = embedder.forward

    def counted(blob: NDArray[np.float32], shared: bool = False) -> NDArray[np.float32]:
        runs.append((threading.current_thread().name, len(blob)))
        return forward(blob, shared)

    monkeypatch.setattr(embedder, "forward", counted)
    with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
        split = embedder.embed(crops[:1], shift_px=3, unshifted=own, helper=helper)
    assert np.array_equal(alone, split)
    # Two copies a side, each seen both ways up.
    assert sorted(runs) == [("MainThread", 4), ("helper_0", 4)]


def test_the_cache_names_alike_with_and_without_the_second_thread(table: Rendered) -> None:
    """A frame, the same frame 7 % darker (every crop changed: all named again, with their
    second looks), and the first again."""
    cal = calibrate(table.image, table.geometry)
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    darker = np.asarray(np.clip(table.image.astype(np.float32) * 0.93, 0, 255), np.uint8)
    with Scanner(cal, default, cache=True, ahead=True) as two:
        one = Scanner(cal, default, cache=True, ahead=False)
        for frame in (table.image, darker, table.image):
            assert two.scan(frame).to_json() == one.scan(frame).to_json()
        assert two.memory is not None and two.memory.stats.tiles_named > 100


def test_flattened_with_a_helper_thread_is_flattened_alone(
    table: Rendered, jade_on_red: Rendered
) -> None:
    """The cloth measured, its colour laid, the boxes flattened and marked half on a second
    thread (idle, or busy so that this thread does it all): the very same image, cloth, mask
    and grey."""
    for rendered in (table, jade_on_red):
        cal = calibrate(rendered.image, rendered.geometry)
        alone = flatten_on_cloth(rendered.image, cal)
        with ThreadPoolExecutor(1) as helper:
            for busy in (False, True):
                if busy:
                    helper.submit(time.sleep, 0.2)
                shared = flatten_on_cloth(rendered.image, cal, helper)
                assert shared.cloth.lab == alone.cloth.lab
                assert (shared.cloth.brighter is None) == (alone.cloth.brighter is None)
                assert np.array_equal(shared.top, alone.top)
                assert np.array_equal(shared.mask, alone.mask)
                assert np.array_equal(shared.grey, alone.grey)
