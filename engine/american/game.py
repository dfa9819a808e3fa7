"""One American hand: the deal, the Charleston, turns, calls, Joker exchanges, dead hands and
Mah Jongg, adjudicated live (seed 002; rule codes as the seed cites them, see american.md).

``apply(state, command)`` checks a command completely before changing anything, then returns
the events it caused; a command the rules forbid raises ``RuleViolation`` naming its rule.
Faults that the book punishes with a dead hand (DH-2 (a)-(n)) are *not* refused: they happen
at a real table, so the engine records them as private evidence and the hand is quietly dead
(DH-4). Only the table calls a hand dead (DH-1): a ``Challenge`` is upheld at once on visible
evidence (DH-3), otherwise it stands disputed and is settled when the tiles are shown (DH-6).
The engine never reveals a concealed hand.

Modes: ``full`` (the engine knows every tile: simulation and bots) and ``mirror`` (a real
table: the camera sees exposures, discards and counts; concealed faces only at Mah Jongg).

The Charleston lives in :mod:`engine.american.charleston`, dead hands and challenges in
:mod:`engine.american.dead`, Mah Jongg and the end of a hand in :mod:`engine.american.mahjong`,
the views and invariants in :mod:`engine.american.views`, the state in
:mod:`engine.american.state`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.american import commands as cm
from engine.american import events as ev
from engine.american.charleston import charleston_pass, courtesy_offer, courtesy_pass, vote
from engine.american.compiled import CompiledCard
from engine.american.dead import (
    challenge,
    check_exposed_hands,
    concede,
    observed,
    record,
    throw_in,
)
from engine.american.events import AmericanEvent
from engine.american.mahjong import declare_mahjong, place_bet, retract, wall_game, withdraw_call
from engine.american.match import american_tile
from engine.american.payments import (
    payment_options,
)
from engine.american.state import (
    FIRST_CHARLESTON,
    STACKS,
    AmericanHand,
    AmericanOptions,
    Evidence,
    ExposedSet,
    Live,
    Rack,
    check_holds,
    ensure_playing,
    player_seats,
    refuse,
    remove_tiles,
)
from engine.american.views import check_invariants, digest, public_view, seat_view
from engine.commands import Command
from engine.errors import MalformedInput
from engine.seats import SEATS, Seat
from engine.tiles import JOKER, Tile, tile_name, tile_set

__all__ = ["STACKS", "AmericanHand", "AmericanOptions", "Evidence", "ExposedSet", "Live", "Rack",
           "adjudicate", "american_set", "apply", "check_invariants", "deal_from", "digest",
           "new_hand", "player_seats", "public_view", "seat_view"]

# -- the deal --------------------------------------------------------------------------------------

def american_set() -> list[Tile]:
    """152 tiles: the eight bonus tiles are all Flowers (seed "The 152 tiles")."""
    return tile_set(152)


def deal_from(wall: Sequence[Tile], dice: int, players: tuple[Seat, ...]) -> tuple[
        dict[Seat, list[Tile]], list[Tile]]:
    """Break and deal ("Breaking the wall", "The deal"). ``wall`` is the tiles as built, East's
    wall first then North's, West's, South's (the order the walls are consumed), each as
    nineteen (top, bottom) stacks from its right end. The ``dice`` stacks at the right of
    East's wall are drawn last."""
    stacks = [(wall[2 * i], wall[2 * i + 1]) for i in range(len(wall) // 2)]
    order = stacks[dice:] + stacks[:dice]
    flat = [t for s in order for t in s]
    hands: dict[Seat, list[Tile]] = {s: [] for s in players}
    pos = 0
    for _ in range(3):
        for seat in players:
            hands[seat] += flat[pos:pos + 4]
            pos += 4
    # East takes the first and third top tiles; then one each: first bottom, next top, next
    # bottom, around the table.
    hands[Seat.E] += [flat[pos], flat[pos + 4]]
    singles = [flat[pos + 1], flat[pos + 2], flat[pos + 3]]
    used = {pos, pos + 4}
    for seat, index in zip([s for s in players if s != Seat.E], (1, 2, 3), strict=False):
        hands[seat].append(singles[index - 1])
        used.add(pos + index)
    rest = [t for i, t in enumerate(flat) if i >= pos and i not in used]
    return hands, rest


def new_hand(card: CompiledCard, options: AmericanOptions | None = None,
             mode: str = "full", rng: random.Random | None = None,
             dice: int | None = None,
             deal: tuple[dict[Seat, list[Tile]], list[Tile]] | None = None,
             ) -> tuple[AmericanHand, list[AmericanEvent]]:
    """A new hand. Full mode builds and shuffles the wall with the seeded ``rng`` and deals
    (or takes ``deal``: the hands and the wall in draw order, as a log recorded them);
    mirror mode only counts."""
    if mode not in ("full", "mirror"):
        raise MalformedInput("mode", f"'full' or 'mirror', not {mode!r}")
    options = options or AmericanOptions(payments=payment_options(card.options))
    players = player_seats(options.players)
    racks = {s: Rack() for s in players}
    events: list[AmericanEvent] = []
    rng = rng or random.Random(0)
    throw = dice if dice is not None else rng.randint(1, 6) + rng.randint(1, 6)
    if mode == "full":
        if deal is None:
            tiles = american_set()
            rng.shuffle(tiles)
            hands, wall = deal_from(tiles, throw, players)
        else:
            hands, wall = {s: list(t) for s, t in deal[0].items()}, list(deal[1])
        for seat, hand in hands.items():
            racks[seat].concealed = hand
            racks[seat].count = len(hand)
    else:
        wall = []
        for seat in players:
            racks[seat].count = 14 if seat == Seat.E else 13
    dealt = sum(r.count for r in racks.values())
    state = AmericanHand(card=card, options=options, mode=mode, players=players, racks=racks,
                         wall=wall, wall_left=152 - dealt)
    events.append(ev.HandStarted(
        mode=mode, players=players,
        card={"name": card.name, "year": card.year, "version": card.version},
        dice=throw, wall=state.wall_left, wall_tiles=tuple(wall)))
    for seat in players:
        events.append(ev.Dealt(seat=seat, count=racks[seat].count,
                               tiles=tuple(racks[seat].concealed)))
    if len(players) == 4:
        state.phase = "charleston"
        state.stages = list(FIRST_CHARLESTON)
        state.stage_blind = False
    else:
        state.phase = "play"  # "Two and three players": no Charleston; East discards
    state.log = tuple(events)
    return state, events


# -- apply -----------------------------------------------------------------------------------------

def apply(state: AmericanHand,
          command: Command) -> tuple[AmericanHand, tuple[AmericanEvent, ...]]:
    """Check one command: the hand after it, and the events it caused. ``state`` itself never
    changes (the handlers work on a copy); a refusal raises ``RuleViolation`` (naming the
    rule) or ``MalformedInput``."""
    if state.result is not None:
        raise refuse("M-1", "the hand is over")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedInput("type", f"{type(command).__name__} is not an American command")
    for name in ("seat", "owner", "target"):
        seat = getattr(command, name, None)
        if seat is not None and seat not in state.racks:
            raise refuse("Two and three players", f"seat {seat.name} is empty at this table")
    after = state.copy()
    events: list[AmericanEvent] = handler(after, command)
    if after.result is None and after.phase == "play" and after.step == "draw" \
            and after.wall_left == 0:
        # W-1: play goes on (a false Mah Jongg on the last tile, M-4; a hand declared dead on
        # its turn, DH-7) but nobody has a tile to draw: the wall is exhausted, a wall game.
        events += wall_game(after)
    caused = tuple(events)
    after.log = state.log + caused
    return after, caused


# -- turns ----------------------------------------------------------------------------------------

def _draw(state: AmericanHand, c: cm.Draw) -> list[AmericanEvent]:
    if state.phase != "play":
        raise refuse("P-1", "play begins when the Charleston is over and East has discarded")
    ensure_playing(state, c.seat, "draw")
    events: list[AmericanEvent] = []
    if state.step == "window" and state.live is not None and c.seat == state.next_player(
            state.live.seat):
        if state.calls:
            raise refuse("C-9", "calls are pending on the discard: the table closes the window "
                         "and the engine adjudicates first")
        events += _close(state, cm.CloseWindow())
        if state.result is not None:
            return events
    if state.wall_left <= 0:
        raise refuse("W-1", "the wall is exhausted")
    if state.short_left == c.seat and not state.first_discard:
        state.short_left = None  # CH-7's exception: the short player takes the next tile
        short = state.rack(c.seat)
        extra = state.wall[0] if state.mode == "full" else None
        state.wall = state.wall[1:]  # replaced, never changed: copies of the hand share it
        if extra is not None:
            short.concealed.append(extra)
        state.wall_left -= 1
        short.count += 1
        return [ev.Drew(seat=c.seat, wall=state.wall_left, rule="American CH-7", tile=extra)]
    if c.seat != state.turn or state.step != "draw":
        if state.mode == "full":
            what = "it is not this seat's turn" if c.seat != state.turn else "already drawn"
            raise refuse("P-2", f"{c.seat.name} may not draw: {what}")
        # A real table: it happened. Drawing out of turn makes the hand dead once racked
        # (P-6, DH-2 (h)).
        record(state, c.seat, "DH-2 (h)", "drew out of turn")
    rack = state.rack(c.seat)
    tile: Tile | None = None
    if state.mode == "full":
        if c.tile is not None and american_tile(c.tile) != state.wall[0]:
            raise MalformedInput("tile", f"the wall's next tile is not {tile_name(c.tile)}")
        tile = state.wall[0]
        state.wall = state.wall[1:]  # replaced, never changed: copies of the hand share it
        rack.concealed.append(tile)
    state.wall_left -= 1
    rack.count += 1
    if c.seat == state.turn:
        state.step = "discard"
        state.last_move_exchange = False
    events.append(ev.Drew(seat=c.seat, wall=state.wall_left, tile=tile))
    return events


def _discard(state: AmericanHand, c: cm.Discard) -> list[AmericanEvent]:
    if state.phase != "play":
        raise refuse("P-1", "no discards before play begins (East discards first)")
    ensure_playing(state, c.seat, "discard")
    if c.seat != state.turn:
        if not state.first_discard and any(e.rule == "DH-2 (h)"
                                            for e in state.rack(c.seat).evidence):
            # P-1: another player drew from the wall and discarded before East: thrown in.
            state.result = {"result": "redeal", "rule": "American P-1",
                            "why": f"{c.seat.name} drew and discarded before East"}
            return [ev.HandEnded(result=state.result)]
        if not state.first_discard:
            raise refuse("P-1", f"East discards first: {c.seat.name} takes it back")
        raise refuse("P-2", f"it is {state.turn.name}'s turn, not {c.seat.name}'s")
    if state.step == "awarded":
        raise refuse("C-10", f"{c.seat.name} called the discard: expose first, then discard")
    if state.step == "window":
        raise refuse("P-2", f"{c.seat.name} has already discarded")
    rack = state.rack(c.seat)
    tile = american_tile(c.tile)
    if state.mode == "full":
        check_holds(rack, [tile], "P-2", "discard")
    if state.step == "draw":
        # Discarding before drawing leaves 12 tiles (P-7, DH-2 (g)).
        record(state, c.seat, "DH-2 (g)", "discarded before drawing")
    if state.mode == "full":
        rack.concealed.remove(tile)
    rack.count -= 1
    rack.discards.append(tile)
    for e in rack.exposures:
        e.this_turn = False  # the discard locks the exposure (C-8)
    for seat in [s for s, other in state.racks.items()
                 if any(e.wrong_exchange for e in other.exposures)]:
        for e in state.rack(seat).exposures:
            if e.wrong_exchange:
                e.wrong_exchange = False
                e.erroneous = "DH-2 (m)"  # no longer like tiles: never redeemable (J-13)
                blamed = seat if state.options.wrong_exchange_dead == "owner" else c.seat
                record(state, blamed, "DH-2 (m)", "a wrong tile left in a Joker exchange")
    rack.exchanged_jokers = 0
    state.first_discard = True
    state.live = Live(tile, c.seat, None if c.named is None else american_tile(c.named),
                      c.looked_ahead, c.time_us)
    state.calls = []
    state.step = "window"
    state.last_move_exchange = False
    check_exposed_hands(state)
    return [ev.Discarded(seat=c.seat, tile=tile,
                         named=None if c.named is None else american_tile(c.named),
                         dead="American J-3" if tile == JOKER else None)]


def _take_back(state: AmericanHand, c: cm.TakeBack) -> list[AmericanEvent]:
    """P-7: a player other than East who discards before drawing on the very first turn may
    take the discard back (no dead hand)."""
    live = state.live
    rack = state.rack(c.seat)
    first_turn = len(rack.discards) == 1 and c.seat != Seat.E
    early = any(e.rule == "DH-2 (g)" for e in rack.evidence)
    if live is None or live.seat != c.seat or state.step != "window" or not first_turn \
            or not early or state.calls:
        raise refuse("P-7", "only a player other than East who discarded before drawing on the "
                     "first turn may take the discard back, before anyone acts")
    rack.discards.pop()
    if state.mode == "full":
        rack.concealed.append(live.tile)
    rack.count += 1
    rack.evidence = [e for e in rack.evidence if e.rule != "DH-2 (g)"]
    state.live = None
    state.turn = c.seat
    state.step = "draw"
    return [ev.DiscardTakenBack(seat=c.seat, tile=live.tile, rule="American P-7")]


def _correct_name(state: AmericanHand, c: cm.CorrectName) -> list[AmericanEvent]:
    live = state.live
    if state.step != "window" or live is None or live.seat != c.seat or not live.misnamed:
        raise refuse("MN-1", "there is no misnamed discard of this seat to correct")
    if state.calls:
        raise refuse("MN-1", "too late: a player has already acted on the name")
    live.named = live.tile
    return [ev.NameCorrected(seat=c.seat, tile=live.tile, rule="American MN-1")]


# -- calls -----------------------------------------------------------------------------------------

def _call(state: AmericanHand, c: cm.Call) -> list[AmericanEvent]:
    live = state.live
    if state.step != "window" or live is None:
        raise refuse("C-5", "no discard is open to a call (the window has closed)")
    if c.kind not in ("expose", "mahjong"):
        raise refuse("C-1", f"a discard is called for an exposure or for Mah Jongg, never a "
                     f"{c.kind!r} (no chows)")
    if c.seat == live.seat:
        raise refuse("C-3", "a player may not call their own discard")
    ensure_playing(state, c.seat, "call")
    if any(x.seat == c.seat for x in state.calls):
        raise refuse("C-2", f"{c.seat.name} has already called")
    if live.tile == JOKER and not (live.misnamed and c.kind == "mahjong"):
        raise refuse("J-3", "a discarded Joker is dead: it can never be called")
    if live.looked_ahead and c.kind == "expose":
        raise refuse("P-6", "a tile drawn or looked at ahead of turn is dead once discarded: "
                     "only a Mah Jongg may call it")
    if live.misnamed and c.kind == "expose" and live.tile != JOKER:
        # MN-2: the call stands as made and the caller's hand is dead; MN-1: only Mah Jongg
        # may be called on a misnamed tile.
        record(state, c.seat, "DH-2 (k)", "called a misnamed discard for an exposure")
    state.calls.append(c)
    # time_us: the press, on the board's clock (C-9's timing)
    return [ev.CallMade(seat=c.seat, call=c.kind, exposed=c.exposed, time_us=c.time_us)]


def adjudicate(discarder: Seat, calls: Sequence[cm.Call], players: Sequence[Seat]) -> tuple[
        cm.Call, str]:
    """C-9: Mah Jongg beats an exposure, even one already laid; between calls of one kind the
    player next in turn after the discarder; an exposure already on the rack from earlier
    earns nothing, but a caller who has already exposed tiles for *this* call before the
    next-in-turn player called keeps it."""
    order = [s for s in (SEATS[(discarder + k) % 4] for k in range(1, 4)) if s in players]

    def distance(call: cm.Call) -> int:
        return order.index(call.seat)

    mahjong = sorted((c for c in calls if c.kind == "mahjong"), key=distance)
    if mahjong:
        rule = ("American C-9: Mah Jongg beats an exposure" if len(mahjong) < len(calls)
                else "American C-9: next in turn among Mah Jongg calls" if len(mahjong) > 1
                else "American C-1: a call for Mah Jongg")
        return mahjong[0], rule
    exposing = sorted(calls, key=distance)
    first = exposing[0]
    for other in exposing[1:]:
        if (other.exposed and other.time_us is not None and first.time_us is not None
                and other.time_us < first.time_us and not first.exposed):
            return other, ("American C-9: the caller who had already exposed for this call "
                           "keeps it against a slower next-in-turn player")
    rule = ("American C-9: next in turn after the discarder" if len(exposing) > 1
            else "American C-1: a call for an exposure")
    return first, rule


def _close(state: AmericanHand, c: cm.CloseWindow) -> list[AmericanEvent]:
    live = state.live
    if state.step != "window" or live is None:
        raise refuse("C-5", "no call window is open")
    events: list[AmericanEvent] = []
    # The window on the board's clock, when the table gave the times (docs/engine-api.md).
    if not state.calls:
        state.live = None
        if state.wall_left == 0:
            return wall_game(state)
        state.turn = state.next_player(live.seat)
        state.step = "draw"
        return [ev.WindowClosed(discard=live.tile, claims=(), winner=None, rule="American C-5",
                                opened_us=live.opened_us, closed_us=c.time_us)]
    winner, rule = adjudicate(live.seat, state.calls, state.players)
    events.append(ev.WindowClosed(
        discard=live.tile, discarder=live.seat,
        claims=tuple(f"{x.seat.name}:{x.kind}" for x in state.calls),
        winner=winner.seat, call=winner.kind, rule=rule,
        opened_us=live.opened_us, closed_us=c.time_us))
    state.other_mahjong_calls = [x.seat for x in state.calls
                                 if x.kind == "mahjong" and x.seat != winner.seat]
    state.calls = []
    state.rack(live.seat).discards.pop()  # the called tile leaves the discards
    state.awarded = (winner.seat, winner.kind)
    state.called_tile = live.tile
    state.turn = winner.seat  # a call takes the turn (C-10)
    state.step = "awarded"
    return events


def _expose(state: AmericanHand, c: cm.Expose) -> list[AmericanEvent]:
    if state.awarded != (c.seat, "expose") or state.called_tile is None:
        raise refuse("C-6", f"{c.seat.name} has no call to expose for")
    called = state.called_tile
    tiles = [american_tile(t) for t in c.tiles]
    if called not in tiles:
        raise refuse("C-6", f"the exposure must hold the called {tile_name(called)}")
    from_hand = list(tiles)
    from_hand.remove(called)
    rack = state.rack(c.seat)
    if state.mode == "full":
        check_holds(rack, from_hand, "C-6", "expose")
        remove_tiles(rack, from_hand)
    rack.count -= len(from_hand)
    exposed = ExposedSet(tiles, called)
    naturals = {t for t in tiles if t != JOKER}
    if not 3 <= len(tiles) <= 6 or len(naturals) != 1:
        # A lone tile, a pair, NEWS, a run or mixed tiles: an incorrect exposure (C-11, DH-2 (c)).
        exposed.erroneous = "DH-2 (c)"
    rack.exposures.append(exposed)
    state.awarded = None
    state.called_tile = None
    state.live = None
    state.step = "discard"
    state.last_move_exchange = False
    check_exposed_hands(state)
    return [ev.Exposed(seat=c.seat, tiles=tuple(tiles))]


def _adjust(state: AmericanHand, c: cm.AdjustExposure) -> list[AmericanEvent]:
    rack = state.rack(c.seat)
    if c.seat != state.turn or state.step != "discard" or not rack.exposures \
            or not rack.exposures[-1].this_turn:
        raise refuse("C-8", "only this turn's exposure may change, and only until the discard")
    current = rack.exposures[-1]
    new = [american_tile(t) for t in c.tiles]
    if current.called not in new:
        raise refuse("C-8", "the called tile stays in the exposure (C-6)")
    added = list(new)
    for t in current.tiles:
        if t in added:
            added.remove(t)
    returned = list(current.tiles)
    for t in new:
        if t in returned:
            returned.remove(t)
    if state.mode == "full":
        check_holds(rack, added, "C-8", "add to the exposure")
        # C-8 uses only tiles held before the exposure; J-15: Jokers won by exchange this turn
        # are not among them.
        held_before = rack.concealed.count(JOKER) - rack.exchanged_jokers
        if added.count(JOKER) > held_before:
            raise refuse("J-15", "a Joker won by exchange this turn may not go into this turn's "
                         "exposure")
        remove_tiles(rack, added)
        rack.concealed += returned
    rack.count += len(returned) - len(added)
    current.tiles = new
    naturals = {t for t in new if t != JOKER}
    current.erroneous = None if 3 <= len(new) <= 6 and len(naturals) == 1 else "DH-2 (c)"
    check_exposed_hands(state)
    return [ev.ExposureAdjusted(seat=c.seat, tiles=tuple(new), rule="American C-8")]


# -- Joker exchange --------------------------------------------------------------------------------

def _exchange(state: AmericanHand, c: cm.JokerExchange) -> list[AmericanEvent]:
    if state.phase != "play":
        raise refuse("J-5", "Jokers are exchanged during play only")
    ensure_playing(state, c.seat, "Joker exchange")
    owner = state.rack(c.owner)
    tile = american_tile(c.tile)
    if tile == JOKER:
        raise refuse("J-4", "only a natural goes in for a Joker, never a Joker for a natural")
    candidates = [i for i, e in enumerate(owner.exposures) if JOKER in e.tiles
                  and (c.index is None or i == c.index)]
    matching = [i for i in candidates if owner.exposures[i].natural == tile]
    wrong = False
    if matching:
        index = matching[0]
    elif c.index is not None and candidates and state.mode == "mirror":
        index, wrong = candidates[0], True  # J-8: a wrong tile placed; correctable till discard
    else:
        raise refuse("J-4", f"no Joker stands for {tile_name(tile)} in an exposure of "
                     f"{c.owner.name}")
    target = owner.exposures[index]
    if target.erroneous:
        raise refuse("J-13", "the Jokers of an incorrect exposure are never redeemable")
    rack = state.rack(c.seat)
    if state.mode == "full":
        check_holds(rack, [tile], "J-4", "exchange")
    events: list[AmericanEvent] = []
    if state.step == "window" and state.live is not None:
        # Another player beginning an exchange closes the call window (C-5 (b)).
        state.calls = []
        if c.seat != state.live.seat:
            events += _close(state, cm.CloseWindow())
    if c.seat != state.turn or state.step != "discard":
        # Only on your own turn after drawing and racking or calling and exposing (J-5);
        # earlier leaves the hand short and dead (DH-2 (b)).
        record(state, c.seat, "DH-2 (b)", "exchanged a Joker before drawing or calling")
    if state.mode == "full":
        rack.concealed.remove(tile)
        rack.concealed.append(JOKER)
    target.tiles[target.tiles.index(JOKER)] = tile
    target.wrong_exchange = wrong
    if wrong:
        target.wrong_tile = tile
    if c.seat == state.turn:
        rack.exchanged_jokers += 1
        state.last_move_exchange = True  # a Mah Jongg now is a Finesse (J-12)
    events.append(ev.JokerExchanged(seat=c.seat, owner=c.owner, tile=tile,
                                    exposure=tuple(target.tiles)))
    return events


def _correct_exchange(state: AmericanHand, c: cm.CorrectExchange) -> list[AmericanEvent]:
    """J-8: a wrong tile placed in an exchange is corrected without penalty until the
    exchanger discards: the right natural goes in, the wrong tile comes back."""
    owner = state.rack(c.owner)
    target = next((e for e in owner.exposures if e.wrong_exchange), None)
    if target is None or target.wrong_tile is None or c.seat != state.turn \
            or state.step != "discard":
        raise refuse("J-8", "there is no wrong exchange of this player to correct before the "
                     "discard")
    tile = american_tile(c.tile)
    natural = next((t for t in target.tiles if t not in (JOKER, target.wrong_tile)), None)
    if natural is not None and tile != natural:
        raise refuse("J-4", f"the exposure is of {tile_name(natural)}, not {tile_name(tile)}")
    rack = state.rack(c.seat)
    if state.mode == "full":
        check_holds(rack, [tile], "J-8", "correct the exchange")
        rack.concealed.remove(tile)
        rack.concealed.append(target.wrong_tile)
    target.tiles[target.tiles.index(target.wrong_tile)] = tile
    target.wrong_exchange = False
    target.wrong_tile = None
    return [ev.ExchangeCorrected(seat=c.seat, owner=c.owner, exposure=tuple(target.tiles),
                                 rule="American J-8")]


_HANDLERS: dict[type, Any] = {
    cm.CharlestonPass: charleston_pass,
    cm.CharlestonVote: vote,
    cm.CourtesyOffer: courtesy_offer,
    cm.CourtesyPass: courtesy_pass,
    cm.Draw: _draw,
    cm.Discard: _discard,
    cm.CorrectName: _correct_name,
    cm.TakeBack: _take_back,
    cm.Call: _call,
    cm.CloseWindow: _close,
    cm.Expose: _expose,
    cm.AdjustExposure: _adjust,
    cm.JokerExchange: _exchange,
    cm.CorrectExchange: _correct_exchange,
    cm.DeclareMahJongg: declare_mahjong,
    cm.Challenge: challenge,
    cm.ConcedeDead: concede,
    cm.ThrowIn: throw_in,
    cm.Observed: observed,
    cm.RetractMahJongg: retract,
    cm.PlaceBet: place_bet,
    cm.WithdrawCall: withdraw_call,
}
