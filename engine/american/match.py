"""Which lines of a card a hand completes, and how far it is from each line.

A hand is its concealed naturals, its concealed Jokers and its exposures. Matching follows
the seed's rules exactly (design note american.md §3 and "Readings settled for CLN"):

* Jokers only fill sets of three or more like tiles (J-1); a concealed set may be all Jokers
  (S-6); every exposure holds a natural (S-8).
* Each exposure must equal one set group of the line: same tile, same size (C-8: an exposure
  never grows later), and a Joker-bearing exposure only a set that takes Jokers.
* A C line takes no exposure (the called 14th tile is not an exposure).
* Tiles away = 14 minus the most tiles of the hand some completion of the line keeps, with the
  exposures fixed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from engine.american.compiled import FIELD, CompiledCard, Expansion, supply, therm, tile_slot
from engine.errors import EngineError
from engine.tiles import (
    FLOWER,
    JOKER,
    NUM_KINDS,
    Tile,
    is_bonus,
    parse_tile,
    tile_name,
)


class HandError(EngineError):
    """A hand that cannot exist or cannot be read; ``where`` names the tile or exposure."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")


class Exposure(NamedTuple):
    """An exposed set: ``size`` like tiles of ``tile``, ``jokers`` of them Jokers."""

    tile: Tile
    size: int
    jokers: int

    def tiles(self) -> list[Tile]:
        return [self.tile] * (self.size - self.jokers) + [JOKER] * self.jokers

    def __str__(self) -> str:
        return " ".join(tile_name(t) for t in self.tiles())


class Hand(NamedTuple):
    concealed: tuple[tuple[Tile, int], ...]  # naturals, sorted (tile, count)
    jokers: int  # concealed Jokers
    exposures: tuple[Exposure, ...]

    @property
    def size(self) -> int:
        return (sum(n for _, n in self.concealed) + self.jokers
                + sum(e.size for e in self.exposures))

    @property
    def total_jokers(self) -> int:
        return self.jokers + sum(e.jokers for e in self.exposures)


def american_tile(tile: Tile) -> Tile:
    """In the American game the eight bonus tiles are all one Flower ("Flowers are
    interchangeable")."""
    return FLOWER if is_bonus(tile) else tile


def parse_exposure(tokens: Sequence[Tile], where: str) -> Exposure:
    """An exposure is a pung, kong, quint or sextet of like tiles with at least one natural
    (American C-1, DH-2 (c), S-8)."""
    tiles = [american_tile(t) for t in tokens]
    naturals = {t for t in tiles if t != JOKER}
    if not 3 <= len(tiles) <= 6:
        raise HandError(where, f"an exposure is 3 to 6 like tiles, not {len(tiles)} "
                        "(American C-1; a lone tile or a pair is never exposed, DH-2 (c))")
    if not naturals:
        raise HandError(where, "an exposure always holds a real tile: a discarded Joker can "
                        "never be called (American S-8, J-3)")
    if len(naturals) > 1:
        names = ", ".join(sorted(tile_name(t) for t in naturals))
        raise HandError(where, f"an exposure must be like tiles, not {names} "
                        "(American C-1, DH-2 (c); no chows)")
    tile = naturals.pop()
    return Exposure(tile, len(tiles), tiles.count(JOKER))


def make_hand(concealed: Iterable[Tile], exposures: Iterable[Sequence[Tile]] = (),
              sizes: tuple[int, ...] = (13, 14)) -> Hand:
    """Build and check a hand: no fifth natural, at most eight Flowers and eight Jokers
    ("Four of every tile"), 13 or 14 tiles."""
    counts: dict[Tile, int] = {}
    jokers = 0
    for t in concealed:
        t = american_tile(t)
        if t == JOKER:
            jokers += 1
        elif t < NUM_KINDS or t == FLOWER:
            counts[t] = counts.get(t, 0) + 1
        else:
            raise HandError(tile_name(t), "not a tile of the American set")
    exps = tuple(parse_exposure(e, f"exposure {i + 1}") for i, e in enumerate(exposures))
    totals = dict(counts)
    joker_total = jokers
    for e in exps:
        totals[e.tile] = totals.get(e.tile, 0) + e.size - e.jokers
        joker_total += e.jokers
    for t, n in sorted(totals.items()):
        if n > supply(t):
            what = "Flowers" if t == FLOWER else f"{tile_name(t)} naturals"
            raise HandError(tile_name(t), f"{n} {what}: the set has only {supply(t)} "
                            "(American: four of every tile, eight Flowers)")
    if joker_total > 8:
        raise HandError("J", f"{joker_total} Jokers: the set has only eight")
    hand = Hand(tuple(sorted(counts.items())), jokers, exps)
    if hand.size not in sizes:
        raise HandError("tiles", f"{hand.size} tiles: a hand to check has "
                        f"{' or '.join(map(str, sizes))} (concealed and exposed together)")
    return hand


def parse_hand(tokens: Iterable[str], exposures: Iterable[Iterable[str]] = ()) -> Hand:
    """From tile tokens (contracts.md); errors name the token."""
    concealed = [parse_tile(tok, f"tile {i + 1}") for i, tok in enumerate(tokens)]
    exposed = [[parse_tile(tok, f"exposure {i + 1}, tile {j + 1}") for j, tok in enumerate(e)]
               for i, e in enumerate(exposures)]
    return make_hand(concealed, exposed)


class Match(NamedTuple):
    line: int
    jokerless: bool


def _remainders(exp: Expansion, exposures: tuple[Exposure, ...]) -> list[
        tuple[dict[Tile, int], dict[Tile, int]]]:
    """Ways to lay the exposures onto the line's set groups (same tile and size; a Joker-bearing
    exposure only on a set that takes Jokers). Returns what is left: (nat, jok) per way."""
    results: list[tuple[dict[Tile, int], dict[Tile, int]]] = []
    groups = exp.groups

    def place(i: int, used: frozenset[int], nat: dict[Tile, int], jok: dict[Tile, int]) -> None:
        if i == len(exposures):
            results.append((nat, jok))
            return
        e = exposures[i]
        tried: set[tuple[Tile, int, bool]] = set()
        for gi, g in enumerate(groups):
            if gi in used or g in tried:
                continue
            tile, size, jokerable = g
            if tile != e.tile or size != e.size or (e.jokers and not jokerable):
                continue
            tried.add(g)
            nat2, jok2 = dict(nat), dict(jok)
            pool = jok2 if jokerable else nat2
            pool[tile] -= size
            place(i + 1, used | {gi}, nat2, jok2)

    place(0, frozenset(), dict(exp.nat), dict(exp.jok))
    return results


def _complete_with(hand: Hand, nat: dict[Tile, int], jok: dict[Tile, int]) -> bool:
    held = dict(hand.concealed)
    for t in held.keys() | nat.keys() | jok.keys():
        h, n = held.get(t, 0), nat.get(t, 0)
        if not n <= h <= n + jok.get(t, 0):
            return False
    return True


def _kept_with(hand: Hand, nat: dict[Tile, int], jok: dict[Tile, int]) -> int:
    held = dict(hand.concealed)
    kept = 0
    spare = 0
    for t in nat.keys() | jok.keys():
        need_nat, need_jok = nat.get(t, 0), jok.get(t, 0)
        k = min(held.get(t, 0), need_nat + need_jok)
        kept += k
        spare += need_jok - max(0, k - need_nat)
    return kept + min(hand.jokers, spare)


_FIELD_MASK = (1 << FIELD) - 1
_SLOW = -1


def _exposure_counts(hand: Hand) -> dict[tuple[Tile, int], int]:
    counts: dict[tuple[Tile, int], int] = {}
    for e in hand.exposures:
        counts[(e.tile, e.size)] = counts.get((e.tile, e.size), 0) + 1
    return counts


def _laid(exp: Expansion, need: int, counts: dict[tuple[Tile, int], int]) -> tuple[
        int, int] | int | None:
    """The requirement code left once the exposures lie on the line's Joker-taking set groups
    of the same tile and size, and how many tiles they took; ``None`` if they do not fit;
    ``_SLOW`` when a naturals-only set of that tile and size also exists (then the exact
    search of :func:`_remainders` decides)."""
    removed = 0
    for (tile, size), k in counts.items():
        available = 0
        for g_tile, g_size, g_jokers in exp.groups:
            if g_tile == tile and g_size == size:
                if not g_jokers:
                    return _SLOW
                available += 1
        if available < k:
            return None
        shift = FIELD * tile_slot(tile)
        left = ((need >> shift) & _FIELD_MASK).bit_count() - size * k
        need = (need & ~(_FIELD_MASK << shift)) | (((1 << left) - 1) << shift)
        removed += size * k
    return need, removed


def matches(card: CompiledCard, hand: Hand) -> list[Match]:
    """Every line a 14-tile hand completes, in card order, each once."""
    if hand.size != 14:
        return []
    held = therm(hand.concealed)
    jokerless = hand.total_jokers == 0
    found: dict[int, bool] = {}
    lines = card.lines
    if not hand.exposures:
        for i, (nat, need) in enumerate(zip(card.nat_code, card.need_code, strict=True)):
            if not held & ~need and not nat & ~held:
                exp = card.expansions[i]
                found[exp.line] = found.get(exp.line, False) or (jokerless and exp.jokerable)
    else:
        exposed = dict(hand.concealed)
        for e in hand.exposures:
            exposed[e.tile] = exposed.get(e.tile, 0) + e.size
        upper = therm(exposed)
        counts = _exposure_counts(hand)
        for i, need in enumerate(card.need_code):
            if upper & ~need:
                continue
            exp = card.expansions[i]
            if lines[exp.line].concealed:
                continue  # C lines take no exposure (American, "What concealed means")
            laid = _laid(exp, need, counts)
            if laid is None:
                continue
            if laid == _SLOW:
                complete = any(_complete_with(hand, nat, jok)
                               for nat, jok in _remainders(exp, hand.exposures))
            else:
                assert isinstance(laid, tuple)
                rest = laid[0]
                complete = not held & ~rest and not card.nat_code[i] & ~held
            if complete:
                found[exp.line] = found.get(exp.line, False) or (jokerless and exp.jokerable)
    return [Match(line, found[line]) for line in sorted(found)]


def tiles_away(card: CompiledCard, hand: Hand) -> list[tuple[int, int]]:
    """(line, tiles away) for every line the exposures can fit, fewest first, then card
    order."""
    return [(line, away) for line, away, _ in nearest_expansions(card, hand)]


def nearest_expansions(card: CompiledCard, hand: Hand) -> list[tuple[int, int, int]]:
    """(line, tiles away, the expansion nearest the hand, or -1 with exposures) as
    :func:`tiles_away` orders them."""
    best: dict[int, int] = {}
    nearest: dict[int, int] = {}
    if not hand.exposures:
        held = therm(hand.concealed)
        jokers = hand.jokers
        for i, (line, nat, need, jok_total) in enumerate(zip(
                card.line_of, card.nat_code, card.need_code, card.jok_total, strict=True)):
            kept_code = held & need
            spare = jok_total - (kept_code & ~nat).bit_count()
            kept = kept_code.bit_count() + (jokers if jokers < spare else spare)
            if kept > best.get(line, -1):
                best[line] = kept
                nearest[line] = i
    else:
        exposed_size = sum(e.size for e in hand.exposures)
        exposed: dict[Tile, int] = {}
        for e in hand.exposures:
            exposed[e.tile] = exposed.get(e.tile, 0) + e.size
        upper = therm(exposed)
        counts = _exposure_counts(hand)
        held = therm(hand.concealed)
        jokers = hand.jokers
        for i, need in enumerate(card.need_code):
            if upper & ~need:
                continue
            exp = card.expansions[i]
            if card.lines[exp.line].concealed:
                continue
            laid = _laid(exp, need, counts)
            if laid is None:
                continue
            if laid == _SLOW:
                ways = _remainders(exp, hand.exposures)
                if not ways:
                    continue
                kept = max(exposed_size + _kept_with(hand, rest_nat, rest_jok)
                           for rest_nat, rest_jok in ways)
            else:
                assert isinstance(laid, tuple)
                rest, removed = laid
                kept_code = held & rest
                spare = card.jok_total[i] - removed - (kept_code & ~card.nat_code[i]).bit_count()
                kept = exposed_size + kept_code.bit_count() + (jokers if jokers < spare else spare)
            if kept > best.get(exp.line, -1):
                best[exp.line] = kept
    return sorted(((line, 14 - kept, nearest.get(line, -1)) for line, kept in best.items()),
                  key=lambda x: (x[1], x[0]))


def check(card: CompiledCard, hand: Hand, table: Sequence[Exposure] = ()) -> dict[str, object]:
    """The `mjtable card check` answer (contracts.md), with what each close line still
    ``needs`` and the Jokers the player could take in exchange (``table``: the other players'
    exposures)."""
    from engine.american.needs import exchangeable_jokers, needs_json

    found = matches(card, hand)
    nearest = nearest_expansions(card, hand)
    away = [(line, n) for line, n, _ in nearest]
    wanted = needs_json(card, hand, nearest)
    return {
        "complete": bool(found),
        "matches": [{"line": card.lines[m.line].id, "points": card.lines[m.line].points,
                     "concealed": card.lines[m.line].concealed, "jokerless": m.jokerless}
                    for m in found],
        "closest": [{"line": card.lines[line].id, "tiles_away": n, **wanted.get(line, {})}
                    for line, n in away],
        "jokers_exchangeable": exchangeable_jokers(hand, table),
    }


class Target(NamedTuple):
    """The completion of one expansion nearest to a hand: what is still wanted, per tile,
    after the exposures are laid on their groups."""

    expansion: int
    line: int
    tiles_away: int
    nat: dict[Tile, int]  # joker-proof demand left for the concealed part
    jok: dict[Tile, int]  # demand a Joker may fill

    def need(self, tile: Tile) -> int:
        return self.nat.get(tile, 0) + self.jok.get(tile, 0)


def closest(card: CompiledCard, hand: Hand, allow_concealed: bool = True) -> Target | None:
    """The single nearest completion (fewest tiles away; earliest on the card among equals).
    ``allow_concealed=False`` skips C lines (a player who means to call for an exposure)."""
    best: tuple[int, int, dict[Tile, int], dict[Tile, int]] | None = None
    best_kept = -1
    held = therm(hand.concealed)
    exposed_size = sum(e.size for e in hand.exposures)
    exposed: dict[Tile, int] = {}
    for e in hand.exposures:
        exposed[e.tile] = exposed.get(e.tile, 0) + e.size
    upper = therm(exposed)
    for i, need in enumerate(card.need_code):
        line = card.line_of[i]
        if card.lines[line].concealed and (hand.exposures or not allow_concealed):
            continue
        if not hand.exposures:
            nat = card.nat_code[i]
            kept_code = held & need
            spare = card.jok_total[i] - (kept_code & ~nat).bit_count()
            kept = kept_code.bit_count() + min(hand.jokers, spare)
            if kept > best_kept:
                exp = card.expansions[i]
                best_kept, best = kept, (i, line, dict(exp.nat), dict(exp.jok))
            continue
        if upper & ~need:
            continue
        for rest_nat, rest_jok in _remainders(card.expansions[i], hand.exposures):
            kept = exposed_size + _kept_with(hand, rest_nat, rest_jok)
            if kept > best_kept:
                best_kept, best = kept, (i, line, rest_nat, rest_jok)
    if best is None:
        return None
    index, line_index, want_nat, want_jok = best
    return Target(index, line_index, 14 - best_kept, want_nat, want_jok)


def exposures_fit(card: CompiledCard, exposures: tuple[Exposure, ...],
                  concealed_lines: bool = False) -> bool:
    """Do these exposures fit some exposed line of the card (DH-2 (d), K-4)? With
    ``concealed_lines``, the groups of some C line instead (the evidence of DH-2 (f))."""
    exposed: dict[Tile, int] = {}
    for e in exposures:
        exposed[e.tile] = exposed.get(e.tile, 0) + e.size
    upper = therm(exposed)
    for i, need in enumerate(card.need_code):
        if upper & ~need or card.lines[card.line_of[i]].concealed != concealed_lines:
            continue
        if _remainders(card.expansions[i], exposures):
            return True
    return False


def unwinnable(card: CompiledCard, exposures: tuple[Exposure, ...], visible: dict[Tile, int],
               literal: bool = False) -> bool:
    """DH-2 (e): for every exposed line the exposures fit, some joker-proof tile still needed
    cannot be had: more are needed than remain unseen (the physical reading), or, with
    ``literal``, three or more of the four are already discarded or exposed. ``visible`` counts
    naturals in the discards and in every exposure on the table. Only an exposed hand can be
    judged (DH-3)."""
    if not exposures:
        return False
    exposed: dict[Tile, int] = {}
    for e in exposures:
        exposed[e.tile] = exposed.get(e.tile, 0) + e.size
    upper = therm(exposed)
    for i, need in enumerate(card.need_code):
        if upper & ~need or card.lines[card.line_of[i]].concealed:
            continue
        for nat, _ in _remainders(card.expansions[i], exposures):
            blocked = False
            for t, n in nat.items():
                if n <= 0:
                    continue
                seen = visible.get(t, 0)
                if n > supply(t) - seen or (literal and t != FLOWER and seen >= 3):
                    blocked = True
                    break
            if not blocked:
                return False
    return True
