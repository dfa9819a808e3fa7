"""Checks shared by the decide functions of ``engine.turns``, ``engine.claims`` and
``engine.mahjong``: the refusal naming its rule, whether a seat holds a tile (full mode) or
could (mirror mode), turn order, and the drawn game when no replacement can come (Law 88)."""

from __future__ import annotations

from typing import Any

from engine import events as ev
from engine.errors import MalformedInput, RuleViolation
from engine.seats import Seat
from engine.state import HandState
from engine.tiles import Tile, copies_in_set, tile_name


def refuse(state: HandState, key: str, message: str) -> RuleViolation:
    """The refusal: the family's citation for ``key``, which is also the stable code."""
    return RuleViolation(state.ruleset.rule(key), message, code=key)

def holds(state: HandState, seat: int, tile: Tile, n: int = 1) -> bool:
    """Full mode: the seat holds ``n`` of ``tile``. Mirror: it could (count and copies)."""
    s = state.seats[seat]
    if state.mode == "full":
        return s.concealed[tile] >= n
    return s.n >= n and state.seen[tile] + n <= copies_in_set(tile, state.ruleset.tiles)


def need_holds(state: HandState, seat: int, tile: Tile, n: int, key: str, what: str) -> None:
    if not holds(state, seat, tile, n):
        if state.mode == "mirror":
            raise refuse(state, "count",
                      f"{Seat(seat)} cannot show {n} x {tile_name(tile)}: "
                      f"{state.seen[tile]} already face up, {state.seats[seat].n} tiles held")
        raise refuse(state, key, f"{Seat(seat)} does not hold {n} x {tile_name(tile)} {what}")


def check_tile(tile: Any, where: str) -> Tile:
    if not isinstance(tile, int) or not 0 <= tile < 44:
        raise MalformedInput(where, f"not a tile: {tile!r}")
    return tile


def check_time(time_us: Any, where: str = "time_us") -> int | None:
    """A board time in microseconds (or ``None``: the table gave none)."""
    if time_us is None or (type(time_us) is int and time_us >= 0):  # not a bool either
        return time_us
    raise MalformedInput(where, f"a board time in microseconds, not {time_us!r}")


def seat_turn(state: HandState, seat: Seat, key: str, doing: str) -> None:
    if seat != state.turn:
        raise refuse(state, key, f"{seat} may not {doing}: it is {state.turn}'s turn")


def no_loose_owed(state: HandState, seat: int, doing: str) -> None:
    if state.seats[seat].owed_loose:
        raise refuse(state, "kong", f"{Seat(seat)} must draw a loose tile before it may {doing}")


def no_replacement(state: HandState) -> bool:
    """Law 88: once the last available tile is drawn, a Flower or a Kong ends the hand (no
    replacement is drawn); before that, only an empty wall does."""
    return state.loose_left() <= 0 or state.last_available_drawn


def ending_if_no_loose(state: HandState) -> list[ev.Event]:
    """Law 88: a replacement owed when none may be drawn ends the hand drawn."""
    if not no_replacement(state):
        return []
    why = ("a flower or a kong after the last available tile" if state.last_available_drawn
           else "no loose tile is left to replace the kong or flower")
    return [drawn_game(state, why)]


def drawn_game(state: HandState, why: str) -> ev.HandEnded:
    """The drawn hand (Law 88; Classical washout). East keeps his seat, except where seats
    rotate every hand (Classical) or the Two-Hand Game changes them "after each game,
    regardless of which player wins"."""
    stays = state.ruleset.east_may_stay(len(state.players))
    return ev.HandEnded(result="drawn", winner=None, rule=state.ruleset.rule("drawn_game"),
                        east_stays=stays, reason=why)


def own_turn_after_draw(state: HandState, seat: Seat, key: str, doing: str) -> None:
    if state.phase != "play":
        raise refuse(state, key, f"{seat} may not {doing} now ({state.phase})")
    seat_turn(state, seat, key, doing)
    if state.need_draw:
        raise refuse(state, key, f"{seat} must draw before it may {doing}")
    no_loose_owed(state, seat, doing)
