"""What a hand shows: the features the score tables price (engine.scoring.tables).

A *reading* is one way to lay out a hand: its sets and pair (melds on the table plus one
arrangement of the concealed tiles, with the set the winning tile completed), or a special
shape. :func:`features` lists every feature of a reading, each with the tiles it concerns, so
that the explanation can say "Triplet of Simples, concealed (5B 5B 5B)".

Pure predicates only; no values live here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.scoring.model import Win
from engine.tiles import (
    B2,
    B3,
    B4,
    B6,
    B8,
    D1,
    D5,
    DRAGONS,
    EW,
    GD,
    WINDS,
    Tile,
    bonus_seat,
    is_honour,
    is_terminal,
    tile_name,
)

GREEN = frozenset({B2, B3, B4, B6, B8, GD})


@dataclass(frozen=True)
class Part:
    """One set or the pair of a reading."""

    kind: str  # "pair" | "chow" | "pung" | "kong"
    tile: Tile
    concealed: bool
    final: bool = False  # the winning tile completed it

    @property
    def tiles(self) -> tuple[Tile, ...]:
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * {"pair": 2, "pung": 3, "kong": 4}[self.kind]

    @property
    def label(self) -> str:
        return " ".join(tile_name(t) for t in self.tiles)


@dataclass(frozen=True)
class Reading:
    parts: tuple[Part, ...]  # empty for a special shape
    shape: str | None  # a special shape's name, or None for four sets and a pair
    tiles: tuple[Tile, ...]  # every tile of the hand (melds and concealed), no flowers


@dataclass(frozen=True)
class Situation:
    seat: int
    prevailing: int | None
    winner: bool
    win: Win | None
    flowers: tuple[Tile, ...]
    only_place: bool = False


Feature = tuple[str, str]  # (key, what it concerns)


def _cls(t: Tile) -> str:
    if is_honour(t):
        return "honour"
    return "terminal" if is_terminal(t) else "simple"


def _wind_key(prefix: str, t: Tile, s: Situation) -> str | None:
    if t in DRAGONS:
        return f"{prefix}_dragon"
    if t not in WINDS:
        return None
    own = t == EW + s.seat
    prevailing = s.prevailing is not None and t == EW + s.prevailing
    if own and prevailing:
        return f"{prefix}_own_prevailing"
    if own:
        return f"{prefix}_own_wind"
    if prevailing:
        return f"{prefix}_prevailing_wind"
    return None


def part_features(r: Reading, s: Situation) -> list[Feature]:
    out: list[Feature] = []
    for p in r.parts:
        if p.kind in ("pung", "kong"):
            state = "concealed" if p.concealed else "exposed"
            out.append((f"{p.kind}_{_cls(p.tile)}_{state}", p.label))
            key = _wind_key("set", p.tile, s)
            if key:
                out.append((key, p.label))
        elif p.kind == "pair":
            key = _wind_key("pair", p.tile, s)
            if key:
                out.append((key, p.label))
    return out


def flower_features(s: Situation) -> list[Feature]:
    out: list[Feature] = [("flower", tile_name(f)) for f in sorted(s.flowers)]
    own = [f for f in s.flowers if bonus_seat(f) == s.seat]
    own_flower = any(f < 38 for f in own)
    own_season = any(f >= 38 for f in own)
    if own_flower:
        out.append(("own_flower", tile_name(34 + s.seat)))
    if own_season:
        out.append(("own_season", tile_name(38 + s.seat)))
    if own_flower and own_season:
        out.append(("own_flower_and_season", f"{tile_name(34 + s.seat)} {tile_name(38 + s.seat)}"))
    if sum(1 for f in s.flowers if f < 38) == 4:
        out.append(("bouquet_flowers", "F1 F2 F3 F4"))
    if sum(1 for f in s.flowers if f >= 38) == 4:
        out.append(("bouquet_seasons", "S1 S2 S3 S4"))
    return out


def composition_features(tiles: Sequence[Tile]) -> list[Feature]:
    """All one suit, with or without Honours; Terminals with Honours; all Terminals; all Honours
    (1924 Law 89; Pung-Chow doubling honours)."""
    if not tiles:
        return []
    suits = {t // 9 for t in tiles if t < 27}
    honours = any(is_honour(t) for t in tiles)
    out: list[Feature] = []
    if not suits:
        out.append(("all_honours", ""))
    elif len(suits) == 1:
        out.append(("one_suit_honours" if honours else "one_suit_pure", ""))
    if suits and all(is_terminal(t) or is_honour(t) for t in tiles):
        out.append(("terminals_honours" if honours else "all_terminals", ""))
    return out


def _sets(r: Reading) -> list[Part]:
    return [p for p in r.parts if p.kind != "pair"]


def _pair(r: Reading) -> Part | None:
    return next((p for p in r.parts if p.kind == "pair"), None)


def arrangement_features(r: Reading, s: Situation) -> list[Feature]:
    """Features of the sets as a whole, for any player."""
    out: list[Feature] = []
    pungs = [p for p in _sets(r) if p.kind in ("pung", "kong")]
    dragon_sets = [p for p in pungs if p.tile in DRAGONS]
    wind_sets = [p for p in pungs if p.tile in WINDS]
    pair = _pair(r)
    if len(dragon_sets) == 3:
        out.append(("three_great_scholars", ""))
        out.append(("big_three_dragons", ""))
        if s.winner and not any(p.kind == "chow" for p in r.parts):
            out.append(("three_great_scholars_no_chow", ""))
    if len(wind_sets) == 4:
        out.append(("four_large_blessings", ""))
        out.append(("big_four_winds", ""))
    if pair is not None and len(dragon_sets) == 2 and pair.tile in DRAGONS:
        out.append(("three_small_scholars", ""))
    if pair is not None and len(wind_sets) == 3 and pair.tile in WINDS:
        out.append(("four_small_blessings", ""))
    if sum(1 for p in pungs if p.concealed) >= 3:
        out.append(("three_concealed_pungs", ""))
    return out


def winner_features(r: Reading, s: Situation, pair_points: int) -> list[Feature]:
    """Bonuses of the winning hand and the limit hands (1924 Laws 89-92, 100; Pung-Chow
    bonus scores and limit hands; Kajongg's classical winner rules). ``pair_points`` is what
    the pair scores in this family (the all-sequence hand needs a non-scoring pair)."""
    w = s.win
    assert w is not None
    out: list[Feature] = [("mahjong", "")]
    ctx = w.context
    if w.self_drawn:
        out.append(("self_drawn", tile_name(w.tile) if w.tile is not None else ""))
    if s.only_place:
        out.append(("only_place", tile_name(w.tile) if w.tile is not None else ""))
    if "last_tile" in ctx and w.self_drawn:
        out.append(("last_tile", ""))
    if "last_discard" in ctx or ("last_tile" in ctx and w.claimed):
        out.append(("last_discard", ""))
    if w.by == "loose_tile":
        out.append(("loose_tile", ""))
    if w.by == "robbed_kong":
        out.append(("robbing_kong", ""))
    for key in ("delayed_call", "original_call"):
        if key in ctx:
            out.append((key, ""))
    if ctx & {"original_hand", "heaven"}:
        out.append(("original_hand", ""))
    if ctx & {"first_discard", "earth"}:
        out.append(("first_discard", ""))
    if "heaven" in ctx and s.seat == 0:
        out.append(("heaven", ""))
    if "earth" in ctx and s.seat != 0:
        out.append(("earth", ""))
    if w.tile == D1 and "last_tile" in ctx and w.self_drawn:
        out.append(("moon", ""))
    if w.tile == D5 and w.by == "loose_tile":
        out.append(("plum_blossom", ""))
    if w.tile == B2 and w.by == "robbed_kong":
        out.append(("carrying_pole", ""))
    if "kong_on_kong" in ctx and w.by == "loose_tile":
        out.append(("kong_on_kong", ""))
    if "fourth_tile" in ctx:
        out.append(("kong_completion", tile_name(w.tile) if w.tile is not None else ""))

    if r.shape is not None:
        out.append((r.shape, ""))
        return out

    sets = _sets(r)
    chows = [p for p in sets if p.kind == "chow"]
    pungs = [p for p in sets if p.kind in ("pung", "kong")]
    pair = _pair(r)
    if not chows:
        out.append(("no_sequences", ""))
    if len(chows) == 4 and pair_points == 0:
        out.append(("all_sequences", ""))
    if all(p.concealed for p in r.parts):  # a pair is exposed only where the table says so
        out.append(("all_concealed", ""))
        if (w.self_drawn or "heaven" in ctx) and len(pungs) == 4:
            out.append(("hidden_treasure", ""))
    if len([p for p in sets if p.kind == "kong"]) == 4:
        out.append(("all_kongs", ""))
    if all(t in GREEN for t in r.tiles):
        out.append(("all_green", ""))
    if all(is_terminal(t) or is_honour(t) for t in r.tiles) and not chows:
        out.append(("all_heads", ""))
    suits = {t // 9 for t in r.tiles if t < 27}
    honours = any(is_honour(t) for t in r.tiles)
    if len(suits) == 1 and not honours:
        if not chows:
            out.append(("purity", ""))
        if all(p.concealed for p in sets) and w.self_drawn:
            out.append(("concealed_true_colour", ""))
        if _squirming_snake(r.tiles):
            out.append(("squirming_snake", ""))
    if len(suits) == 1 and len(pungs) == 4 and all(p.concealed for p in pungs):
        out.append(("buried_treasure", ""))
    if pair is not None and pair.final:
        how = "drawn" if w.self_drawn else "claimed"
        own_round = pair.tile == EW + s.seat and s.prevailing is not None and s.prevailing == s.seat
        cls = "own_round" if own_round else ("simple" if _cls(pair.tile) == "simple" else "head")
        out.append((f"final_pair_{cls}_{how}", pair.label))
    final_chow = next((p for p in chows if p.final), None)
    if final_chow is not None and w.tile is not None:
        if w.self_drawn:
            out.append(("sequence_filled_drawn", final_chow.label))
        elif _closed_wait(final_chow, w.tile):
            out.append(("sequence_filled_claimed_closed", final_chow.label))
    return out


def _closed_wait(chow: Part, tile: Tile) -> bool:
    """The tile filled a sequence in the middle, or at its only open end (1-2 for 3, 8-9 for 7)."""
    rank = chow.tile % 9  # 0 for a 1-2-3
    return (
        tile == chow.tile + 1
        or (rank == 0 and tile == chow.tile + 2)
        or (rank == 6 and tile == chow.tile)
    )


def fills_by_shape(r: Reading, w: Win) -> bool:
    """The winning tile matched the pair, or filled a sequence in the middle or at its only
    open end, in this reading."""
    final = next((p for p in r.parts if p.final), None)
    if final is None or w.tile is None:
        return False
    return final.kind == "pair" or (final.kind == "chow" and _closed_wait(final, w.tile))


def _squirming_snake(tiles: Sequence[Tile]) -> bool:
    """DMJL: one suit, pung (or kong) of 1 and of 9, a pair of 2, 5 or 8, and two chows of the
    other values, i.e. every value held."""
    base = tiles[0] - tiles[0] % 9
    ranks = [0] * 9
    for t in tiles:
        ranks[t - base] += 1
    if ranks[0] < 3 or ranks[8] < 3:
        return False
    pairs = [r for r in (1, 4, 7) if ranks[r] == 2]
    return len(pairs) == 1 and all(ranks[r] == 1 for r in range(1, 8) if r != pairs[0])
