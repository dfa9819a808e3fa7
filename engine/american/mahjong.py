"""Mah Jongg in an American hand: the winning kinds (self-pick, discard, Heavenly, Finesse),
the hand shown and checked against the card (M-1..M-5), a false Mah Jongg, the wall game
(W-1), the bettor (B-1..B-4) and the settlement that ends the hand (SC-1..SC-9)."""

from __future__ import annotations

from typing import Any

from engine.american import commands as cm
from engine.american import events as ev
from engine.american.dead import declare_dead, end_if_one_left, settle_challenges
from engine.american.events import AmericanEvent
from engine.american.match import HandError, american_tile, make_hand, matches
from engine.american.payments import (
    Settlement,
    Win,
    WinBy,
    bettor_settlement,
    pay_for_the_table,
    settle_win,
    tournament_points,
)
from engine.american.state import AmericanHand, ensure_playing, names, refuse
from engine.errors import MalformedInput
from engine.seats import Seat
from engine.tiles import JOKER


def _win_kind(state: AmericanHand, seat: Seat) -> WinBy | None:
    if state.phase == "charleston" and state.passes_made == 0 and not state.pending \
            and seat == Seat.E:
        return "heavenly"  # CH-9: dealt complete, the Charleston is waived
    if state.phase != "play":
        return None
    if state.awarded == (seat, "mahjong"):
        return "discard"
    if seat == state.turn and state.step == "discard" and state.awarded is None:
        if state.last_move_exchange:
            return "finesse"  # J-12: the last move was a Joker exchange
        if seat == Seat.E and not state.first_discard and not state.rack(seat).discards:
            return "earthly" if state.charleston_played else "heavenly"
        return "wall"
    return None


def declare_mahjong(state: AmericanHand, c: cm.DeclareMahJongg) -> list[AmericanEvent]:
    ensure_playing(state, c.seat, "win")
    by = _win_kind(state, c.seat)
    if by is None and state.phase != "play":
        raise refuse("CH-9", "a Mah Jongg during the Charleston does not stop it; only East "
                     "wins there: dealt complete (Heavenly), or declared as the Charleston ends "
                     "(Earthly)")
    if by is None:
        raise refuse("M-1", "Mah Jongg is declared on the 14th tile: after your own draw or "
                     "exchange, or on a discard awarded to you")
    rack = state.rack(c.seat)
    if state.mode == "full":
        concealed = list(rack.concealed)
    else:
        if c.concealed is None:
            raise MalformedInput("concealed", "a mirror needs the concealed tiles the camera "
                                 "reads once the hand is shown")
        concealed = [american_tile(t) for t in c.concealed]
    if by == "discard" and state.called_tile is not None and state.mode == "full":
        live = state.live
        if state.called_tile == JOKER and live is not None and live.named is not None:
            # MN-4: a Joker called by a tile's name is no real claim; the hand is judged with
            # the tile named, and the misnamer pays.
            concealed.append(live.named)
        else:
            concealed.append(state.called_tile)
    exposures = [e.tiles for e in rack.exposures]
    found = []
    problem = ""
    try:
        hand = make_hand(concealed, exposures, sizes=(14,))
        found = matches(state.card, hand)
    except HandError as exc:
        problem = exc.message
    if found and c.line is not None:
        found = [m for m in found if state.card.lines[m.line].id == c.line]
    quietly_dead = rack.evidence
    if not found or quietly_dead:
        return _false_mahjong(state, c.seat, problem or (
            "a dead hand cannot win (American DH-4)" if found else
            "the hand completes no line of the card"))
    # M-3: the winner announces the value; the engine proposes the best one.
    best = max(found, key=lambda m: (state.card.lines[m.line].points * (2 if m.jokerless else 1)))
    line = state.card.lines[best.line]
    jokerless = best.jokerless and by != "finesse"
    events: list[AmericanEvent] = []
    discarder = state.live.seat if (by == "discard" and state.live is not None) else None
    win = Win(c.seat, line.points, by, discarder, jokerless, len(rack.exposures))
    live = state.live
    dead = [s for s, r in state.racks.items() if s != c.seat and (r.out or r.evidence)]
    if by == "discard" and live is not None and (live.misnamed or live.looked_ahead):
        # MN-3 (MN-4 for a Joker): the Mah Jongg stands; the misnamer pays for the table.
        # P-6: so does the discarder of a looked-ahead tile.
        rule = "P-6" if live.looked_ahead else "MN-4" if live.tile == JOKER else "MN-3"
        settlement = pay_for_the_table(line.points * (2 if jokerless else 1), live.seat,
                                       c.seat, rule)
    else:
        settlement = settle_win(win, state.players, dead, state.options.payments)
    settlement.payments += settle_challenges(state)
    bettor = _bettor(state, settlement, c.seat)
    state.result = {
        "result": "mahjong", "winner": c.seat.name, "by": by, "line": line.id,
        "points": line.points, "jokerless": jokerless, "concealed_line": line.concealed,
        "rule": "American M-1", **settlement.as_json(state.players),
        "tournament": {s: p for s, (p, _) in tournament_points(
            win, state.players, dead, misnamer=live.seat if live and live.misnamed else None
        ).items()},
    }
    if bettor:
        state.result["bettor"] = {"bet": state.bet, "payments": bettor}
    events.append(ev.MahJongg(seat=c.seat, line=line.id, points=line.points, by=by,
                              jokerless=jokerless))
    # Concealed racks are not published: only the winner's hand is shown face up (M-1).
    shown = {s.name: names(r.concealed) for s, r in state.racks.items() if s != c.seat}
    events.append(ev.HandEnded(result=state.result, racks=shown))
    return events


def retract(state: AmericanHand, c: cm.RetractMahJongg) -> list[AmericanEvent]:
    if state.awarded != (c.seat, "mahjong") or state.called_tile is None or state.live is None:
        raise refuse("M-4", "only a Mah Jongg called on a discard, not yet shown, may be "
                     "taken back")
    if c.to_exposure:
        # Found short: the declaration becomes a call for an exposure, no penalty (M-4).
        state.awarded = (c.seat, "expose")
        return [ev.MahJonggRetracted(seat=c.seat, rule="American M-4", now="expose")]
    # Corrected at once: no penalty, play on; the tile goes back and is dead (C-5).
    _return_called_tile(state)
    return [ev.MahJonggRetracted(seat=c.seat, rule="American M-4", now="play on")]


def withdraw_call(state: AmericanHand, c: cm.WithdrawCall) -> list[AmericanEvent]:
    """C-6 part one: until the called tile is racked or tiles are exposed from the hand, a
    call may be withdrawn; the tile goes back to the discards and play goes on."""
    if state.step == "window":
        mine = [x for x in state.calls if x.seat == c.seat]
        if not mine:
            raise refuse("C-6", f"{c.seat.name} has no call to withdraw")
        if mine[0].exposed:
            raise refuse("C-6", "tiles are already exposed for this call: the caller is "
                         "committed")
        state.calls.remove(mine[0])
        return [ev.CallWithdrawn(seat=c.seat, rule="American C-6")]
    if state.awarded != (c.seat, "expose") or state.live is None:
        raise refuse("C-6", f"{c.seat.name} has no call to withdraw")
    _return_called_tile(state)
    return [ev.CallWithdrawn(seat=c.seat, rule="American C-6")]


def _return_called_tile(state: AmericanHand) -> None:
    """An award undone (a retracted Mah Jongg, a withdrawn call, an overruled false Mah Jongg):
    the called tile goes back to its discarder's discards, dead, and the turn passes on from
    the discarder."""
    live = state.live
    assert live is not None
    state.rack(live.seat).discards.append(live.tile)
    state.awarded = None
    state.called_tile = None
    state.live = None
    state.turn = state.next_player(live.seat)
    state.step = "draw"


def place_bet(state: AmericanHand, c: cm.PlaceBet) -> list[AmericanEvent]:
    if not state.options.bettor:
        raise refuse("B-1", "this table plays without a Bettor")
    if state.bet is not None:
        raise refuse("B-1", "the bet may not be changed during play")
    if state.phase != "play" or state.first_discard:
        raise refuse("B-1", "the bet is placed after the Charleston and before East's first "
                     "discard")
    choice = c.choice.strip().upper()
    if choice != "WALL" and choice not in {s.name for s in state.players}:
        raise MalformedInput("choice", f"a seat at the table or 'wall', not {c.choice!r}")
    state.bet = choice
    return [ev.BetPlaced(choice=choice)]  # secret until the end (B-1)


def _bettor(state: AmericanHand, settlement: Settlement, winner: Seat | None) -> list[Any]:
    if state.bet is None:
        return []
    rows = bettor_settlement(settlement, chosen=Seat[state.bet] if state.bet != "WALL" else
                             Seat.E, winner=winner, lowest_value=state.card.lowest_value,
                             bet_on_wall=state.bet == "WALL", players=state.players)
    if state.bet == "WALL" and winner is not None:
        rows = []  # B-4: a wall-game bet wins only a wall game; otherwise nothing is paid
    return [{"from": a, "to": b, "amount": n, "why": why} for a, b, n, why in rows]


def _false_mahjong(state: AmericanHand, seat: Seat, why: str) -> list[AmericanEvent]:
    """M-4: a Mah Jongg in error with the hand exposed: the declarer is dead, stops playing and
    pays the eventual winner; the others play on (DH-2 (l))."""
    rack = state.rack(seat)
    if state.options.false_mahjong == "overrule" and not rack.evidence:
        # M-5: the other players overrule and play on; nothing is lost.
        events: list[AmericanEvent] = [ev.FalseMahJongg(seat=seat, why=why, rule="American M-5",
                                                        overruled=True)]
        if state.awarded == (seat, "mahjong") and state.live is not None:
            _return_called_tile(state)
        return events
    declare_dead(state, seat, "American M-4, DH-2 (l)")
    state.false_declarer = seat
    events = [ev.FalseMahJongg(seat=seat, why=why, rule="American M-4")]
    if state.awarded == (seat, "mahjong"):
        called = state.called_tile
        state.awarded = None
        if state.other_mahjong_calls:
            # Two Mah Jongg calls: if the nearer one is wrong, the tile passes to the other (C-9).
            other = state.other_mahjong_calls.pop(0)
            state.awarded = (other, "mahjong")
            state.turn = other
            events.append(ev.CallAwarded(seat=other, rule="American C-9", call="mahjong"))
            return events + end_if_one_left(state)
        # The tile stays with the dead hand (C-9).
        if called is not None:
            if state.mode == "full":
                rack.concealed.append(called)
            rack.count += 1
        state.called_tile = None
        state.live = None
    state.step = "draw"
    state.turn = state.next_player(seat)
    return events + end_if_one_left(state)


def wall_game(state: AmericanHand) -> list[AmericanEvent]:
    """W-1: the wall is exhausted with no Mah Jongg: nobody pays (challenges still settle)."""
    dead = [s for s, r in state.racks.items() if r.out or r.evidence]
    settlement = Settlement(list(settle_challenges(state)))
    bettor = _bettor(state, settlement, None)
    state.result = {"result": "wall", "winner": None, "rule": "American W-1",
                    **settlement.as_json(state.players),
                    **({"bettor": {"bet": state.bet, "payments": bettor}} if state.bet else {}),
                    "tournament": {s: p for s, (p, _) in tournament_points(
                        None, state.players, dead).items()}}
    return [ev.HandEnded(result=state.result)]
