"""Hands: every way to read a hand as sets and a pair, the special hands, and the waits.

A hand is given as its *concealed* tiles (tile kinds, any order) and the number of sets
already laid on the table (``melds``). A complete hand holds ``14 - 3 * melds`` concealed tiles
that divide into ``4 - melds`` sets (pungs or chows) and one pair (Code 1924, Law 44;
Pung-Chow, "Mah-Jongg ... completing four sets and a pair"), or is one of the special hands.

The divider works on counts per suit. A suit's nine counts are divided on their own (a set
never spans two suits), and each suit's divisions are memoised: a hand is the product of at
most four small cached lookups, which is what makes it fast.

Special hands (each book defines its own; the scoring tables pick which ones they accept):

- ``thirteen_orphans``: one of each Terminal and Honour and a fourteenth that pairs one of them
  (Code 1924, Law 100 IX; Pung-Chow Part II, limit hand 1 "single heads").
- ``heavenly_twins``: seven different pairs, all Honours or all of one suit (Code 1924, Law 100
  XVI).
- ``seven_twins``: seven different pairs of one suit and Honours (Code 1924, Law 100 XVI (a)).
- ``seven_pairs``: any seven different pairs (the shape the two above refine).
- ``nine_gates``: 1112345678999 of one suit, concealed, completed by any tile of the suit
  (Code 1924, Law 100 VIII). It is also a standard four-sets-and-a-pair hand.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache
from itertools import product
from typing import Literal, NamedTuple

from engine.errors import MalformedInput
from engine.tiles import NUM_KINDS, ORPHANS, Tile, tile_name

GroupKind = Literal["pair", "pung", "chow", "kong"]


class Group(NamedTuple):
    """One set or the pair: its kind and its lowest tile (a chow of 3-4-5 starts at 3)."""

    kind: GroupKind
    tile: Tile

    @property
    def tiles(self) -> tuple[Tile, ...]:
        t = self.tile
        if self.kind == "chow":
            return (t, t + 1, t + 2)
        return (t,) * {"pair": 2, "pung": 3, "kong": 4}[self.kind]

    def __repr__(self) -> str:
        return f"Group({self.kind!r}, {tile_name(self.tile)})"


Arrangement = tuple[Group, ...]

SPECIAL_SHAPES = ("thirteen_orphans", "heavenly_twins", "seven_twins", "seven_pairs", "nine_gates")
# Special hands that complete a hand without being four sets and a pair, per family.
SPECIALS_CODE1924: frozenset[str] = frozenset({"thirteen_orphans", "heavenly_twins", "seven_twins"})
SPECIALS_PUNGCHOW: frozenset[str] = frozenset({"thirteen_orphans"})
SPECIALS_NONE: frozenset[str] = frozenset()

_ORPHAN_SET = frozenset(ORPHANS)
_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)

# A suit's division: ((kind, rank0), ...) with kind 0 = pair, 1 = pung, 2 = chow.
_Division = tuple[tuple[int, int], ...]
_KIND_NAMES: tuple[GroupKind, ...] = ("pair", "pung", "chow")


def _counts(concealed: Iterable[Tile], where: str = "concealed") -> list[int]:
    counts = [0] * NUM_KINDS
    for i, t in enumerate(concealed):
        if not 0 <= t < NUM_KINDS:
            raise MalformedInput(f"{where}[{i}]", f"tile kind {t} cannot be part of a set")
        counts[t] += 1
    return counts


# Bounded: a long-running table service must not grow without end.
@lru_cache(maxsize=1 << 16)
def _suit_divisions(counts: tuple[int, ...], pairs_left: int) -> tuple[_Division, ...]:
    """Every division of one suit's counts into pungs, chows and at most ``pairs_left`` pairs.

    The lowest tile present must begin a group (nothing lower is left to join it), so trying
    pair, pung and chow at that tile reaches every division; duplicates (the same groups met in
    another order) are removed.
    """
    first = next((i for i, c in enumerate(counts) if c), -1)
    if first < 0:
        return ((),)
    found: set[_Division] = set()
    rest = list(counts)
    if pairs_left and counts[first] >= 2:
        rest[first] -= 2
        for d in _suit_divisions(tuple(rest), pairs_left - 1):
            found.add(tuple(sorted(((0, first), *d))))
        rest[first] += 2
    if counts[first] >= 3:
        rest[first] -= 3
        for d in _suit_divisions(tuple(rest), pairs_left):
            found.add(tuple(sorted(((1, first), *d))))
        rest[first] += 3
    if first <= 6 and counts[first + 1] and counts[first + 2]:
        rest[first] -= 1
        rest[first + 1] -= 1
        rest[first + 2] -= 1
        for d in _suit_divisions(tuple(rest), pairs_left):
            found.add(tuple(sorted(((2, first), *d))))
    return tuple(sorted(found))


@lru_cache(maxsize=1 << 12)
def _honour_division(counts: tuple[int, ...]) -> _Division | None:
    """Honours make no chows: each kind is a pair (2), a pung (3) or absent."""
    division = []
    for i, c in enumerate(counts):
        if c == 2:
            division.append((0, i))
        elif c == 3:
            division.append((1, i))
        elif c:
            return None
    return tuple(division)


def _has_pair(division: _Division) -> bool:
    return any(kind == 0 for kind, _ in division)


def _standard_divisions(counts: Sequence[int]) -> list[Arrangement]:
    honours = _honour_division(tuple(counts[27:34]))
    if honours is None:
        return []
    pairs_in_honours = sum(1 for kind, _ in honours if kind == 0)
    if pairs_in_honours > 1:
        return []
    per_suit = []
    for suit in range(3):
        key = tuple(counts[suit * 9 : suit * 9 + 9])
        options = _suit_divisions(key, 1 - pairs_in_honours)
        if not options:
            return []
        per_suit.append([(suit * 9, d) for d in options])
    result: list[Arrangement] = []
    for combo in product(*per_suit):
        pairs = pairs_in_honours + sum(_has_pair(d) for _, d in combo)
        if pairs != 1:
            continue
        groups = [Group(_KIND_NAMES[k], base + r) for base, d in combo for k, r in d]
        groups += [Group(_KIND_NAMES[k], 27 + r) for k, r in honours]
        result.append(tuple(sorted(groups, key=_group_order)))
    return result


def _group_order(g: Group) -> tuple[int, int]:
    return (g.tile, ("pair", "chow", "pung", "kong").index(g.kind))


@lru_cache(maxsize=1 << 16)
def _suit_flags(counts: tuple[int, ...]) -> tuple[bool, bool]:
    """Whether one suit's counts divide into sets alone, and into sets and one pair."""
    options = _suit_divisions(counts, 1)
    return (any(not _has_pair(d) for d in options), any(_has_pair(d) for d in options))


@lru_cache(maxsize=1 << 12)
def _honour_flags(counts: tuple[int, ...]) -> tuple[bool, bool]:
    division = _honour_division(counts)
    if division is None:
        return (False, False)
    pairs = sum(1 for kind, _ in division if kind == 0)
    return (pairs == 0, pairs == 1)


def _group_flags(counts: Sequence[int]) -> list[tuple[bool, bool]]:
    return [
        _suit_flags(tuple(counts[0:9])),
        _suit_flags(tuple(counts[9:18])),
        _suit_flags(tuple(counts[18:27])),
        _honour_flags(tuple(counts[27:34])),
    ]


def _one_pair(flags: Sequence[tuple[bool, bool]]) -> bool:
    """Some group takes the one pair and every other divides into sets alone."""
    without = [f[0] for f in flags]
    missing = without.count(False)
    if missing > 1:
        return False
    if missing == 1:
        return flags[without.index(False)][1]
    return any(f[1] for f in flags)


def _standard_complete(counts: Sequence[int]) -> bool:
    return _one_pair(_group_flags(counts))


def _check_size(counts: Sequence[int], melds: int, extra: int = 0) -> int:
    if not 0 <= melds <= 4:
        raise MalformedInput("melds", f"a hand lays 0 to 4 sets, not {melds}")
    size = sum(counts)
    for t, c in enumerate(counts):
        if c > 4:
            raise MalformedInput("concealed", f"{c} copies of {tile_name(t)}: a set has four")
    return size + extra


# -- special hands -----------------------------------------------------------------------------


def _seven_different_pairs(counts: Sequence[int]) -> bool:
    return sum(counts) == 14 and all(c in (0, 2) for c in counts)


def special_shapes(
    concealed: Sequence[Tile], melds: int = 0, win_tile: Tile | None = None
) -> list[str]:
    """The special hands this 14-tile concealed hand forms (names from ``SPECIAL_SHAPES``).

    ``win_tile`` matters only for Nine Gates (the 13 tiles before it must be the gates); without
    it, any tile of the suit may be the fourteenth.

    >>> from engine.tiles import parse_tiles
    >>> special_shapes(parse_tiles("1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD WD"))
    ['thirteen_orphans']
    """
    counts = _counts(concealed)
    _check_size(counts, melds)
    if melds or sum(counts) != 14:
        return []
    return _shapes_of_counts(counts, win_tile)


def _shapes_of_counts(counts: Sequence[int], win_tile: Tile | None = None) -> list[str]:
    found = []
    if all(counts[t] for t in ORPHANS) and all(
        c == 0 for t, c in enumerate(counts) if t not in _ORPHAN_SET
    ):
        found.append("thirteen_orphans")
    if _seven_different_pairs(counts):
        suits = {t // 9 for t in range(27) if counts[t]}
        honours = any(counts[27:34])
        if (len(suits) == 1 and not honours) or not suits:
            found.append("heavenly_twins")
        elif len(suits) == 1 and honours:
            found.append("seven_twins")
        found.append("seven_pairs")
    if _is_nine_gates(counts, win_tile):
        found.append("nine_gates")
    return found


def special_hands(
    concealed: Sequence[Tile], melds: int = 0, win_tile: Tile | None = None
) -> list[str]:
    """Alias of :func:`special_shapes`, the name the engine core calls."""
    return special_shapes(concealed, melds, win_tile)


def _is_nine_gates(counts: Sequence[int], win_tile: Tile | None) -> bool:
    suits = {t // 9 for t in range(NUM_KINDS) if counts[t]}
    if len(suits) != 1 or next(iter(suits)) > 2:
        return False
    base = next(iter(suits)) * 9
    suit = list(counts[base : base + 9])
    candidates = range(9) if win_tile is None else [win_tile - base]
    for r in candidates:
        if 0 <= r < 9 and suit[r]:
            suit[r] -= 1
            if tuple(suit) == _NINE_GATES:
                return True
            suit[r] += 1
    return False


# -- the public questions ------------------------------------------------------------------------


def arrangements(concealed: Sequence[Tile], melds: int = 0) -> list[Arrangement]:
    """Every division of the concealed tiles into ``4 - melds`` sets and a pair.

    Each arrangement is a sorted tuple of :class:`Group`; special hands are not listed here
    (see :func:`special_shapes`). An incomplete hand has none.

    >>> from engine.tiles import parse_tiles
    >>> len(arrangements(parse_tiles("1C 1C 1C 2C 2C 2C 3C 3C 3C 8C 8C 8C 9C 9C")))
    2
    """
    counts = _counts(concealed)
    if _check_size(counts, melds) != 14 - 3 * melds:
        return []
    return _standard_divisions(counts)


def is_complete(
    concealed: Sequence[Tile],
    melds: int = 0,
    specials: Collection[str] = SPECIALS_CODE1924,
) -> bool:
    """Whether the hand is complete: four sets and a pair, or one of ``specials``.

    The default special hands are those of the Code of 1924 (Law 100 IX, XVI, XVI (a)); pass
    ``SPECIALS_PUNGCHOW`` or ``SPECIALS_NONE`` for families that know fewer.
    """
    counts = _counts(concealed)
    if _check_size(counts, melds) != 14 - 3 * melds:
        return False
    return _complete_counts(counts, melds, specials)


def _complete_counts(counts: Sequence[int], melds: int, specials: Collection[str]) -> bool:
    if _standard_complete(counts):
        return True
    if not specials or melds:
        return False
    return _special_complete(counts, specials)


def _special_complete(counts: Sequence[int], specials: Collection[str]) -> bool:
    return any(name in specials for name in _shapes_of_counts(counts))


def _special_plausible(counts: Sequence[int]) -> bool:
    """Could one more tile make a special shape? (Saves trying each candidate.)"""
    held = [t for t, c in enumerate(counts) if c]
    if all(t in _ORPHAN_SET for t in held):
        return True  # thirteen orphans, or honour pairs
    if all(c <= 2 for c in counts) and sum(1 for c in counts if c == 1) == 1:
        return True  # seven pairs and the shapes that refine it
    return len({t // 9 for t in held}) == 1 and held[-1] < 27  # nine gates


def _candidates(counts: Sequence[int], specials: Collection[str]) -> list[Tile]:
    """Tiles that could possibly complete the hand: neighbours of held suit tiles, held
    honours, and every orphan when Thirteen Orphans is in play (the pairs hands and Nine Gates
    complete only with a kind already held or next to one)."""
    orphans_only = all(c == 0 or t in _ORPHAN_SET for t, c in enumerate(counts))
    near: set[Tile] = set(ORPHANS) if "thirteen_orphans" in specials and orphans_only else set()
    for t, c in enumerate(counts):
        if not c:
            continue
        if t < 27:
            lo, hi = t - t % 9, t - t % 9 + 8
            near.update(range(max(lo, t - 2), min(hi, t + 2) + 1))
        else:
            near.add(t)
    return sorted(near)


def waits(
    concealed: Sequence[Tile],
    melds: int = 0,
    visible: Sequence[int] | None = None,
    specials: Collection[str] = SPECIALS_CODE1924,
) -> list[Tile]:
    """The tiles that would complete this waiting hand (``13 - 3 * melds`` concealed tiles).

    ``visible`` counts, per tile kind, the tiles seen elsewhere (discards, sets on the table,
    flowers aside): a tile whose four copies are all held or visible cannot come, so it is no
    wait. A hand holding all four of a kind does not wait for a fifth.
    """
    counts = _counts(concealed)
    if _check_size(counts, melds, 1) != 14 - 3 * melds:
        return []
    flags = _group_flags(counts)
    size = sum(counts)
    special_ok = bool(specials) and melds == 0 and size == 13 and _special_plausible(counts)
    result = []
    for t in _candidates(counts, specials):
        seen = counts[t] + (visible[t] if visible is not None and t < len(visible) else 0)
        if seen >= 4:
            continue
        counts[t] += 1
        group = 3 if t >= 27 else t // 9
        lo = 27 if group == 3 else group * 9
        hi = 34 if group == 3 else lo + 9
        trial = list(flags)
        key = tuple(counts[lo:hi])
        trial[group] = _honour_flags(key) if group == 3 else _suit_flags(key)
        if _one_pair(trial) or (special_ok and _special_complete(counts, specials)):
            result.append(t)
        counts[t] -= 1
    return result


def fills_only_place(
    concealed: Sequence[Tile],
    melds: int,
    win_tile: Tile,
    visible: Sequence[int] | None = None,
    specials: Collection[str] = SPECIALS_CODE1924,
) -> bool:
    """Whether the winning tile "filled the only place" (Code 1924, Law 89; Pung-Chow bonus 4):
    the hand before it waited for that one kind and no other (a wait already dead, all four
    copies visible, does not count as another place).

    ``concealed`` is the complete hand, the winning tile included.
    """
    before = list(concealed)
    try:
        before.remove(win_tile)
    except ValueError:
        raise MalformedInput("win.tile", f"{tile_name(win_tile)} is not in the hand") from None
    return waits(before, melds, visible, specials) == [win_tile]


def is_waiting(
    concealed: Sequence[Tile],
    melds: int = 0,
    visible: Sequence[int] | None = None,
    specials: Collection[str] = SPECIALS_CODE1924,
) -> bool:
    """A waiting (calling) hand: one tile short of Mah-jongg with a live wait (Code 1924, Law 77
    "wanting only one tile")."""
    return bool(waits(concealed, melds, visible, specials))
