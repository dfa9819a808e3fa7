"""Invariants of a hand, checked after every event in simulation (``mjtable play``).

These are independent of the play code: they recount the tiles from the state's lists, so a
bug that moves a tile wrongly, or an event the engine should have refused, shows up here.
"""

from __future__ import annotations

from functools import cache
from operator import add

from engine.state import HandState
from engine.tiles import NUM_TILE_KINDS, copies_in_set, tile_name, tile_set


class InvariantBroken(AssertionError):
    """The state breaks a rule of the physical game: a bug, never bad input."""


def _fail(message: str) -> None:
    raise InvariantBroken(message)


@cache
def _limits(size: int) -> tuple[list[int], list[int]]:
    """Per tile kind, the copies in a set of ``size`` tiles: as the limit for face-up counts,
    and as the full set's counts (computed once per set size, not after every event)."""
    limit = [copies_in_set(t, size) for t in range(NUM_TILE_KINDS)]
    expected = [0] * NUM_TILE_KINDS
    for t in tile_set(size):
        expected[t] += 1
    return limit, expected


def check(state: HandState) -> None:
    """Raise ``InvariantBroken`` if the state is impossible.

    Both modes: the wall bounds, each seat's tile count (13, or 14 for the seat to discard,
    Law 21 and Pung-Chow's "a player must at all times have thirteen tiles"), the face-up
    counts matching the face-up lists, no fifth copy. Full mode also: every tile of the set is
    in exactly one place (wall, a hand, a set, flowers, discards).
    """
    rules = state.ruleset
    if not 0 <= state.front <= state.back <= rules.tiles:
        _fail(f"wall bounds {state.front}..{state.back} of {rules.tiles}")
    public = [0] * NUM_TILE_KINDS
    for seat, s in enumerate(state.seats):
        if s.n < 0 or s.owed_loose < 0:
            _fail(f"seat {seat}: {s.n} concealed, {s.owed_loose} loose owed")
        for m in s.melds:
            for t in m.tiles:
                public[t] += 1
        for t in s.flowers:
            public[t] += 1
        for t in s.discards:
            public[t] += 1
        if seat not in state.players:
            if s.n or s.melds or s.flowers or s.discards:
                _fail(f"seat {seat} has no player but holds tiles")
            continue
        if state.phase in ("break", "deal", "ended") or s.fault:
            continue
        total = s.n + s.owed_loose + 3 * len(s.melds)
        holds_extra = (
            seat == state.turn and not state.need_draw and state.phase in ("play", "rob")
        ) or seat == state.late_drawer or (
            state.phase == "award" and state.rob is not None and seat == state.rob[1]
        )  # a robbable kong's tile is still the adder's until Mah-jongg is shown
        want = 14 if holds_extra else 13
        if total != want:
            _fail(f"seat {seat} holds {s.n} + {s.owed_loose} owed + {len(s.melds)} sets "
                  f"= {total}, not {want} ({state.phase}, turn {state.turn})")
    if state.phase != "ended" and public != state.seen:
        diff = [tile_name(t) for t in range(NUM_TILE_KINDS) if public[t] != state.seen[t]]
        _fail(f"face-up counts disagree for {diff}")
    limit, expected = _limits(rules.tiles)
    if any(map(int.__gt__, state.seen, limit)):  # this runs after every event: in C
        for t in range(NUM_TILE_KINDS):
            if state.seen[t] > limit[t]:
                _fail(f"{state.seen[t]} x {tile_name(t)} face up")
    if state.mode != "full":
        return
    assert state.wall is not None or state.phase == "break"
    where = [0] * NUM_TILE_KINDS
    if state.wall is not None:
        for t in state.wall[state.front : state.back]:
            where[t] += 1
    elif state.built is not None:
        for t in state.built:
            where[t] += 1
    for seat, s in enumerate(state.seats):
        if sum(s.concealed) != s.n:
            _fail(f"seat {seat}: {sum(s.concealed)} tiles in hand, count says {s.n}")
        if min(s.concealed) < 0:
            for t, c in enumerate(s.concealed):
                if c < 0:
                    _fail(f"seat {seat}: {c} x {tile_name(t)}")
        where = list(map(add, where, s.concealed))
    where = list(map(add, where, public))
    if where != expected:
        diff = [f"{tile_name(t)} {where[t]}/{expected[t]}" for t in range(NUM_TILE_KINDS)
                if where[t] != expected[t]]
        _fail(f"tile conservation broken: {diff}")
