"""Fixtures for engine tests: a hand dealt from a wall rigged to give chosen tiles."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.commands import Deal, Throw
from engine.game import apply, new_hand
from engine.rules import get_ruleset
from engine.seats import Seat
from engine.state import HandState
from engine.tiles import is_bonus, parse_tiles, tile_set
from engine.wall import deal_for, wall_for

Rig = Callable[..., HandState]

DICE = ((3, 4), (3, 4))  # East throws 7: West breaks, 14 stacks from his right (Law 16)


def rigged(
    ruleset: str = "code1924/mixed",
    hands: dict[str, str] | None = None,
    draws: str = "",
    loose: str = "",
    mode: str = "full",
) -> HandState:
    """A dealt hand (Law 17): ``hands`` maps E/S/W/N to tiles (others filled with suit and
    honour tiles left over), then the live ``draws`` and ``loose`` tiles in order."""
    rules = get_ruleset(ruleset)
    wanted = {seat: parse_tiles(text) for seat, text in (hands or {}).items()}
    pool = tile_set(rules.tiles)
    for tiles in wanted.values():
        for t in tiles:
            pool.remove(t)
    for t in parse_tiles(draws) + parse_tiles(loose):
        pool.remove(t)
    filler = [t for t in pool if not is_bonus(t)]
    # Spread the filler so filled hands hold few pairs or runs: one copy of each kind in a
    # scattered order, then the second copies, and so on.
    seen: dict[int, int] = {}
    keyed = []
    for t in filler:
        seen[t] = seen.get(t, 0) + 1
        keyed.append((seen[t], (t * 7) % 34, t))
    filler = [t for _, _, t in sorted(keyed)]
    full: list[list[int]] = []
    for seat in "ESWN":
        tiles = list(wanted.get(seat, []))
        need = (14 if seat == "E" else 13) - len(tiles)
        tiles += filler[:need]
        del filler[:need]
        full.append(tiles)
    order = deal_for(full, parse_tiles(draws), parse_tiles(loose), tile_set(rules.tiles))
    built = wall_for(order, sum(DICE[0]), sum(DICE[1]), rules.stacks_per_wall)
    if mode == "full":
        state, _ = new_hand(rules, "full", wall=built)
    else:
        state, _ = new_hand(rules, "mirror")
    apply(state, Throw(seat=Seat.E, dice=DICE[0]))
    apply(state, Throw(seat=Seat.W, dice=DICE[1]))
    apply(state, Deal())
    return state


@pytest.fixture
def rig() -> Rig:
    return rigged
