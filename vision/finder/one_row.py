"""Rows of tiles cut into their tiles, upright or sideways as the cutting took them: every row
of a frame at once (their strips and seam profiles in whole-array operations, vision/finder/
strips.py), then each run of a row cut at its seams."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration
from vision.geometry import TableGeometry
from vision.image import Image

from .cutting import cut_laid_runs
from .found import PX_PER_MM, Found, Rect, obstruction_at, rect_axes, tile_at, tiles_at
from .strips import Strips, cut_strips, runs_of, seam_profiles

# Between tiles of one row, a seam's rim crosses a tile's whole depth; an engraving (a column
# of dots, bamboo) may cross three quarters of it. Judged by the brightest twentieth of each
# line, engravings stop looking like seams: on 16 rendered hands of xmj-real's scanned tiles
# laid out (224 tiles), 15 missed and 11 false, against 2 and 0 judged by the brightest
# quarter. (Rows one behind another are still cut apart by the brightest quarter: so, a
# symbola discard blob two rows deep was lost.)
_ALONG_ROW_BRIGHTER_PART = 95.0


def split_row(
    rect: Rect, grey: Image, mask: Image, calibration: Calibration, slack_mm: float = 8.0
) -> list[Found]:
    """The tiles of one row; deeper than a tile's length and ``slack_mm``, not a row."""
    return split_rows([rect], grey, mask, calibration, slack_mm)[0]


def needs_cutting(rect: Rect, slack_mm: float, g: TableGeometry) -> bool:
    """Whether :func:`split_rows` cuts this row at its seams (it is neither one tile nor too
    deep or shallow for a row)."""
    return _plain_as(rect, slack_mm, g) is None


def _plain_as(rect: Rect, slack_mm: float, g: TableGeometry) -> str | None:
    """What a row is when no cutting is needed: one tile, its long side either way (with its
    share of the slack: the shadow of a deep blob's outer row lengthens a lone last discard
    in it), or an obstruction when deeper than a tile's length and ``slack_mm`` or shallower
    than a tile's width; None when the row must be cut."""
    tw, th = g.tile_w_mm * PX_PER_MM, g.tile_h_mm * PX_PER_MM
    _, _, length, depth = rect_axes(rect)
    one = th + (slack_mm - 4) * PX_PER_MM
    if length < one and depth < one:
        return "tile"
    if depth > th + slack_mm * PX_PER_MM or depth < tw - 6 * PX_PER_MM:
        return "obstruction"
    return None


def _without_cutting(rect: Rect, slack_mm: float, g: TableGeometry) -> list[Found] | None:
    """A row's tiles when no cutting is needed (:func:`_plain_as`); None when the row must
    be cut."""
    plain = _plain_as(rect, slack_mm, g)
    if plain is None:
        return None
    tw, th = g.tile_w_mm * PX_PER_MM, g.tile_h_mm * PX_PER_MM
    along, across, length, depth = rect_axes(rect)
    centre = np.array(rect[0], np.float64)
    if plain == "tile":
        return [tile_at(centre, along if length >= depth else across, th, tw)]
    return [obstruction_at(centre, depth, length, along)]


@dataclass(frozen=True)
class _Rows:
    """The rows being cut: per row its centre, unit vectors along and across it, its length
    and depth (pixels), and whether its tiles stand upright in it."""

    centre: NDArray[np.float64]
    along: NDArray[np.float64]
    across: NDArray[np.float64]
    length: NDArray[np.float64]
    depth: NDArray[np.float64]
    upright: NDArray[np.bool_]


def split_rows(
    rects: list[Rect],
    grey: Image,
    mask: Image,
    calibration: Calibration,
    slack_mm: float | list[float] = 8.0,
) -> list[list[Found]]:
    """The tiles of each row (:func:`split_row` of each, ``slack_mm`` one for all or one
    each), the rows' strips cut at once."""
    g = calibration.geometry
    tw, th = g.tile_w_mm * PX_PER_MM, g.tile_h_mm * PX_PER_MM
    slacks = slack_mm if isinstance(slack_mm, list) else [slack_mm] * len(rects)
    out: list[list[Found]] = [[] for _ in rects]
    todo: list[int] = []
    axes = [rect_axes(rect) for rect in rects]
    for i, rect in enumerate(rects):
        plain = _without_cutting(rect, slacks[i], g)
        if plain is None:
            todo.append(i)
        else:
            out[i] = plain
    if todo:
        depths = np.array([axes[i][3] for i in todo], np.float64)
        rows = _Rows(
            np.array([rects[i][0] for i in todo], np.float64),
            np.array([axes[i][0] for i in todo]),
            np.array([axes[i][1] for i in todo]),
            np.array([axes[i][2] for i in todo], np.float64),
            depths,
            np.abs(depths - th) < np.abs(depths - tw),
        )
        for i, found in zip(todo, _cut(rows, grey, mask, tw, th), strict=True):
            out[i] = found
    return out


def _cut(rows: _Rows, grey: Image, mask: Image, tw: float, th: float) -> list[list[Found]]:
    """Each row cut at its seams, run by run (a run: where the blob covers the row)."""
    strips = cut_strips(grey, mask, rows.centre, rows.along, rows.across, rows.length, rows.depth)
    cover = strips.line_cover()
    profile = seam_profiles(strips, _ALONG_ROW_BRIGHTER_PART) * np.clip(cover * 1.5, 0, 1)
    out: list[list[Found | None]] = [[] for _ in strips.start]
    begins, ends = runs_of(cover > 0.3, strips)
    long_enough = ends - begins >= tw - 6 * PX_PER_MM
    begins, ends = begins[long_enough], ends[long_enough]
    owners = strips.owner[begins]
    cuts: dict[int, list[tuple[int, int, int]] | None] = {}
    for upright in (True, False):  # rows of upright tiles and rows of sideways ones apart
        mine = rows.upright[owners] == upright
        if not mine.any():
            continue
        first, after = begins[mine], ends[mine]
        n = after - first
        lines = first[:, None] + np.arange(int(n.max()))[None, :]
        held = lines < after[:, None]
        lines = np.where(held, lines, first[:, None])
        depth = rows.depth[owners[mine]][:, None]
        cut = cut_laid_runs(
            np.where(held, profile[lines], 0.0),
            n,
            [tw, th] if upright else [th],
            np.where(held, cover[lines] * depth / th, 0.0),
            tw / th,
            tw,
            upright,
        )
        cuts.update(zip(first.tolist(), cut, strict=True))
    runs = zip(begins.tolist(), ends.tolist(), owners.tolist(), strict=True)
    pieces: list[tuple[int, int, int, int]] = []  # strip, first line, line after, cut as
    for b0, e0, s in runs:
        pieces_of_run = cuts[b0]
        if pieces_of_run is None:
            a0 = b0 - int(strips.start[s])
            c = rows.centre[s] + rows.along[s] * ((a0 + a0 + e0 - b0) / 2 - rows.length[s] / 2)
            out[s].append(obstruction_at(c, float(rows.depth[s]), e0 - b0, rows.along[s]))
            continue
        for a, b, cut_as in pieces_of_run:
            pieces.append((s, b0 + a, b0 + b, cut_as))
            out[s].append(None)  # its tile, once every piece's place is known
    tiles = iter(_tiles(pieces, rows, strips, tw, th))
    return [[f if f is not None else next(tiles) for f in found] for found in out]


def _tiles(
    pieces: list[tuple[int, int, int, int]], rows: _Rows, strips: Strips, tw: float, th: float
) -> list[Found]:
    """Each piece (its strip, its lines in the whole arrays, the length it was cut as) as a
    tile: across the row, where the blob covers more than half of the piece's lines (a
    sideways tile is shallower than the row); upright, its long side across the row."""
    if not pieces:
        return []
    s, a, b, cut_as = (np.array(column, np.int64) for column in zip(*pieces, strict=True))
    share = strips.covered_between(a, b) / (b - a)[:, None]
    held = (share > 0.5) & strips.inside[a]
    anywhere = held.any(axis=1)
    lo = np.where(anywhere, held.argmax(axis=1), 0)
    hi = np.where(anywhere, held.shape[1] - held[:, ::-1].argmax(axis=1), strips.depth[s])
    start = strips.start[s]
    mid_along = ((a - start) + (b - start)) / 2 - rows.length[s] / 2
    mid_across = (lo + hi) / 2 - rows.depth[s] / 2
    centre = (
        rows.centre[s] + rows.along[s] * mid_along[:, None] + rows.across[s] * mid_across[:, None]
    )
    upright = rows.upright[s] & (cut_as == 0)
    long_axis = np.where(upright[:, None], rows.across[s], rows.along[s])
    return tiles_at(centre, long_axis, th, tw)
