"""Mah-jongg: by draw, on a discard or by robbing a kong, and checking the hand shown
(Laws 44-49, 75-76, 80, 86; Pung-Chow E; the entry requirements of ``engine.qualify``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import commands as cm
from engine import events as ev
from engine.checks import check_tile, own_turn_after_draw, refuse
from engine.claims import completes_without_chow, may_chow_to_win
from engine.errors import MalformedInput
from engine.hands import is_complete
from engine.qualify import has_a_double, is_cleared, limit_hand
from engine.seats import Seat
from engine.state import HandState
from engine.tiles import NUM_KINDS, Tile, copies_in_set, tile_name


def decide_mahjong(state: HandState, c: cm.DeclareMahjong) -> list[ev.Event]:
    seat = c.seat
    s = state.seats[seat]
    rules = state.ruleset
    discarder: Seat | None = None
    context: list[str] = []
    if state.phase == "award" and state.award is not None and state.award[0] == seat:
        if state.award[1] != "mahjong":
            raise refuse(state, "set_tiles", f"{seat} claimed a {state.award[1]}: lay the set")
        by = state.award_by
        if by == "robbed_kong":
            assert state.rob is not None
            win_tile, discarder = state.rob
        else:
            assert state.claimable is not None
            win_tile, discarder = state.claimable
            if state.discards_made == 1 and discarder == Seat.E:
                context.append("earth")
            if state.last_available_drawn:
                context.append("last_discard")
        claimed = True
    elif state.phase in ("claims", "rob") or (state.phase == "play" and state.claimable
                                              and seat != state.turn):
        raise refuse(state, "mahjong_claim",
                  f"{seat} must call for the tile (a Mah-jongg claim) before showing the hand")
    else:
        own_turn_after_draw(state, seat, "mahjong", "declare Mah-jongg")
        if state.first_discard_done and not state.drew:
            raise refuse(state, "mahjong",
                      f"{seat} took a discard for a set: Mah-jongg needs a draw or a claim")
        by = "loose_tile" if state.drew_loose else "wall"
        claimed = False
        if not state.first_discard_done and seat == Seat.E:
            context.append("heaven")
        elif by == "wall" and state.last_available_drawn:
            context.append("last_tile")
        win_tile = c.tile if c.tile is not None else s.last_drawn  # type: ignore[assignment]
    # The hand shown.
    if c.concealed is not None:
        for i, t in enumerate(c.concealed):
            check_tile(t, f"concealed[{i}]")
    if c.tile is not None:
        check_tile(c.tile, "tile")
    if state.mode == "full":
        held = state.concealed_tiles(seat) + ([win_tile] if claimed else [])
        if c.concealed is not None and sorted(c.concealed) != sorted(held):
            raise MalformedInput("concealed", f"{seat} does not hold "
                                 f"{' '.join(tile_name(t) for t in sorted(c.concealed))}")
        shown = sorted(held)
    else:
        if c.concealed is None:
            raise MalformedInput("concealed", "the hand must be shown to Mah-jongg (Law 80)")
        shown = sorted(c.concealed)
        for i, t in enumerate(shown):
            check_tile(t, f"concealed[{i}]")
    if win_tile is None:
        if state.mode == "mirror":
            raise MalformedInput("tile", "the winning tile must be named (stood on end, Law 80)")
        win_tile = shown[-1]
    problem = win_problem(state, seat, shown, win_tile, claimed, discarder, by, context)
    if problem is None and claimed and by == "discard" and rules.sequence_mahjong_is_chow:
        problem = outranked_as_a_chow(state, seat, shown, win_tile)
    if problem is not None:
        false_rule, reason = problem
        stays = rules.east_may_stay(len(state.players)) and seat != Seat.E
        return [
            ev.FalseMahjong(seat=seat, concealed=tuple(shown), reason=reason, rule=false_rule,
                            tile=win_tile),
            ev.HandEnded(result="false_mahjong", winner=None, rule=rules.rule("false_mahjong"),
                         east_stays=stays),
        ]
    stays = rules.east_may_stay(len(state.players)) and seat == Seat.E
    return [
        ev.MahjongDeclared(seat=seat, concealed=tuple(shown), win_tile=win_tile, by=by,
                           discarder=discarder, context=tuple(context)),
        ev.HandEnded(result="mahjong", winner=seat, rule=rules.rule("mahjong"),
                     east_stays=stays),
    ]


def win_problem(
    state: HandState,
    seat: Seat,
    shown: list[Tile],
    win_tile: Tile,
    claimed: bool,
    discarder: Seat | None,
    by: str,
    context: Sequence[str] = (),
) -> tuple[str, str] | None:
    """Why showing ``shown`` (sorted, the winning tile included) is not a Mah-jongg:
    ``(rule, reason)``, or ``None`` for a valid win. Raises ``RuleViolation`` only for a hand
    the table cannot hold (a fifth copy)."""
    rules = state.ruleset
    s = state.seats[seat]
    expected = s.n + (1 if claimed else 0)
    if s.fault in ("short", "foul"):
        return rules.rule("no_mahjong_short_foul"), f"a {s.fault} hand"
    if s.fault == "long":
        return rules.rule("no_mahjong_long"), "a long hand"
    if len(shown) != expected:
        return rules.rule("long_short"), f"{len(shown)} tiles shown, {expected} held"
    if not all(0 <= t < NUM_KINDS for t in shown) or win_tile not in shown:
        return rules.rule("mahjong"), "the winning tile is not in the hand shown"
    if state.mode == "mirror":
        counts = [0] * 44
        for t in shown:
            counts[t] += 1
        if claimed:
            counts[win_tile] -= 1  # already face up
        for t, n in enumerate(counts):
            if n and state.seen[t] + n > copies_in_set(t, rules.tiles):
                raise refuse(state, "count", f"the hand shows a fifth {tile_name(t)}")
    melds = len(s.melds)
    if not is_complete(shown, melds, rules.specials):
        return rules.rule("false_mahjong"), "the hand is not complete"
    if (claimed and by == "discard" and discarder is not None
            and not may_chow_to_win(state, seat, discarder)
            and not completes_without_chow(shown, melds, win_tile, rules)):
        if len(state.players) == 2 and not rules.two_hand_chow:
            return (rules.rule("two_hand"), "the discard completes only a sequence, and a "
                    "discard cannot be chowed in the two-hand game")
        return (rules.rule("chow_left"),
                "the discard completes only a sequence, and only the next player may chow")
    ctx = [*context, by]
    if rules.qualification == "any":
        return None
    limit = limit_hand(s.melds, shown, ctx)
    if limit is not None:
        return None
    if rules.qualification == "cleared" and not is_cleared(
        shown + [t for m in s.melds for t in m.tiles]
    ):
        return rules.rule("qualify_cleared"), "the hand is not cleared"
    if rules.qualification == "one_double" and not has_a_double(
        s.melds, shown, seat, state.prevailing, ctx
    ):
        return rules.rule("qualify_one_double"), "the hand scores no double"
    return None


def outranked_as_a_chow(state: HandState, seat: Seat, shown: list[Tile],
                       win_tile: Tile) -> tuple[str, str] | None:
    """Harr F rule 4 at the showing (a mirror learns the hand only now): a Mah-jongg called
    as a pung that took the discard over another player's pung or kong, but which the tile
    completes only as a sequence, was a chow, and the pung had precedence: a false call."""
    closed: ev.ClaimsClosed | None = None
    made: ev.ClaimMade | None = None
    for e in reversed(state.standing):
        if closed is None and isinstance(e, ev.ClaimsClosed):
            closed = e
        elif closed is not None and isinstance(e, ev.ClaimMade) and e.seat == seat:
            made = e
            break
    if closed is None or made is None or closed.winner != seat or made.into_sequence:
        return None
    rivals = [c.split(":")[0] for c in closed.claims if c.split(":")[1] in ("pung", "kong")]
    melds = len(state.seats[seat].melds)
    if not rivals or completes_without_chow(shown, melds, win_tile, state.ruleset):
        return None
    return (state.ruleset.rule("pung_over_chow"),
            f"the discard completes only a sequence (a chow), and {rivals[0]}'s pung of it had "
            "precedence")


def can_win(state: HandState, seat: Seat, tile: Tile | None = None) -> bool:
    """Full mode: would ``seat`` go out validly now, on its own hand (``tile=None``) or on the
    live discard / robbable tile ``tile``? For bots; the engine decides by ``apply``."""
    held = state.concealed_tiles(seat)
    s = state.seats[seat]
    if tile is None:
        if len(held) + 3 * len(s.melds) != 14:
            return False
        win = s.last_drawn if s.last_drawn is not None else held[-1]
        by = "loose_tile" if state.drew_loose else "wall"
        ctx = ["heaven"] if not state.first_discard_done else []
        if state.last_available_drawn and by == "wall":
            ctx.append("last_tile")
        return win_problem(state, seat, held, win, False, None, by, ctx) is None
    shown = sorted([*held, tile])
    if state.phase == "rob" and state.rob is not None:
        return win_problem(state, seat, shown, tile, True, state.rob[1], "robbed_kong") is None
    discarder = state.claimable[1] if state.claimable else None
    ctx = ["last_discard"] if state.last_available_drawn else []
    return win_problem(state, seat, shown, tile, True, discarder, "discard", ctx) is None


DECIDERS: dict[type[cm.Command], Callable[[HandState, Any], list[ev.Event]]] = {
    cm.DeclareMahjong: decide_mahjong,
}
