"""The finder's per-blob and per-row work done over whole arrays gives, to the last bit, what
the one-at-a-time computations give: tiles made from arrays of centres, runs cut laid one a
row, a piece's cover from the pieces' bounds, the strips' percentiles, the faces' colours."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from vision.finder import body, cutting
from vision.finder.found import Found, rect_axes, tile_at, tile_axes, tiles_at
from vision.finder.strips import Strips, _band_percentile, _percentile_per_strip
from vision.geometry import TableGeometry

from .test_scan_fast_paths import reference_partition


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 40))
def test_tiles_made_at_once_are_each_tile_at(seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 900, (count, 2))
    turn = rng.uniform(-np.pi, np.pi, count)
    axes = np.stack([np.cos(turn), np.sin(turn)], axis=1)
    axes[: count // 4] = [[0.0, 1.0]]  # exactly along the table's axes too
    many = tiles_at(centres, axes, 30.0, 22.0)
    one_by_one = [tile_at(c, a, 30.0, 22.0) for c, a in zip(centres, axes, strict=True)]
    # The same to the last bit, and of the same types (the benchmark compares reprs).
    assert [repr(vars(f)) for f in many] == [repr(vars(f)) for f in one_by_one]


def _reference_cut(
    profile: NDArray[np.float64], lengths: list[float], cover: NDArray[np.float64]
) -> list[tuple[int, int, int]] | None:
    """A run cut alone: charged against its own median line, the reference programme."""
    tol, gap = 3.5, 2.0
    cut = reference_partition(profile - np.median(profile), lengths, tol, cover, 22 / 30, gap)
    return None if cut is None else cut.pieces


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    runs=st.integers(1, 7),
    upright=st.booleans(),
    coarse=st.booleans(),
)
def test_runs_laid_one_a_row_are_cut_as_each_alone(
    seed: int, runs: int, upright: bool, coarse: bool
) -> None:
    rng = np.random.default_rng(seed)
    # Shorter than a hand laid out (seven tiles): no even pitch to try.
    n = rng.integers(1, 150, runs)
    profiles = [rng.random(int(k)) for k in n]
    covers = [rng.random(int(k)) for k in n]
    if coarse:  # many exact ties, an even count of lines the median's two middles
        profiles = [np.round(p, 1) for p in profiles]
    lengths = [22.0, 30.0] if upright else [30.0]
    laid = cutting.laid(profiles, n)
    got = cutting.cut_laid_runs(laid, n, lengths, cutting.laid(covers, n), 22 / 30, 22.0, upright)
    expected = [_reference_cut(p, lengths, c) for p, c in zip(profiles, covers, strict=True)]
    assert got == expected


def _strips(rng: np.random.Generator, count: int) -> Strips:
    """Random strips side by side: lengths, depths, grey values and cover."""
    length = rng.integers(1, 60, count)
    depth = rng.integers(3, 41, count)
    start = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(count), length)
    deepest = int(depth.max())
    inside = np.arange(deepest)[None, :] < depth[owner][:, None]
    grey = rng.integers(0, 256, (len(owner), deepest)).astype(np.uint8)
    cover = (rng.random(grey.shape) < 0.7) & inside
    return Strips(start, length, depth, owner, grey, cover, inside)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 12))
def test_a_pieces_cover_is_the_sum_over_its_lines(seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    strips = _strips(rng, count)
    lines = len(strips.owner)
    # Pieces in order, touching (as a run's pieces do) or apart (as runs are), the last one
    # sometimes reaching the last line.
    points = np.unique(rng.integers(0, lines + 1, int(rng.integers(2, 16))))
    kept = [i for i in range(len(points) - 1) if rng.random() < 0.7]
    if not kept:
        return
    a, b = points[kept], points[np.array(kept) + 1]
    got = strips.covered_between(a, b)
    expected = np.array([strips.cover[i:j].sum(axis=0) for i, j in zip(a, b, strict=True)])
    assert got.dtype == np.int64
    assert np.array_equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 12), q=st.sampled_from([50, 90, 95]))
def test_strip_and_band_percentiles_are_numpys(seed: int, count: int, q: float) -> None:
    rng = np.random.default_rng(seed)
    strips = _strips(rng, count)
    values = rng.random(len(strips.owner)) * 255
    values[: len(values) // 3] = np.round(values[: len(values) // 3])  # ties
    per_strip = _percentile_per_strip(values, strips, q)
    for s in range(count):
        mine = values[strips.start[s] : strips.start[s] + strips.length[s]]
        assert per_strip[s] == np.percentile(mine, q)
    lo = np.rint(strips.depth * 0.2).astype(np.int64)
    hi = np.maximum(np.rint(strips.depth * 0.8).astype(np.int64), lo + 1)
    per_line = _band_percentile(strips, lo, hi, q)
    y = np.arange(strips.grey.shape[1])[None, :]
    band = (y >= lo[strips.owner][:, None]) & (y < hi[strips.owner][:, None])
    assert np.array_equal(per_line, _masked_percentile_of_lines(strips.grey, band, q))
    for line, s in enumerate(strips.owner):
        values = strips.grey[line, lo[s] : hi[s]].astype(np.float64)
        assert per_line[line] == pytest.approx(np.percentile(values, q), abs=1e-9)


def _masked_percentile_of_lines(
    values: NDArray[np.uint8], where: NDArray[np.bool_], q: float
) -> NDArray[np.float64]:
    """Per line, the percentile of the values ``where`` holds, every column sorted (the
    finder's computation before only the band's columns were)."""
    width = values.shape[1]
    ordered = np.sort(np.where(where, values.astype(np.int16), -1), axis=1)
    held = where.sum(axis=1)
    index = (width - held) + q / 100 * (held - 1)
    lo = np.floor(index).astype(np.int64)
    hi = np.minimum(lo + 1, width - 1)
    below = np.take_along_axis(ordered, lo[:, None], axis=1)[:, 0].astype(np.float64)
    above = np.take_along_axis(ordered, hi[:, None], axis=1)[:, 0].astype(np.float64)
    t = index - lo
    return np.asarray(
        np.where(t >= 0.5, above - (above - below) * (1 - t), below + (above - below) * t)
    )


def _face_colours_tile_by_tile(top: NDArray[np.uint8], tiles: list[Found]) -> Any:
    """Each tile's 25 face points from its own axes (:func:`tile_axes`), as before."""
    import cv2

    steps = np.linspace(-0.4, 0.4, 5)
    out = []
    for tile in tiles:
        centre, up, right = tile_axes(tile)
        pts = (
            centre[None, None]
            + steps[:, None, None] * (up * tile.h)[None, None]
            + steps[None, :, None] * (right * tile.w)[None, None]
        )
        px = np.round(pts.reshape(-1, 2)).astype(int)
        px[:, 0] = np.clip(px[:, 0], 0, top.shape[1] - 1)
        px[:, 1] = np.clip(px[:, 1], 0, top.shape[0] - 1)
        lab = cv2.cvtColor(top[px[:, 1], px[:, 0]].reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
        out.append(lab.reshape(-1, 3).astype(np.float32))
    return np.array(out)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 30))
def test_faces_looked_at_at_once_are_each_tiles_own(seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    top = rng.integers(0, 256, (120, 160, 3)).astype(np.uint8)
    tiles = [
        Found("tile", *rng.uniform(-10, 170, 2), rng.uniform(0, 180), 22.0, 30.0)
        for _ in range(count)
    ]
    colours = body._face_colours(top, tiles)
    assert np.array_equal(colours, _face_colours_tile_by_tile(top, tiles))
    assert np.array_equal(body._middle_colours(colours), np.median(colours, axis=1))
    # The set's body from them: numpy's median of the tiles' colours, odd and even counts.
    for some in (colours, colours[1:]):
        if len(some):
            expected = np.asarray(np.median(body._middle_colours(some), axis=0), np.float32)
            got = body._median_body(some)
            assert got.dtype == np.float32 and np.array_equal(got, expected)


def test_a_rectangles_shared_axes_cannot_be_written_to() -> None:
    # The axes are made once per rectangle and shared by every caller: none may change them.
    along, across, length, depth = rect_axes(((10.0, 20.0), (30.0, 60.0), 12.5))
    assert (length, depth) == (60.0, 30.0)
    with pytest.raises(ValueError):
        along[0] = 0.0
    with pytest.raises(ValueError):
        across += 1.0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(0, 60))
def test_faces_up_are_the_tiles_whose_zone_is_not_a_wall(seed: int, count: int) -> None:
    g = TableGeometry()
    rng = np.random.default_rng(seed)
    dx, dy = (float(v) for v in rng.choice([0.0, 40.0, -12.5], 2))
    # Anywhere on the table, and exactly on the zones' edges (a zone holds its low edges).
    edges = sorted({v for z in g.zones for v in (z.x0, z.x1, z.y0, z.y1)})
    found = [
        Found(
            str(rng.choice(["tile", "tile", "die", "obstruction"])),
            float(rng.choice(edges)) - dx if rng.random() < 0.3 else rng.uniform(-10, 910),
            float(rng.choice(edges)) - dy if rng.random() < 0.3 else rng.uniform(-10, 910),
            0.0,
            22.0,
            30.0,
        )
        for _ in range(count)
    ]
    expected = [
        f
        for f in found
        if f.kind == "tile" and getattr(g.zone_at(f.x + dx, f.y + dy), "name", None) != "wall"
    ]
    assert body.faces_up(found, g, dx, dy) == expected
    assert any(z.name == "wall" for z in g.zones)


def test_an_empty_run_is_cut_into_nothing_beside_the_others() -> None:
    rng = np.random.default_rng(5)
    profile, cover = rng.random(90), rng.random(90)
    lengths = [22.0, 30.0]
    empty = np.zeros(0)
    assert cutting.partition_many([empty], lengths, 3.5, [empty]) == [cutting.Cutting([], 0.0)]
    cuts = cutting.partition_many([empty, profile], lengths, 3.5, [empty, cover], 22 / 30, 2.0)
    assert cuts == [
        cutting.Cutting([], 0.0),
        reference_partition(profile, lengths, 3.5, cover, 22 / 30, 2.0),
    ]
    strips = _strips(rng, 3)
    assert strips.covered_between(np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (
        0,
        strips.cover.shape[1],
    )
