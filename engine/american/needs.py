"""What a hand still needs: the tiles each close line of the card wants, and the Jokers on
the table the player could take in exchange (American J-4, "Joker exchange").

For a line, every way to make it (each expansion, each way to lay the exposures on its
groups) is tried; the one keeping the most tiles is the line's ``tiles_away`` (as in
:func:`engine.american.match.tiles_away`), and what it still wants is listed tile by tile: a
tile a Joker may stand for (a set of three or more like tiles, J-1) is marked so; a single or a
pair must be the natural tile.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from engine.american.compiled import CompiledCard, therm
from engine.american.match import Exposure, Hand, _remainders
from engine.tiles import JOKER, Tile, tile_name


class Need(NamedTuple):
    tiles_away: int
    needs: list[Tile]  # every tile still wanted, one entry per tile
    joker_may_fill: list[Tile]  # the wanted tiles a Joker may stand for
    spare: list[Tile]  # the concealed tiles this completion does not use (Jokers as JOKER)


def _need_for(hand: Hand, nat: dict[Tile, int], jok: dict[Tile, int]) -> tuple[int, Need]:
    """How many tiles this completion keeps, and what it still wants."""
    held = dict(hand.concealed)
    natural_short: list[Tile] = []
    joker_short: list[Tile] = []
    kept = 0
    for t in sorted(nat.keys() | jok.keys()):
        n, j, h = nat.get(t, 0), jok.get(t, 0), held.get(t, 0)
        kept += min(h, n + j)
        natural_short += [t] * max(0, n - h)
        joker_short += [t] * max(0, j - max(0, h - n))
    jokers_used = min(hand.jokers, len(joker_short))
    kept += jokers_used
    joker_short = joker_short[jokers_used:]  # the hand's own Jokers fill the first of these
    needs = sorted(natural_short + joker_short)
    spare = [t for t, h in sorted(held.items())
             for _ in range(h - min(h, nat.get(t, 0) + jok.get(t, 0)))]
    spare += [JOKER] * (hand.jokers - jokers_used)
    return kept, Need(0, needs, sorted(joker_short), spare)


def _expansions_of(card: CompiledCard, line: int) -> range:
    """The expansions of one line: the compiler lays them out line by line."""
    return range(bisect_left(card.line_of, line), bisect_right(card.line_of, line))


def line_needs(card: CompiledCard, hand: Hand, line: int, nearest: int = -1) -> Need | None:
    """The nearest completion of one line: its tiles away and what it still wants (``None``
    when the exposures can never fit it). ``nearest``: that expansion, if already known."""
    if card.lines[line].concealed and hand.exposures:
        return None  # a C line takes no exposure
    if not hand.exposures and nearest >= 0:
        exp = card.expansions[nearest]
        kept, need = _need_for(hand, dict(exp.nat), dict(exp.jok))
        return need._replace(tiles_away=14 - kept)
    if not hand.exposures:
        # the same bit count as tiles_away picks the nearest expansion; only it is spelt out
        held = therm(hand.concealed)
        nearest, most = -1, -1
        for i in _expansions_of(card, line):
            kept_code = held & card.need_code[i]
            spare = card.jok_total[i] - (kept_code & ~card.nat_code[i]).bit_count()
            kept = kept_code.bit_count() + min(hand.jokers, spare)
            if kept > most:
                nearest, most = i, kept
        if nearest < 0:
            return None
        exp = card.expansions[nearest]
        kept, need = _need_for(hand, dict(exp.nat), dict(exp.jok))
        return need._replace(tiles_away=14 - kept)
    exposed_size = sum(e.size for e in hand.exposures)
    best: tuple[int, Need] | None = None
    for i in _expansions_of(card, line):
        for nat, jok in _remainders(card.expansions[i], hand.exposures):
            kept, need = _need_for(hand, nat, jok)
            kept += exposed_size
            if best is None or kept > best[0]:
                best = (kept, need)
    if best is None:
        return None
    kept, need = best
    return need._replace(tiles_away=14 - kept)


def needs_json(card: CompiledCard, hand: Hand, closest: Iterable[tuple[int, int, int]],
               most: int = 10, within: int = 4) -> dict[int, dict[str, object]]:
    """For the close lines (at most ``most``, ``within`` tiles away), what each still needs;
    ``closest`` as :func:`engine.american.match.nearest_expansions` gives it."""
    out: dict[int, dict[str, object]] = {}
    for line, away, nearest in closest:
        if len(out) >= most or away > within:
            break
        if away == 0:
            continue  # complete: nothing to need
        need = line_needs(card, hand, line, nearest)
        if need is None:
            continue
        out[line] = {"needs": [tile_name(t) for t in need.needs],
                     "joker_may_fill": [tile_name(t) for t in need.joker_may_fill],
                     "spare": [tile_name(t) for t in need.spare]}
    return out


def exchangeable_jokers(hand: Hand, table: Sequence[Exposure] = ()) -> list[dict[str, object]]:
    """Each Joker the player could take now: a Joker in an exposure (their own or another
    player's) standing for a natural the player holds concealed (J-6: "a player holding the
    natural tile that a Joker stands for in any exposure on the table ... may swap")."""
    held = dict(hand.concealed)
    out: list[dict[str, object]] = []
    for owner, exposures in (("own", hand.exposures), ("table", tuple(table))):
        for e in exposures:
            if e.jokers and held.get(e.tile, 0):
                out.append({"exposure": str(e), "owner": owner, "give": tile_name(e.tile),
                            "jokers": min(e.jokers, held[e.tile])})
    return out
