"""A run of tiles cut into pieces of a tile's length at its seams: a dynamic programme over
the cut positions.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .found import PX_PER_MM
from .stats import median


class Cutting(NamedTuple):
    """A row cut into pieces: each (start, end, index of the length it was cut as), and the
    cost of cutting so."""

    pieces: list[tuple[int, int, int]]
    cost: float


def partition(
    profile: NDArray[np.float64],
    lengths: list[float],
    tol: float,
    depth_cover: NDArray[np.float64] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> Cutting | None:
    """Cut [0, n) into pieces of the allowed lengths (within ``tol``; the first, the row's
    own tiles, longer by up to ``gap`` more: a tile and the gap beside it, where blur and
    shadow join tiles laid a little apart), cutting where the profile is darkest. Dynamic
    programming over cut positions. Each piece comes with the index of the length it was
    cut as: a piece as long from both (a tile and the gap beside it) is what the cutting
    took it for, depth cover included, not what its size is nearer. The cutting's cost comes
    with the pieces (to weigh it against another).

    ``depth_cover`` is the fraction of the row's depth covered in each column: an upright
    tile (``lengths[0]``) covers it all, a sideways one only ``shallow`` of it; pieces are
    charged for covering otherwise.

    A piece is at least ``lo`` long, so the best cuts up to ``end`` depend only on cuts at
    least ``lo`` earlier: a block of ``lo`` ends is solved at once, in numpy, and every
    term that does not depend on earlier cuts is computed for all ends beforehand (added in
    the same order as one end at a time would, so the sums round the same)."""
    n = len(profile)
    key = (tuple(lengths), tol, shallow, gap)
    size, size_cost, size_length, target = _piece_sizes(*key)
    shift = int(size.max())
    ends, starts, index = _ends_and_starts(n, *key)
    seam = np.append(np.asarray(profile, np.float64)[: n - 1], 0.0)[:, None]  # cut at end
    charge = None
    if depth_cover is not None:
        csum = np.concatenate([[0.0], np.cumsum(depth_cover)])
        covered = (csum[ends, None] - csum[np.maximum(starts, 0)]) / (ends[:, None] - starts)
        charge = 3.0 * np.abs(covered - target[None, :])
    # Best cost of cutting [0, end), stored ``shift`` further on so that a negative start
    # reads infinity.
    best = np.full(n + 1 + shift, np.inf)
    best[shift] = 0.0
    prev = np.zeros(n + 1, np.int64)
    cut_as = np.zeros(n + 1, np.int64)
    step = max(1, int(size.min()))
    for e0 in range(0, n, step):
        block = slice(e0, min(n, e0 + step))
        cost = best[index[block]]
        cost += seam[block]
        cost += size_cost
        if charge is not None:
            cost += charge[block]
        k = cost.argmin(axis=1)
        rows = np.arange(len(k))
        best[e0 + 1 + shift : block.stop + 1 + shift] = cost[rows, k]
        prev[e0 + 1 : block.stop + 1] = starts[block][rows, k]
        cut_as[e0 + 1 : block.stop + 1] = size_length[k]
    if best[n + shift] == np.inf:
        return None
    pieces = []
    end = n
    while end > 0:
        start = int(prev[end])
        pieces.append((start, end, int(cut_as[end])))
        end = start
    return Cutting(pieces[::-1], float(best[n + shift]))


PieceSizes = tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64], NDArray[np.float64]]


@lru_cache(maxsize=64)
def _ends_and_starts(
    n: int, lengths: tuple[float, ...], tol: float, shallow: float, gap: float
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """For a run of ``n`` and the pieces :func:`_piece_sizes` gives: every end, per end and
    piece size its start (negative: no such piece), and where the best cost up to that start
    is stored. The same few runs' lengths come back frame after frame: made once each, and
    never written to."""
    size = _piece_sizes(lengths, tol, shallow, gap)[0]
    ends = np.arange(1, n + 1)
    starts = ends[:, None] - size[None, :]
    index = starts + int(size.max())
    for array in (ends, starts, index):
        array.flags.writeable = False
    return ends, starts, index


@lru_cache(maxsize=16)
def _piece_sizes(lengths: tuple[float, ...], tol: float, shallow: float, gap: float) -> PieceSizes:
    """Every (length, piece size) pair :func:`partition` may cut: the sizes, what a piece of
    each costs for being off its length, the index of its length, and the share of the row's
    depth it should cover. Within a length, sizes descend so that starts ascend and ties go
    to the earliest start, then to the earlier length."""
    sizes, penalty, target, cut_as_of = [], [], [], []
    for which, length in enumerate(lengths):
        # Only the row's own tiles lie apart (a claimed tile, turned, is laid against the
        # set; and three upright tiles were cut as two sideways ones taking the gaps).
        room = gap if which == 0 else 0.0
        lo, hi = int(np.floor(length - tol)), int(np.ceil(length + tol + room))
        d = np.arange(hi, max(lo, 1) - 1, -1)
        sizes.append(d)
        # Charged by how far off, as a share of the room on that side.
        penalty.append(
            np.where(d > length, (d - length) / (2 * (tol + room)), (length - d) / (2 * tol))
        )
        target.append(np.full(len(d), 1.0 if which == 0 else shallow))
        cut_as_of.append(np.full(len(d), which))
    out = (
        np.concatenate(sizes),
        np.concatenate(penalty),
        np.concatenate(cut_as_of),
        np.concatenate(target),
    )
    for array in out:  # shared by every call with these sizes (cached)
        array.flags.writeable = False
    return out


# A piece of a row may be this much longer than its tile: discards laid a little apart are
# joined by blur and shadow, and the piece takes the gap with it. Cut only as long as a tile,
# a row of them pitched 24-26 mm drifted off its seams until a piece took the drift as a
# sideways tile (on 48 rendered tables of six sets, 108 tiles found turned; 4 with this).
_GAP_MM = 2.0


# A row at least this many upright tiles long (a hand laid out, not six discards laid by hand
# at uneven gaps) may be cut on an even pitch: each cut is charged for lying off the pitch and
# credited for lying on it, by up to this much shared among the cuts (0.5 a cut for a hand of
# 14; the profile charges a cut -1 to 1 against its median, a seam about -0.2). Shared, so
# that how many pieces a run holds is told by its seams and sizes, not by how many cuts earn
# the credit: at 0.5 a cut, 14 tiles laid up to 1.5 mm apart were cut as 15.
_EVEN_ROW_TILES = 7


_EVEN_PITCH_CREDIT = 6.5


def _off_pitch(n: int, count: int) -> NDArray[np.float64]:
    """Per end of a piece in a run of ``n`` cut into ``count`` equal pieces, how far it lies
    from the nearest of those cuts: -0.5 on one, 0.5 midway between two (a cutting taking
    random places gains nothing, one on the pitch gains)."""
    pitch = n / count
    at = np.arange(1, n + 1) / pitch
    return np.asarray(2 * np.abs(at - np.round(at)) - 0.5)


def cut_run(
    profile: NDArray[np.float64],
    lengths: list[float],
    depth_cover: NDArray[np.float64],
    shallow: float,
    tw: float,
    upright_row: bool,
) -> list[tuple[int, int, int]] | None:
    """One run of a row's tiles cut at its seams (:func:`partition`).

    A cut is charged by how much less like a seam its line is than the run's median line:
    where seams hardly show (tiles touching, a hand laid out), every cut cost about the same,
    and fewer, longer pieces (13 for 14 touching tiles) came cheaper. Where they hardly show
    and the faces' engravings are darker (dots, bamboo), the cuts followed the engravings
    instead, half a tile off: a long run of upright tiles is also cut on each even pitch its
    length allows, and kept so when that is cheaper, the pitch counted."""
    n = len(profile)
    tol, gap = 3.5 * PX_PER_MM, _GAP_MM * PX_PER_MM
    seams = profile - median(profile)
    best = partition(seams, lengths, tol, depth_cover, shallow, gap)
    if best is None or not upright_row or n < _EVEN_ROW_TILES * tw:
        return None if best is None else best.pieces
    # Tiles touching, or apart by up to the gap (and a pixel of measuring either way).
    for count in range(int(np.ceil(n / (tw + gap + 1))), int(n / (tw - 1)) + 1):
        prior = _EVEN_PITCH_CREDIT / (count - 1) * _off_pitch(n, count)
        even = partition(seams + prior, lengths, tol, depth_cover, shallow, gap)
        if even is not None and even.cost < best.cost:
            best = even
    return best.pieces
