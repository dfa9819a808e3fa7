"""Mah-jongg entry requirements of the 1924 games (Laws 45-48).

The Mixed-Hand game takes any complete hand (Law 45). The One-Double game needs one double,
flowers excluded (Law 46); the Cleared-Hand game one suit with or without Honours, all
Terminals with or without Honours, or all Honours (Law 47). Any game takes a Limit Hand
(Law 48, Law 100). This module answers only *whether* a hand qualifies; what it scores is the
scoring package's question.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.hands import Group, arrangements, special_shapes
from engine.seats import Seat
from engine.state import Meld
from engine.tiles import DRAGONS, WINDS, Tile, is_honour, is_terminal

# Law 100 limit hands this module recognises from the tiles alone.
_GREEN = frozenset({1, 2, 3, 5, 7, 32})  # 2 3 4 6 8 bamboo and Green Dragons (IV)


def _sets(melds: Sequence[Meld], arrangement: Sequence[Group]) -> list[tuple[str, Tile]]:
    out: list[tuple[str, Tile]] = [(m.kind, min(m.tiles)) for m in melds]
    out += [(g.kind, g.tile) for g in arrangement]
    return out


def _all_tiles(melds: Sequence[Meld], concealed: Sequence[Tile]) -> list[Tile]:
    tiles = list(concealed)
    for m in melds:
        tiles.extend(m.tiles)
    return tiles


def is_cleared(tiles: Sequence[Tile]) -> bool:
    """Law 47: one suit (Honours allowed), all Terminals (Honours allowed), or all Honours."""
    suits = {t // 9 for t in tiles if t < 27}
    if len(suits) <= 1:
        return True
    return all(is_terminal(t) or is_honour(t) for t in tiles)


def limit_hand(
    melds: Sequence[Meld], concealed: Sequence[Tile], context: Sequence[str] = ()
) -> str | None:
    """The Law 100 limit hand these tiles make, for those recognisable from tiles and the
    win's context (heaven, earth); ``None`` otherwise."""
    if "heaven" in context:
        return "Hand from Heaven"
    if "earth" in context:
        return "Hand from Earth"
    shapes = special_shapes(list(concealed), len(melds)) if not melds else []
    for name, title in (("thirteen_orphans", "Thirteen Orphans"),
                        ("heavenly_twins", "Heavenly Twins"), ("nine_gates", "Nine Gates")):
        if name in shapes:
            return title
    tiles = _all_tiles(melds, concealed)
    if all(t in _GREEN for t in tiles) and arrangements(list(concealed), len(melds)):
        return "All Green"
    for arr in arrangements(list(concealed), len(melds)):
        sets = _sets(melds, arr)
        pungs = {t for k, t in sets if k in ("pung", "kong")}
        if all(t in pungs for t in DRAGONS):
            return "Three Great Scholars"
        if all(t in pungs for t in WINDS):
            return "Four Large Blessings"
        if sum(1 for k, _ in sets if k == "kong") == 4:
            return "All Kongs"
        if len(pungs) == 4 and all(is_honour(t) for t in tiles):
            return "All Honours"
        if len(pungs) == 4 and all(is_terminal(t) for t in tiles):
            return "All Terminals"
        drawn = not {"discard", "robbed_kong"} & set(context)
        if len(pungs) == 4 and drawn and all(m.concealed for m in melds):
            return "Hidden Treasure"
    return None


def has_a_double(
    melds: Sequence[Meld],
    concealed: Sequence[Tile],
    seat: Seat,
    prevailing: Seat | None,
    context: Sequence[str] = (),
) -> bool:
    """Law 46: the hand scores at least one double, exclusive of Flower doubles (Law 89's
    doubles for all hands and the winning-hand doubles, and Law 92's special bonuses)."""
    if {"last_tile", "last_discard", "loose_tile", "robbed_kong"} & set(context):
        return True
    tiles = _all_tiles(melds, concealed)
    suits = {t // 9 for t in tiles if t < 27}
    if len(suits) <= 1 or all(is_terminal(t) or is_honour(t) for t in tiles):
        return True  # all one suit, all terminals (with honours), all honours
    if len(melds) == 0 and special_shapes(list(concealed)):
        return True
    own = WINDS[seat]
    doubling = set(DRAGONS) | {own}
    if prevailing is not None:
        doubling.add(WINDS[prevailing])
    for arr in arrangements(list(concealed), len(melds)):
        sets = _sets(melds, arr)
        pungs = [t for k, t in sets if k in ("pung", "kong")]
        pair = next((t for k, t in sets if k == "pair"), None)
        if any(t in doubling for t in pungs):
            return True
        if not any(k == "chow" for k, _ in sets):
            return True  # no sequences
        if all(k in ("chow", "pair") for k, _ in sets) and pair is not None \
                and pair not in doubling:
            return True  # all sequences and a non-scoring pair (Law 91)
        dragon_sets = sum(1 for t in pungs if t in DRAGONS)
        wind_sets = sum(1 for t in pungs if t in WINDS)
        if dragon_sets == 2 and pair in DRAGONS:
            return True  # Three Small Scholars (Law 92)
        if wind_sets == 3 and pair in WINDS:
            return True  # Four Small Blessings (Law 92)
    return False
