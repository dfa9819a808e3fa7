"""Why a hand called Mah-jongg is no Mah-jongg: the closest arrangement of its tiles, the tiles
that do not arrange, and what it lacks (the one tile that, in place of one held, would make it
complete). A mistyped tile (9C for 9B) shows up as "9B in place of 9C".

Pure: counts and the hand divider of :mod:`engine.hands`; no scoring.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from typing import Any

from engine.hands import is_complete
from engine.scoring.model import SeatHand
from engine.tiles import NUM_KINDS, Tile, tile_name

Counts = tuple[int, ...]
Groups = tuple[tuple[str, Tile], ...]


@lru_cache(maxsize=4096)
def _best_partial(counts: Counts, sets_left: int, pair_left: int) -> tuple[int, Groups]:
    """The most tiles that ``sets_left`` sets and ``pair_left`` pairs can take, and those
    groups (a set before a pair, lower tiles first, so the answer is deterministic)."""
    first = next((t for t, c in enumerate(counts) if c), None)
    if first is None:
        return 0, ()
    options: list[tuple[int, Groups]] = []

    def take(kind: str, tiles: tuple[Tile, ...], size: int, sets: int, pairs: int) -> None:
        rest = list(counts)
        for t in tiles:
            rest[t] -= 1
        got, groups = _best_partial(tuple(rest), sets, pairs)
        options.append((got + size, ((kind, first), *groups)))

    if sets_left and counts[first] >= 3:
        take("pung", (first,) * 3, 3, sets_left - 1, pair_left)
    if sets_left and first < 27 and first % 9 <= 6 and counts[first + 1] and counts[first + 2]:
        take("chow", (first, first + 1, first + 2), 3, sets_left - 1, pair_left)
    if pair_left and counts[first] >= 2:
        take("pair", (first,) * 2, 2, sets_left, pair_left - 1)
    # or leave one copy of it unarranged
    rest = list(counts)
    rest[first] -= 1
    got, groups = _best_partial(tuple(rest), sets_left, pair_left)
    options.append((got, groups))
    return max(options, key=lambda o: o[0])


def _group_tiles(kind: str, tile: Tile) -> list[Tile]:
    if kind == "chow":
        return [tile, tile + 1, tile + 2]
    return [tile] * (2 if kind == "pair" else 3)


def _replacements(
    hand: SeatHand, unarranged: list[Tile], specials: Collection[str]
) -> list[dict[str, str]]:
    """Each (held tile, other tile) exchange that would make the hand complete."""
    held = list(hand.concealed)
    total = [0] * NUM_KINDS
    for t in hand.all_tiles:
        total[t] += 1
    melds = len(hand.melds)
    found: list[dict[str, str]] = []
    for out in sorted(set(unarranged) or set(held)):
        trial = list(held)
        trial.remove(out)
        for tile in range(NUM_KINDS):
            if tile == out or total[tile] >= 4:
                continue
            if is_complete([*trial, tile], melds, specials):
                found.append({"held": tile_name(out), "needed": tile_name(tile)})
    return found


def explain_incomplete(hand: SeatHand, specials: Collection[str]) -> dict[str, Any]:
    """The closest arrangement of a winner's concealed tiles and what it lacks."""
    counts = [0] * NUM_KINDS
    for t in hand.concealed:
        counts[t] += 1
    sets_left = 4 - len(hand.melds)
    _, groups = _best_partial(tuple(counts), sets_left, 1)
    arranged = [0] * NUM_KINDS
    closest = [[tile_name(t) for t in m.tiles] for m in hand.melds]
    for kind, tile in groups:
        tiles = _group_tiles(kind, tile)
        closest.append([tile_name(t) for t in tiles])
        for t in tiles:
            arranged[t] += 1
    unarranged = [t for t in range(NUM_KINDS) for _ in range(counts[t] - arranged[t])]
    sets_made = sum(1 for kind, _ in groups if kind != "pair")
    missing = []
    if sets_made < sets_left:
        n = sets_left - sets_made
        missing.append(f"{n} set{'s' if n > 1 else ''}")
    if not any(kind == "pair" for kind, _ in groups):
        missing.append("the pair")
    needed = _replacements(hand, unarranged, specials)
    lacks = " and ".join(missing) or "nothing in four sets and a pair"
    if needed:
        lacks += "; complete with " + ", or ".join(
            f"{n['needed']} in place of {n['held']}" for n in needed[:6]
        )
    return {
        "closest": closest,
        "unarranged": [tile_name(t) for t in unarranged],
        "lacks": lacks,
        "would_complete": needed,
    }
