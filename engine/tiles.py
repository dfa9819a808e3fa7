"""Tiles: the vocabulary every other module speaks.

A tile *kind* is a small int (``Tile``), so hands can be counted in flat lists and compared
fast. Notation comes as a parse/format pair: :func:`parse_tile` / :func:`tile_name`.

Kinds, in index order::

    0-8    1B-9B   bamboo
    9-17   1C-9C   characters (craks)
    18-26  1D-9D   dots
    27-30  EW SW WW NW   winds
    31-33  RD GD WD      dragons (WD is white, the American Soap)
    34-37  F1-F4   flowers (plum, orchid, chrysanthemum, bamboo)
    38-41  S1-S4   seasons (spring, summer, autumn, winter)
    42     F       an American flower (all eight interchangeable)
    43     J       an American Joker

The number on a flower or season is also the seat it belongs to (1 = East ... 4 = North).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import TypeAlias

Tile: TypeAlias = int

# The 34 kinds that make sets (suits and honours).
NUM_KINDS = 34
NUM_TILE_KINDS = 44


class Suit(IntEnum):
    BAMBOO = 0
    CHARACTERS = 1
    DOTS = 2
    WINDS = 3
    DRAGONS = 4
    FLOWERS = 5
    SEASONS = 6
    AMERICAN_FLOWER = 7
    JOKER = 8


SUIT_LETTERS = "BCD"

# Named constants read like the notation: B1 is "1B", the one of bamboo.
(B1, B2, B3, B4, B5, B6, B7, B8, B9) = range(0, 9)
(C1, C2, C3, C4, C5, C6, C7, C8, C9) = range(9, 18)
(D1, D2, D3, D4, D5, D6, D7, D8, D9) = range(18, 27)
EW, SW, WW, NW = range(27, 31)
RD, GD, WD = range(31, 34)
F1, F2, F3, F4 = range(34, 38)
S1, S2, S3, S4 = range(38, 42)
FLOWER = 42
JOKER = 43

WINDS: tuple[Tile, ...] = (EW, SW, WW, NW)
DRAGONS: tuple[Tile, ...] = (RD, GD, WD)
HONOURS: tuple[Tile, ...] = WINDS + DRAGONS
FLOWERS: tuple[Tile, ...] = (F1, F2, F3, F4)
SEASONS: tuple[Tile, ...] = (S1, S2, S3, S4)
BONUS_TILES: tuple[Tile, ...] = FLOWERS + SEASONS
SUITED: tuple[Tile, ...] = tuple(range(27))
TERMINALS: tuple[Tile, ...] = (B1, B9, C1, C9, D1, D9)
ORPHANS: tuple[Tile, ...] = TERMINALS + HONOURS  # the thirteen of Thirteen Orphans

_NAMES: tuple[str, ...] = (
    tuple(f"{rank}{suit}" for suit in SUIT_LETTERS for rank in range(1, 10))
    + ("EW", "SW", "WW", "NW", "RD", "GD", "WD")
    + ("F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4", "F", "J")
)
_BY_NAME: dict[str, Tile] = {name: index for index, name in enumerate(_NAMES)}

_GLYPHS: tuple[str, ...] = (
    tuple(chr(0x1F010 + r) for r in range(9))  # bamboo
    + tuple(chr(0x1F007 + r) for r in range(9))  # characters
    + tuple(chr(0x1F019 + r) for r in range(9))  # dots
    + ("\U0001f000", "\U0001f001", "\U0001f002", "\U0001f003")  # winds E S W N
    + ("\U0001f004", "\U0001f005", "\U0001f006")  # red, green, white dragon
    + ("\U0001f022", "\U0001f023", "\U0001f025", "\U0001f024")  # plum orchid chrysanthemum bamboo
    + ("\U0001f026", "\U0001f027", "\U0001f028", "\U0001f029")  # spring summer autumn winter
    + ("\U0001f022", "\U0001f02a")  # an American flower, the Joker
)


class TileError(ValueError):
    """A token that names no tile. The message carries the token and where it came from."""

    def __init__(self, token: str, where: str = "") -> None:
        self.token = token
        self.where = where
        place = f" at {where}" if where else ""
        super().__init__(f"unknown tile {token!r}{place}")


def parse_tile(token: str, where: str = "") -> Tile:
    """Parse one tile token, case-insensitively.

    >>> tile_name(parse_tile("5c"))
    '5C'
    """
    tile = _BY_NAME.get(token.strip().upper())
    if tile is None:
        raise TileError(token, where)
    return tile


def parse_tiles(tokens: str | Iterable[str], where: str = "") -> list[Tile]:
    """Parse tokens given as a list or as one space- or comma-separated string."""
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    result = []
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise TileError(repr(token), f"{where}[{i}]" if where else f"[{i}]")
        result.append(parse_tile(token, f"{where}[{i}]" if where else f"[{i}]"))
    return result


def tile_name(tile: Tile) -> str:
    """The upper-case token of a tile kind."""
    return _NAMES[tile]


def tile_names(tiles: Iterable[Tile]) -> list[str]:
    return [_NAMES[t] for t in tiles]


def tile_glyph(tile: Tile) -> str:
    """The Unicode mahjong glyph, for terminal display."""
    return _GLYPHS[tile]


def suit_of(tile: Tile) -> Suit:
    if tile < 27:
        return Suit(tile // 9)
    if tile < 31:
        return Suit.WINDS
    if tile < 34:
        return Suit.DRAGONS
    if tile < 38:
        return Suit.FLOWERS
    if tile < 42:
        return Suit.SEASONS
    return Suit.AMERICAN_FLOWER if tile == FLOWER else Suit.JOKER


def rank_of(tile: Tile) -> int:
    """1-9 for suit tiles, the seat number 1-4 for flowers and seasons, 0 otherwise."""
    if tile < 27:
        return tile % 9 + 1
    if 34 <= tile < 42:
        return (tile - 34) % 4 + 1
    return 0


def is_suited(tile: Tile) -> bool:
    return tile < 27


def is_honour(tile: Tile) -> bool:
    return 27 <= tile < 34


def is_terminal(tile: Tile) -> bool:
    return tile < 27 and tile % 9 in (0, 8)


def is_simple(tile: Tile) -> bool:
    return tile < 27 and tile % 9 not in (0, 8)


def is_bonus(tile: Tile) -> bool:
    """A flower or season (a bonus tile grounded at once, 1924 Law 22), or an American flower
    is *not* a bonus tile: it is played in the hand."""
    return 34 <= tile < 42


def wind_of_seat(seat: int) -> Tile:
    """Seat 0 = East ... 3 = North."""
    return EW + seat


def bonus_seat(tile: Tile) -> int:
    """The seat (0 = East) a flower or season belongs to."""
    return (tile - 34) % 4


def counts_of(tiles: Iterable[Tile], size: int = NUM_TILE_KINDS) -> list[int]:
    """A list indexed by tile kind: how many of each."""
    counts = [0] * size
    for t in tiles:
        counts[t] += 1
    return counts


def sort_key(tile: Tile) -> int:
    return tile


def sorted_tiles(tiles: Iterable[Tile]) -> list[Tile]:
    return sorted(tiles)


# -- tile sets ---------------------------------------------------------------------------------

def tile_set(size: int) -> list[Tile]:
    """The physical set, one entry per tile.

    136: suits and honours, four of each (1924 Laws 3-5);
    144: with the four flowers and four seasons (1924 Law 6; Chinese Classical);
    152: the American set: 144 with all eight bonus tiles as interchangeable Flowers, plus
         eight Jokers.
    """
    base = [t for t in range(NUM_KINDS) for _ in range(4)]
    if size == 136:
        return base
    if size == 144:
        return base + list(BONUS_TILES)
    if size == 152:
        return base + [FLOWER] * 8 + [JOKER] * 8
    raise ValueError(f"no mahjong set has {size} tiles (136, 144 or 152)")


def copies_in_set(tile: Tile, size: int) -> int:
    """How many copies of a kind a set of ``size`` tiles holds (the limit for a fifth copy)."""
    if tile < NUM_KINDS:
        return 4
    if size == 144 and is_bonus(tile):
        return 1
    if size == 152 and tile in (FLOWER, JOKER):
        return 8
    return 0


def format_tiles(tiles: Sequence[Tile]) -> str:
    return " ".join(tile_name(t) for t in tiles)
