"""Deciding the commands of a player's turn: the throws and the deal (Laws 14-17), drawing
(live and loose), flowers (Laws 22-24), discarding, kongs from the hand (Laws 40-42) and a
referee's record of a fault (Laws 58, 71-76). Each returns the events or refuses."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import commands as cm
from engine import events as ev
from engine.checks import (
    check_tile,
    check_time,
    ending_if_no_loose,
    need_holds,
    no_loose_owed,
    own_turn_after_draw,
    refuse,
    seat_turn,
)
from engine.errors import MalformedInput
from engine.seats import SEATS, Seat
from engine.state import HandState
from engine.tiles import NUM_KINDS, ORPHANS, Tile, copies_in_set, is_bonus, tile_name
from engine.wall import break_point, breaker, deal_sizes, second_thrower


def decide_throw(state: HandState, c: cm.Throw) -> list[ev.Event]:
    if state.phase != "break":
        raise refuse(state, "break_first", "the wall is already broken")
    dice = c.dice
    if len(dice) != 2 or any(not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise MalformedInput("dice", f"two dice of 1 to 6, not {list(dice)}")
    total = dice[0] + dice[1]
    dummies = state.ruleset.dummy_walls
    counted = SEATS if dummies else state.players  # Harr: the dummy walls count too
    if not state.throws:
        if c.seat != Seat.E:
            raise refuse(state, "break_first", f"East throws first, not {c.seat}")
        selected = breaker(total, counted)
        return [ev.DiceThrown(seat=c.seat, dice=tuple(dice), selects=int(selected))]
    _first_seat, first_total = state.throws[0]
    who = second_thrower(first_total, state.players, dummies)
    if c.seat != who:
        selected = breaker(first_total, counted)
        for_dummy = "" if selected == who else f" (for the dummy {selected})"
        raise refuse(state, "break_second", f"East threw {first_total}, which selects {who} "
                     f"to throw next{for_dummy}, not {c.seat}")
    wall_of, stack = break_point(first_total, total, state.ruleset.stacks_per_wall, counted)
    return [
        ev.DiceThrown(seat=c.seat, dice=tuple(dice), selects=stack),
        ev.WallBroken(wall_of=wall_of, stack=stack, total=first_total + total),
    ]


def decide_deal(state: HandState, c: cm.Deal) -> list[ev.Event]:
    if state.phase != "deal":
        what = "the wall is not broken yet" if state.phase == "break" else "already dealt"
        raise refuse(state, "deal", f"cannot deal: {what}")
    players = state.players
    expected = [0, 0, 0, 0]
    for seat, n in deal_sizes(players):
        expected[seat] += n
    counts = list(expected)
    if c.counts is not None:
        names = " ".join(s.name for s in players)
        if len(c.counts) != len(players) or any(
            not isinstance(n, int) or n < 0 for n in c.counts
        ):
            raise MalformedInput("counts", f"one tile count per player ({names}), "
                                 f"not {list(c.counts)}")
        for seat, n in zip(players, c.counts, strict=True):
            counts[seat] = n
        if state.mode == "full" and counts != expected:
            raise refuse(state, "deal", f"the deal gives {[expected[p] for p in players]}, "
                      f"not {list(c.counts)}")
        if sum(counts) > state.remaining:
            raise MalformedInput("counts", f"{sum(counts)} tiles dealt from a wall of "
                                 f"{state.remaining}")
    events: list[ev.Event] = []
    hands: list[list[Tile]] = [[], [], [], []]
    if state.mode == "full":
        assert state.wall is not None
        pos = state.front
        for seat, n in deal_sizes(players):
            hands[seat].extend(state.wall[pos : pos + n])
            pos += n
    for seat in players:
        tiles = tuple(sorted(hands[seat])) if state.mode == "full" else None
        events.append(ev.Dealt(seat=seat, count=counts[seat], tiles=tiles))
    for seat in players:
        if counts[seat] != expected[seat]:
            fault = "long" if counts[seat] > expected[seat] else "short"
            events.append(ev.FaultRecorded(seat=seat, fault=fault,
                                           rule=state.ruleset.rule("long_short")))
    return events


# -- drawing, flowers, discarding ----------------------------------------------------------


def decide_draw(state: HandState, c: cm.Draw) -> list[ev.Event]:
    seat = c.seat
    s = state.seats[seat]
    if c.tile is not None:
        check_tile(c.tile, "tile")
    if state.phase in ("break", "deal"):
        raise refuse(state, "deal", "no draw before the deal")
    if s.owed_loose:
        if state.phase == "rob":
            raise refuse(state, "rob_kong",
                      f"the kong of {tile_name(state.rob[0]) if state.rob else '?'} may be "
                      "robbed: close the claims before the loose tile is drawn")
        if state.loose_left() <= 0:
            raise refuse(state, "dead_wall", "no loose tile is left")
        tile = None
        if state.mode == "full":
            assert state.wall is not None
            tile = state.wall[state.back - 1]
            if c.tile is not None and c.tile != tile:
                raise refuse(state, "draw_turn",
                          f"the next loose tile is {tile_name(tile)}, not {tile_name(c.tile)}")
        else:
            tile = c.tile
        return [ev.Drew(seat=seat, loose=True, tile=tile, time_us=check_time(c.time_us))]
    if state.phase not in ("play", "claims"):
        raise refuse(state, "draw_turn", f"{seat} may not draw now ({state.phase})")
    owing = [Seat(i) for i, t in enumerate(state.seats) if t.owed_loose]
    if owing:
        raise refuse(state, "flowers", f"{owing[0]} must first draw its loose tile")
    if seat != state.turn or not state.need_draw:
        if seat == state.turn:
            raise refuse(state, "draw_turn", f"{seat} has already drawn or taken a discard")
        raise refuse(state, "draw_turn", f"{seat} drew out of turn: it is {state.turn}'s turn")
    if state.phase == "claims" and state.claims:
        raise refuse(state, "late_claim",
                  f"calls on {tile_name(state.claimable[0]) if state.claimable else '?'} are "
                  "pending: close the claims before the next draw")
    if state.live_left() <= 0:
        raise refuse(state, "dead_wall", "the last available tile has been drawn")
    tile = None
    if state.mode == "full":
        assert state.wall is not None
        tile = state.wall[state.front]
        if c.tile is not None and c.tile != tile:
            raise refuse(state, "draw_turn",
                      f"the next tile in the wall is {tile_name(tile)}, not {tile_name(c.tile)}")
    else:
        tile = c.tile
        if tile is not None and state.seen[tile] >= copies_in_set(tile, state.ruleset.tiles):
            raise refuse(state, "count", f"a fifth {tile_name(tile)}: all copies are face up")
    return [ev.Drew(seat=seat, loose=False, tile=tile, time_us=check_time(c.time_us))]


def decide_ground_flower(state: HandState, c: cm.GroundFlower) -> list[ev.Event]:
    seat, tile = c.seat, check_tile(c.tile, "tile")
    if not state.ruleset.flowers:
        raise refuse(state, "flowers", "this game is played without flowers")
    if not is_bonus(tile):
        raise refuse(state, "flowers", f"{tile_name(tile)} is not a flower or season")
    if state.phase != "play":
        raise refuse(state, "flowers", f"a flower is grounded in play, not now ({state.phase})")
    if state.first_discard_done:
        seat_turn(state, seat, "flowers", "ground a flower")
        if state.need_draw:
            raise refuse(state, "flowers", f"{seat} must draw before grounding a flower")
        s = state.seats[seat]
        if s.discarded and s.last_drawn is not None and s.last_drawn != tile:
            # Law 23: an original flower not shown before the first discard stays unreplaced.
            raise refuse(state, "flower_short", f"{seat} kept {tile_name(tile)} past its first "
                         "discard: it may no longer be replaced, and the hand is short")
    if state.seen[tile]:
        raise refuse(state, "count", f"{tile_name(tile)} is already grounded")
    need_holds(state, seat, tile, 1, "flowers", "to ground")
    events: list[ev.Event] = [ev.FlowerGrounded(seat=seat, tile=tile,
                                                  time_us=check_time(c.time_us))]
    return events + ending_if_no_loose(state)


def decide_discard(state: HandState, c: cm.Discard) -> list[ev.Event]:
    seat, tile = c.seat, check_tile(c.tile, "tile")
    if state.phase not in ("play",):
        raise refuse(state, "turn", f"{seat} may not discard now ({state.phase})")
    if not state.first_discard_done and seat != Seat.E:
        raise refuse(state, "first_discard", f"East discards first, not {seat}")
    seat_turn(state, seat, "turn", "discard")
    if state.need_draw:
        raise refuse(state, "discard_before_draw", f"{seat} must draw before discarding")
    no_loose_owed(state, seat, "discard")
    owing = [Seat(i) for i, t in enumerate(state.seats) if t.owed_loose]
    if owing:
        raise refuse(state, "flowers", f"{owing[0]} must first draw its loose tile")
    if state.ruleset.flowers and is_bonus(tile):
        raise refuse(state, "flower_short", f"a flower cannot be discarded ({tile_name(tile)})")
    need_holds(state, seat, tile, 1, "turn", "to discard")
    events: list[ev.Event] = [ev.Discarded(seat=seat, tile=tile,
                                             time_us=check_time(c.time_us))]
    s = state.seats[seat]
    if state.mode == "full" and not s.discarded and any(s.concealed[34:42]) and not s.fault:
        events.append(ev.FaultRecorded(seat=seat, fault="short",
                                       rule=state.ruleset.rule("flower_short"),
                                       reason="a flower not grounded before the first discard"))
    return events




def decide_declare_kong(state: HandState, c: cm.DeclareKong) -> list[ev.Event]:
    seat, tile = c.seat, check_tile(c.tile, "tile")
    before_play = not state.first_discard_done
    if before_play and state.phase == "play":
        # Law 24: a Four in the original hand may be grounded in the turn to replace flowers.
        no_loose_owed(state, seat, "ground a Four")
    else:
        own_turn_after_draw(state, seat, "concealed_kong", "declare a concealed kong")
        if not state.drew:
            raise refuse(state, "concealed_kong",
                      "a concealed Four is grounded only immediately after drawing")
    if tile >= NUM_KINDS:
        raise refuse(state, "concealed_kong", f"{tile_name(tile)} makes no set")
    if state.mode == "full":
        need_holds(state, seat, tile, 4, "concealed_kong", "for a concealed Four")
    elif state.seen[tile] or state.seats[seat].n < 4:
        raise refuse(state, "count", f"{seat} cannot hold four {tile_name(tile)}: "
                  f"{state.seen[tile]} face up elsewhere, {state.seats[seat].n} held")
    return [ev.KongDeclared(seat=seat, tile=tile, time_us=check_time(c.time_us))] \
        + ending_if_no_loose(state)


def decide_add_kong(state: HandState, c: cm.AddKong) -> list[ev.Event]:
    seat, tile = c.seat, check_tile(c.tile, "tile")
    own_turn_after_draw(state, seat, "add_kong", "add to a grounded pung")
    if not state.drew:
        raise refuse(state, "kong_after_draw",
                  "the fourth tile may be added to a grounded triplet only after drawing")
    if not any(m.kind == "pung" and m.tiles[0] == tile for m in state.seats[seat].melds):
        raise refuse(state, "add_kong", f"{seat} has no grounded triplet of {tile_name(tile)}")
    need_holds(state, seat, tile, 1, "add_kong", "to add")
    events: list[ev.Event] = [ev.KongAdded(seat=seat, tile=tile,
                                             time_us=check_time(c.time_us))]
    if not state.ruleset.robbing_kong:
        events += ending_if_no_loose(state)
    return events



def decide_record_fault(state: HandState, c: cm.RecordFault) -> list[ev.Event]:
    if c.fault not in ("long", "short", "foul"):
        raise MalformedInput("fault", f"a fault is long, short or foul, not {c.fault!r}")
    if c.seat not in state.players:
        raise MalformedInput("seat", f"{c.seat} has no player in this game")
    if state.phase in ("break", "deal"):
        raise refuse(state, "long_short", "a fault is recorded once the hands are dealt")
    key = "foul" if c.fault == "foul" else "long_short"
    return [ev.FaultRecorded(seat=c.seat, fault=c.fault, rule=state.ruleset.rule(key),
                             reason=c.reason, referee=True)]


def heads_in(tiles: Sequence[Tile]) -> int:
    """Different Heads (ones, nines, Winds, Dragons) among the tiles (Pung-Chow Part II)."""
    return len({t for t in tiles if t in ORPHANS})


def may_wash(state: HandState, seat: Seat) -> bool:
    """The seat still holds its original hand: no draw, discard or set since the deal."""
    s = state.seats[seat]
    return (state.ruleset.washing and state.phase == "play" and not s.drawn and not s.discarded
            and not s.melds and not s.flowers and s.n == (14 if seat == Seat.E else 13))


def decide_wash(state: HandState, c: cm.WashTiles) -> list[ev.Event]:
    seat = c.seat
    rules = state.ruleset
    if not rules.washing:
        raise refuse(state, "washing", f"{rules.name} does not wash the tiles")
    if not may_wash(state, seat):
        raise refuse(state, "washing", f"{seat} no longer holds the original hand: the tiles "
                     "are washed only on it, and no drawing is permitted")
    if state.mode == "full":
        shown = state.concealed_tiles(seat)
    elif c.concealed is None:
        raise MalformedInput("concealed", "the hand must be shown to wash the tiles")
    else:
        shown = sorted(check_tile(t, f"concealed[{i}]") for i, t in enumerate(c.concealed))
        if len(shown) != state.seats[seat].n:
            raise refuse(state, "washing", f"{len(shown)} tiles shown, the original hand "
                         f"holds {state.seats[seat].n}")
        counts = [0] * 44
        for t in shown:
            counts[t] += 1
        for t, n in enumerate(counts):
            if n and state.seen[t] + n > copies_in_set(t, rules.tiles):
                raise refuse(state, "count", f"the hand shows a fifth {tile_name(t)}")
    heads = heads_in(shown)
    if heads < 9:
        raise refuse(state, "washing", f"{heads} different Heads: washing needs nine or more")
    return [
        ev.TilesWashed(seat=seat, concealed=tuple(shown), heads=heads),
        ev.HandEnded(result="washed", winner=None, rule=rules.rule("washing"), east_stays=True),
    ]


DECIDERS: dict[type[cm.Command], Callable[[HandState, Any], list[ev.Event]]] = {
    cm.WashTiles: decide_wash,
    cm.Throw: decide_throw,
    cm.Deal: decide_deal,
    cm.Draw: decide_draw,
    cm.GroundFlower: decide_ground_flower,
    cm.Discard: decide_discard,
    cm.DeclareKong: decide_declare_kong,
    cm.AddKong: decide_add_kong,
    cm.RecordFault: decide_record_fault,
}
