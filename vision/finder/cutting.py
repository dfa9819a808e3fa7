"""A run of tiles cut into pieces of a tile's length at its seams: a dynamic programme over
the cut positions.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from .found import PX_PER_MM


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
    charged for covering otherwise. (:func:`partition_many` with one run.)"""
    covers = None if depth_cover is None else [depth_cover]
    return partition_many([profile], lengths, tol, covers, shallow, gap)[0]


def partition_many(
    profiles: list[NDArray[np.float64]],
    lengths: list[float],
    tol: float,
    depth_covers: list[NDArray[np.float64]] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> list[Cutting | None]:
    """:func:`partition` of each run (its ``profiles`` and ``depth_covers``), all runs at
    once (:func:`partition_laid` of the runs laid one a row)."""
    if not profiles:
        return []
    n = np.array([len(profile) for profile in profiles], np.int64)
    covers = None if depth_covers is None else laid(depth_covers, n)
    return partition_laid(laid(profiles, n), n, lengths, tol, covers, shallow, gap)


def laid(values: list[NDArray[np.float64]], n: NDArray[np.int64]) -> NDArray[np.float64]:
    """The runs' values one run a row, ``n`` long each, padded with zeros to the longest."""
    out = np.zeros((len(values), int(n.max())))
    out[np.arange(out.shape[1])[None, :] < n[:, None]] = np.concatenate(values)
    return out


def partition_laid(
    profiles: NDArray[np.float64],
    n: NDArray[np.int64],
    lengths: list[float],
    tol: float,
    depth_covers: NDArray[np.float64] | None = None,
    shallow: float = 1.0,
    gap: float = 0.0,
) -> list[Cutting | None]:
    """:func:`partition` of each run, the runs laid one a row (``profiles`` and
    ``depth_covers``, run ``r`` ``n[r]`` long, zeros beyond), all at once: each run's best
    costs one row of an array.

    A piece is at least ``lo`` long, so the best cuts up to ``end`` depend only on cuts at
    least ``lo`` earlier: a block of ``lo`` ends of every run is solved at once, for the
    runs that reach it only, each term added in the same order as one end at a time would
    (so the sums round the same). What does not depend on the best costs (the depth
    charge) is made for every end at once, and each end's best start and length are read
    from its choice after the last block."""
    if not len(n):
        return []
    key = (tuple(lengths), tol, shallow, gap)
    size, size_cost, size_length, target = _piece_sizes(*key)
    shift = int(size.max())
    # Longest first: the runs still being solved at any end are always the first few.
    order = np.argsort(-n, kind="stable")
    n = n[order]
    longest = int(n[0])
    if not longest:  # nothing to cut: no piece, no cost
        return [Cutting([], 0.0) for _ in order]
    ends, starts, index = _ends_and_starts(longest, *key)
    # Cut at each end; none at the run's end.
    seam = profiles[order, :longest, None].copy()
    seam[np.arange(len(n)), n - 1] = 0.0
    if depth_covers is not None:
        csum = np.zeros((len(n), longest + 1))
        np.cumsum(depth_covers[order, :longest], axis=1, out=csum[:, 1:])
        # Charged for the depth covered: 3 |covered - target|, per run, end and piece size
        # (ends 1 to the longest; ``np.take`` gathers columns several times faster than
        # indexing does).
        from_start, span = np.maximum(starts, 0), ends[:, None] - starts
        charge = csum[:, 1:, None] - np.take(csum, from_start, axis=1)
        charge /= span
        charge -= target
        np.abs(charge, out=charge)
        charge *= 3.0
    # Best cost of cutting [0, end), stored ``shift`` further on so that a negative start
    # reads infinity.
    best = np.full((len(n), longest + 1 + shift), np.inf)
    best[:, shift] = 0.0
    # Per end, the piece size the best cutting up to it ends with.
    choice = np.zeros((len(n), longest), np.int64)
    step = max(1, int(size.min()))
    for e0 in range(0, longest, step):
        m = int(np.count_nonzero(n > e0))  # the runs that reach this block
        block = slice(e0, min(longest, e0 + step))
        cost = np.take(best[:m], index[block], axis=1)
        cost += seam[:m, block]
        cost += size_cost
        if depth_covers is not None:
            cost += charge[:m, block]
        k = cost.argmin(axis=2)
        choice[:m, block] = k
        best[:m, e0 + 1 + shift : block.stop + 1 + shift] = cost.min(axis=2)
    # Each end's best start and length, from its choice (ends no run reaches are not read).
    prev = np.zeros((len(n), longest + 1), np.int64)
    cut_as = np.zeros((len(n), longest + 1), np.int64)
    prev[:, 1:] = starts[np.arange(longest)[None, :], choice]
    cut_as[:, 1:] = size_length[choice]
    out: list[Cutting | None] = [None] * len(n)
    final = best[np.arange(len(n)), n + shift].tolist()
    for i, r in enumerate(order.tolist()):
        out[r] = _pieces(prev[i], cut_as[i], int(n[i]), final[i])
    return out


def _pieces(
    prev: NDArray[np.int64], cut_as: NDArray[np.int64], n: int, cost: float
) -> Cutting | None:
    """The cutting of [0, n) whose best cut before each end is ``prev`` (None: there is no
    cutting)."""
    if cost == np.inf:
        return None
    pieces = []
    end = n
    while end > 0:
        start = int(prev[end])
        pieces.append((start, end, int(cut_as[end])))
        end = start
    return Cutting(pieces[::-1], cost)


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
    """One run of a row's tiles cut at its seams (:func:`cut_runs` of one run)."""
    return cut_runs([profile], lengths, [depth_cover], shallow, tw, upright_row)[0]


def cut_runs(
    profiles: list[NDArray[np.float64]],
    lengths: list[float],
    depth_covers: list[NDArray[np.float64]],
    shallow: float,
    tw: float,
    upright_row: bool,
) -> list[list[tuple[int, int, int]] | None]:
    """Runs of rows' tiles cut at their seams (:func:`cut_laid_runs` of the runs laid one
    a row)."""
    if not profiles:
        return []
    n = np.array([len(profile) for profile in profiles], np.int64)
    return cut_laid_runs(
        laid(profiles, n), n, lengths, laid(depth_covers, n), shallow, tw, upright_row
    )


def cut_laid_runs(
    profiles: NDArray[np.float64],
    n: NDArray[np.int64],
    lengths: list[float],
    depth_covers: NDArray[np.float64],
    shallow: float,
    tw: float,
    upright_row: bool,
) -> list[list[tuple[int, int, int]] | None]:
    """Runs of rows' tiles cut at their seams (:func:`partition_laid`, all at once; run
    ``r`` ``n[r]`` long in row ``r`` of ``profiles`` and ``depth_covers``).

    A cut is charged by how much less like a seam its line is than the run's median line:
    where seams hardly show (tiles touching, a hand laid out), every cut cost about the same,
    and fewer, longer pieces (13 for 14 touching tiles) came cheaper. Where they hardly show
    and the faces' engravings are darker (dots, bamboo), the cuts followed the engravings
    instead, half a tile off: a long run of upright tiles is also cut on each even pitch its
    length allows, and kept so when that is cheaper, the pitch counted."""
    if not len(n):
        return []
    tol, gap = 3.5 * PX_PER_MM, _GAP_MM * PX_PER_MM
    held = np.arange(profiles.shape[1])[None, :] < n[:, None]
    seams = np.where(held, profiles - _medians(profiles, held, n)[:, None], 0.0)
    cuts = partition_laid(seams, n, lengths, tol, depth_covers, shallow, gap)
    out: list[list[tuple[int, int, int]] | None] = []
    for r, best in enumerate(cuts):
        length = int(n[r])
        if best is not None and upright_row and length >= _EVEN_ROW_TILES * tw:
            run, cover = seams[r, :length], depth_covers[r, :length]
            # Tiles touching, or apart by up to the gap (and a pixel of measuring either way).
            counts = range(int(np.ceil(length / (tw + gap + 1))), int(length / (tw - 1)) + 1)
            priors = [_EVEN_PITCH_CREDIT / (c - 1) * _off_pitch(length, c) for c in counts]
            evens = [run + prior for prior in priors]
            for even in partition_many(evens, lengths, tol, [cover] * len(evens), shallow, gap):
                if even is not None and even.cost < best.cost:
                    best = even
        out.append(None if best is None else best.pieces)
    return out


def _medians(
    values: NDArray[np.float64], held: NDArray[np.bool_], n: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Per row, the median of its first ``n`` values (``held``), as ``stats.median`` gives
    it: the rows sorted, the rest above every value."""
    ordered = np.sort(np.where(held, values, np.inf), axis=1)
    rows, half = np.arange(len(n)), n // 2
    middle = ordered[rows, half]
    below = ordered[rows, np.maximum(half - 1, 0)]
    return np.asarray(np.where(n % 2 == 1, middle, (below + middle) / 2))
