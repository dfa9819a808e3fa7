"""The Charleston (CH-1..CH-10): three required passes, the optional second Charleston that
any player may stop, blind passes on the last pass, and the courtesy pass across."""

from __future__ import annotations

from engine.american import commands as cm
from engine.american import events as ev
from engine.american.events import AmericanEvent
from engine.american.state import (
    PASS_OFFSET,
    SECOND_CHARLESTON,
    AmericanHand,
    check_holds,
    refuse,
    remove_tiles,
)
from engine.errors import MalformedInput
from engine.seats import SEATS, Seat
from engine.tiles import JOKER, Tile


def charleston_pass(state: AmericanHand, c: cm.CharlestonPass) -> list[AmericanEvent]:
    if state.phase != "charleston":
        raise refuse("CH-2", "no Charleston pass is due now")
    if c.seat in state.pending:
        raise refuse("CH-2", f"{c.seat.name} has already passed on this pass")
    if c.blind and not state.stage_blind:
        raise refuse("CH-3", "a blind pass is allowed only on the last pass of a Charleston "
                     "(the first left, the second right)")
    if not 0 <= c.blind <= 3:
        raise MalformedInput("blind", "a blind pass is 1 to 3 tiles")
    own = 3 - c.blind
    if state.mode == "full":
        if len(c.tiles) != own:
            raise refuse("CH-2", f"three tiles go on every pass: {c.seat.name} passes "
                         f"{len(c.tiles)} from the hand and {c.blind} blind")
        if JOKER in c.tiles:
            raise refuse("CH-6", "a Joker may never be passed")
        check_holds(state.rack(c.seat), c.tiles, "CH-2", "pass")
    else:
        count = c.count if c.count is not None else len(c.tiles) + c.blind
        if count != 3:
            # CH-7: a wrong count in the Charleston throws the hands in for a redeal.
            state.result = {"result": "redeal", "rule": "American CH-7",
                            "why": f"{c.seat.name} passed {count} tiles"}
            return [ev.HandEnded(result=state.result)]
    if len(state.pending) == len(state.players) - 1 and all(
            p.blind for p in state.pending.values()) and c.blind:
        raise refuse("CH-10", "every player is blind passing: the player with the most tiles "
                     "to spare passes one or two from the hand and owes the rest")
    state.pending[c.seat] = c
    events: list[AmericanEvent] = [ev.CharlestonPassOffered(
        seat=c.seat, stage=state.stages[0], blind=c.blind, tiles=tuple(c.tiles))]
    if len(state.pending) == len(state.players):
        events += resolve_pass(state)
    return events


def resolve_pass(state: AmericanHand) -> list[AmericanEvent]:
    direction = state.stages.pop(0)
    offset = PASS_OFFSET[direction]
    passes = state.pending
    state.pending = {}
    state.passes_made += 1
    state.charleston_played = True
    if state.mode == "full":
        packets: dict[Seat, list[Tile]] = {}
        # A blind passer forwards tiles arriving from the seat that passes to it (CH-3).
        for _ in range(4):
            for seat, p in passes.items():
                if seat in packets:
                    continue
                source = SEATS[(seat - offset) % 4]
                if p.blind == 0:
                    packets[seat] = list(p.tiles)
                elif source in packets:
                    packets[seat] = list(p.tiles) + packets[source][:p.blind]
        for seat, p in passes.items():
            remove_tiles(state.rack(seat), p.tiles)
        for seat, p in passes.items():
            source = SEATS[(seat - offset) % 4]
            incoming = packets[source]
            state.rack(seat).concealed += incoming[p.blind:]
    events: list[AmericanEvent] = [ev.CharlestonPassed(
        direction=direction, blind={s.name: p.blind for s, p in passes.items()})]
    if state.stages:
        state.stage_blind = len(state.stages) == 1
        return events
    if not state.second and state.options.second_charleston:
        state.phase = "vote"
    else:
        start_courtesy(state)
    return events


def start_courtesy(state: AmericanHand) -> None:
    state.phase = "courtesy_offer" if state.options.courtesy else "play"


def vote(state: AmericanHand, c: cm.CharlestonVote) -> list[AmericanEvent]:
    if state.phase != "vote":
        raise refuse("CH-4", "the second Charleston may be stopped only after the first left "
                     "pass and before its tiles are looked at")
    if c.seat in state.votes:
        raise refuse("CH-4", f"{c.seat.name} has already answered")
    state.votes[c.seat] = c.stop
    events: list[AmericanEvent] = [ev.CharlestonVote(seat=c.seat, stop=c.stop)]
    if c.stop:
        # Any one player may stop it, without giving a reason (CH-4).
        state.votes = {}
        start_courtesy(state)
        return [*events, ev.SecondCharlestonStopped(seat=c.seat, rule="American CH-4")]
    if len(state.votes) == len(state.players):
        state.second = True
        state.stages = list(SECOND_CHARLESTON)
        state.stage_blind = False
        state.phase = "charleston"
        events.append(ev.SecondCharlestonStarted())
    return events


def courtesy_offer(state: AmericanHand, c: cm.CourtesyOffer) -> list[AmericanEvent]:
    if state.phase != "courtesy_offer":
        raise refuse("CH-5", "the courtesy pass comes after the Charleston")
    if not 0 <= c.count <= 3:
        raise refuse("CH-5", f"a courtesy pass is 0 to 3 tiles, not {c.count}")
    if c.seat in state.offers:
        raise refuse("CH-5", f"{c.seat.name} has already said how many")
    state.offers[c.seat] = c.count
    events: list[AmericanEvent] = [ev.CourtesyOffered(seat=c.seat, count=c.count)]
    if len(state.offers) == len(state.players):
        agreed = {s: min(n, state.offers[SEATS[(s + 2) % 4]]) for s, n in state.offers.items()}
        state.offers = agreed  # the lower wish wins; none if either wants none (CH-5)
        events.append(ev.CourtesyAgreed(counts={s.name: n for s, n in agreed.items()}))
        if any(agreed.values()):
            state.phase = "courtesy"
        else:
            state.phase = "play"
    return events


def courtesy_pass(state: AmericanHand, c: cm.CourtesyPass) -> list[AmericanEvent]:
    if state.phase != "courtesy":
        raise refuse("CH-5", "no courtesy pass is due")
    due = state.offers.get(c.seat, 0)
    if c.seat in state.courtesy or due == 0:
        raise refuse("CH-5", f"{c.seat.name} has no courtesy pass to make")
    if state.mode == "full":
        if len(c.tiles) != due:
            raise refuse("CH-5", f"{c.seat.name} agreed to pass {due}, not {len(c.tiles)}")
        if JOKER in c.tiles:
            raise refuse("CH-6", "a Joker may never be passed")
        check_holds(state.rack(c.seat), c.tiles, "CH-5", "pass")
    elif (c.count if c.count is not None else len(c.tiles)) != due:
        raise refuse("CH-5", f"{c.seat.name} agreed to pass {due}")
    state.courtesy[c.seat] = c.tiles
    events: list[AmericanEvent] = [ev.CourtesyPassOffered(seat=c.seat, count=due,
                                                           tiles=tuple(c.tiles))]
    if all(s in state.courtesy for s, n in state.offers.items() if n):
        if state.mode == "full":
            for seat, tiles in state.courtesy.items():
                remove_tiles(state.rack(seat), tiles)
            for seat, tiles in state.courtesy.items():
                state.rack(SEATS[(seat + 2) % 4]).concealed += tiles
        state.phase = "play"
        events.append(ev.CourtesyPassed(counts={s.name: n for s, n in state.offers.items()}))
    return events


