"""Bots that play the American game legally, and the loop that plays whole hands.

A bot reads only what its seat may know: its own concealed tiles and what the table shows.
It aims at the nearest completion on the card (:func:`engine.american.match.closest`), passes
and discards what that completion does not use, calls when a call brings it nearer, redeems
Jokers with naturals it can spare (J-4) and declares Mah Jongg when its 14 tiles complete a
line. ``play_hands`` checks the engine's invariants after every command: ``violations`` counts
any broken one and any command the engine refused from a bot (bots only send legal ones).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from engine.american import commands as cm
from engine.american import events as ev
from engine.american.card import CompiledCard
from engine.american.game import (
    AmericanHand,
    AmericanOptions,
    apply,
    check_invariants,
    digest,
    new_hand,
    public_view,
)
from engine.american.match import Hand, Target, closest, make_hand, matches
from engine.commands import Command
from engine.errors import RuleViolation
from engine.events import Event
from engine.seats import SEATS, Seat
from engine.simclock import SimClock
from engine.tiles import JOKER, Tile

# A bot must cope with any hand the table left it (a dead hand may be short or long).
ANY_SIZE = tuple(range(1, 19))


def _hand(state: AmericanHand, seat: Seat, extra: Tile | None = None,
          without: Tile | None = None) -> Hand:
    rack = state.rack(seat)
    concealed = list(rack.concealed)
    if extra is not None:
        concealed.append(extra)
    if without is not None:
        concealed.remove(without)
    return make_hand(concealed, [e.tiles for e in rack.exposures if not e.erroneous],
                     sizes=ANY_SIZE)


@dataclass
class GreedyBot:
    """Plays toward the nearest line; deterministic given its RNG."""

    rng: random.Random
    stop_second_charleston: float = 0.3
    _cache: dict[Any, Target | None] = field(default_factory=dict)

    def target(self, card: CompiledCard, hand: Hand) -> Target | None:
        key = (hand.concealed, hand.jokers, hand.exposures)
        if key not in self._cache:
            if len(self._cache) > 512:
                self._cache.clear()
            self._cache[key] = closest(card, hand)
        return self._cache[key]

    def surplus(self, state: AmericanHand, seat: Seat) -> list[Tile]:
        """Naturals the nearest completion does not use, most useless first."""
        hand = _hand(state, seat)
        target = self.target(state.card, hand)
        spare: list[Tile] = []
        for tile, n in hand.concealed:
            want = target.need(tile) if target else 0
            spare += [tile] * max(0, n - want)
        self.rng.shuffle(spare)
        spare.sort(key=lambda t: 0 if target is None or target.need(t) == 0 else 1)
        return spare

    # -- Charleston ----------------------------------------------------------------------------

    def charleston_pass(self, state: AmericanHand, seat: Seat,
                        allow_blind: bool) -> cm.CharlestonPass:
        spare = self.surplus(state, seat)
        if len(spare) < 3 and allow_blind:
            return cm.CharlestonPass(seat, tuple(spare), blind=3 - len(spare))
        return cm.CharlestonPass(seat, tuple(self._fill(state, seat, spare, 3)))

    def _fill(self, state: AmericanHand, seat: Seat, spare: list[Tile], n: int) -> list[Tile]:
        chosen = spare[:n]
        rest = [t for t in state.rack(seat).concealed if t != JOKER]
        for t in chosen:
            rest.remove(t)
        self.rng.shuffle(rest)
        return chosen + rest[:n - len(chosen)]

    def vote(self, state: AmericanHand, seat: Seat) -> cm.CharlestonVote:
        return cm.CharlestonVote(seat, self.rng.random() < self.stop_second_charleston)

    def courtesy_offer(self, state: AmericanHand, seat: Seat) -> cm.CourtesyOffer:
        return cm.CourtesyOffer(seat, min(3, len(self.surplus(state, seat))))

    def courtesy_pass(self, state: AmericanHand, seat: Seat, n: int) -> cm.CourtesyPass:
        return cm.CourtesyPass(seat, tuple(self._fill(state, seat, self.surplus(state, seat), n)))

    # -- play ------------------------------------------------------------------------------------

    def complete(self, state: AmericanHand, seat: Seat, extra: Tile | None = None) -> bool:
        hand = _hand(state, seat, extra)
        return hand.size == 14 and bool(matches(state.card, hand))

    def call(self, state: AmericanHand, seat: Seat) -> cm.Call | None:
        live = state.live
        if live is None or live.tile == JOKER or live.misnamed:
            return None
        if self.complete(state, seat, live.tile):
            return cm.Call(seat, "mahjong")
        if self.exposure_for(state, seat, live.tile) is not None:
            return cm.Call(seat, "expose")
        return None

    def exposure_for(self, state: AmericanHand, seat: Seat, tile: Tile) -> list[Tile] | None:
        """The set to expose with ``tile`` if that brings the hand nearer to a line."""
        rack = state.rack(seat)
        naturals = rack.concealed.count(tile)
        jokers = rack.concealed.count(JOKER)
        if naturals == 0 and jokers < 2:
            return None
        before = self.target(state.card, _hand(state, seat))
        if before is None:
            return None
        best: list[Tile] | None = None
        best_away = before.tiles_away
        for size in (3, 4, 5, 6):
            use = min(naturals, size - 1)
            if size - 1 - use > jokers:
                continue
            shown = [tile] * (use + 1) + [JOKER] * (size - 1 - use)
            remaining = list(rack.concealed)
            for t in shown[1:]:
                remaining.remove(t)
            exposures = [e.tiles for e in rack.exposures if not e.erroneous] + [shown]
            after = closest(state.card, make_hand(remaining, exposures, sizes=ANY_SIZE))
            if after is not None and after.tiles_away < best_away:
                best, best_away = shown, after.tiles_away
        return best

    def exchanges(self, state: AmericanHand, seat: Seat) -> cm.JokerExchange | None:
        """A Joker to redeem (J-4) when giving up the natural costs nothing."""
        rack = state.rack(seat)
        hand = _hand(state, seat)
        target = self.target(state.card, hand)
        away = target.tiles_away if target else 14
        for owner in SEATS:
            other = state.racks.get(owner)
            if other is None:
                continue
            for index, e in enumerate(other.exposures):
                natural = e.natural
                if e.erroneous or JOKER not in e.tiles or natural is None:
                    continue
                if natural not in rack.concealed:
                    continue
                swapped = list(rack.concealed)
                swapped.remove(natural)
                swapped.append(JOKER)
                after = closest(state.card, make_hand(
                    swapped, [x.tiles for x in rack.exposures if not x.erroneous],
                    sizes=ANY_SIZE))
                if after is not None and after.tiles_away <= away:
                    return cm.JokerExchange(seat, owner, natural, index)
        return None

    def discard(self, state: AmericanHand, seat: Seat) -> cm.Discard:
        spare = self.surplus(state, seat)
        if spare:
            return cm.Discard(seat, spare[0])
        concealed = state.rack(seat).concealed
        hand = _hand(state, seat)
        target = self.target(state.card, hand)
        if JOKER in concealed and (target is None or not target.jok):
            return cm.Discard(seat, JOKER)  # no set left to fill: a dead Joker is safe (J-3)
        naturals = [t for t in concealed if t != JOKER] or concealed
        return cm.Discard(seat, self.rng.choice(naturals))


@dataclass
class PlayStats:
    hands: int = 0
    wins: int = 0
    draws: int = 0
    other_endings: int = 0
    false_mahjong: int = 0
    events: int = 0
    violations: int = 0
    calls: int = 0
    exposures: int = 0
    exchanges: int = 0
    finesses: int = 0
    charlestons: int = 0
    second_charlestons: int = 0
    blind_passes: int = 0
    courtesy_passes: int = 0
    problems: list[str] = field(default_factory=list)


class HandInPlay(Protocol):
    """What the bots play against: the hand as it stands, and a way to send a command (the
    hand moves on when it is accepted; a refused ``trial`` is no violation)."""

    @property
    def state(self) -> AmericanHand: ...

    def send(self, command: Command, trial: bool = False) -> bool: ...


def _calls_on_discard(table: HandInPlay, bots: dict[Seat, GreedyBot], stats: PlayStats,
                      clock: SimClock | None) -> None:
    """The others call the live discard (each at its reaction time), then the window closes."""
    state = table.state
    live = state.live
    assert live is not None
    opened = live.opened_us
    calls = []
    for k in range(1, 4):
        seat = SEATS[(live.seat + k) % 4]
        if seat not in state.racks or state.rack(seat).out:
            continue
        call = bots[seat].call(state, seat)
        if call is not None:
            if clock is not None and opened is not None:
                call = replace(call, time_us=clock.react(opened))
            calls.append(call)
    for call in sorted(calls, key=lambda c: c.time_us or 0):
        if table.send(call):
            stats.calls += 1
    closing = None
    if clock is not None and opened is not None:
        closing = clock.close_after(opened, max([opened] + [c.time_us or 0 for c in calls]))
    table.send(cm.CloseWindow(time_us=closing))


def _charleston(table: HandInPlay, bots: dict[Seat, GreedyBot], stats: PlayStats) -> None:
    blind_ok = table.state.stage_blind
    for seat in table.state.players:
        if seat in table.state.pending:
            continue
        command = bots[seat].charleston_pass(table.state, seat, blind_ok)
        if command.blind:
            if table.send(command, True):
                stats.blind_passes += 1
                continue
            # CH-10: everybody blind: pass from the hand
            command = bots[seat].charleston_pass(table.state, seat, False)
        table.send(command)
    stats.charlestons += 1


def _turn(table: HandInPlay, bots: dict[Seat, GreedyBot], stats: PlayStats,
          clock: SimClock | None) -> None:
    """The turn's seat, having drawn: Mah Jongg, a Joker exchange or a discard."""
    seat = table.state.turn
    bot = bots[seat]
    if bot.complete(table.state, seat):
        table.send(cm.DeclareMahJongg(seat))
        return
    exchange = bot.exchanges(table.state, seat)
    if exchange is not None:
        if table.send(exchange):
            stats.exchanges += 1
            if bot.complete(table.state, seat):
                stats.finesses += 1
                table.send(cm.DeclareMahJongg(seat))
        return
    discard = bot.discard(table.state, seat)
    table.send(discard if clock is None else replace(discard, time_us=clock.think()))


def advance(table: HandInPlay, bots: dict[Seat, GreedyBot], stats: PlayStats,
            clock: SimClock | None = None) -> None:
    """One step of bot play: whatever the hand is waiting for (a Charleston pass, a vote, a
    courtesy pass, calls on a discard, an exposure, a draw, a turn). ``clock`` times each
    discard, each call (sent in the order of their times) and the window's close."""
    state = table.state
    if state.phase == "charleston":
        _charleston(table, bots, stats)
    elif state.phase == "vote":
        for seat in state.players:
            if table.state.phase != "vote":
                break
            table.send(bots[seat].vote(table.state, seat))
        if table.state.second and not state.second:
            stats.second_charlestons += 1
    elif state.phase == "courtesy_offer":
        for seat in state.players:
            table.send(bots[seat].courtesy_offer(table.state, seat))
    elif state.phase == "courtesy":
        for seat, n in list(state.offers.items()):
            if n and seat not in state.courtesy:
                table.send(bots[seat].courtesy_pass(table.state, seat, n))
                stats.courtesy_passes += 1
    elif state.step == "window":
        _calls_on_discard(table, bots, stats, clock)
    elif state.step == "awarded":
        assert state.awarded is not None and state.called_tile is not None
        seat, kind = state.awarded
        if kind == "mahjong":
            table.send(cm.DeclareMahJongg(seat))
            return
        shown = bots[seat].exposure_for(state, seat, state.called_tile)
        if shown is None:  # the hand changed since the call: pung with what is held
            rack = state.rack(seat)
            shown = [state.called_tile] + [t for t in rack.concealed
                                           if t in (state.called_tile, JOKER)][:2]
        if table.send(cm.Expose(seat, tuple(shown))):
            stats.exposures += 1
    elif state.step == "draw":
        if state.wall_left > 0:
            table.send(cm.Draw(state.turn))
    elif state.step == "discard":
        _turn(table, bots, stats, clock)


def shown_at_mahjong(state: AmericanHand, seat: Seat) -> tuple[Tile, ...]:
    """The hand ``seat`` lays on its rack at Mah Jongg: its concealed tiles and, called on a
    discard, the called one (M-1)."""
    shown = list(state.rack(seat).concealed)
    if state.awarded == (seat, "mahjong") and state.called_tile is not None:
        shown.append(state.called_tile)
    return tuple(shown)



MAX_ROUNDS = 2000  # a hand has at most a few hundred steps; more means a loop


class AmericanPlayers:
    """Four greedy bots at one full-information American hand (engine.family.players_for),
    played one step of :func:`advance` at a time."""

    def __init__(self, card: CompiledCard, options: AmericanOptions,
                 rng: random.Random) -> None:
        self.dealt, _ = new_hand(card, options, "full", rng)
        self.bots = {s: GreedyBot(random.Random(rng.random())) for s in SEATS}
        self.stats = PlayStats()

    def play(self, hand: HandInPlay) -> Iterator[None]:
        if self.bots[Seat.E].complete(hand.state, Seat.E):
            hand.send(cm.DeclareMahJongg(Seat.E))  # a Heavenly Hand (CH-9)
        for _ in range(MAX_ROUNDS):
            if hand.state.result is not None:
                return
            advance(hand, self.bots, self.stats)
            yield
        raise RuntimeError("the simulated American hand did not end")

@dataclass
class _BotHand:
    """A full-information hand played by the bots, every command checked, logged and kept
    (for the mirror's cross-check)."""

    state: AmericanHand
    stats: PlayStats
    emitted: list[Event]
    record: list[Command] = field(default_factory=list)

    def send(self, command: Command, trial: bool = False) -> bool:
        """Apply a bot's command; a refusal is a violation unless it was a ``trial``."""
        line = cm.CommandRecorded(command.to_json())
        if isinstance(command, cm.DeclareMahJongg):
            seen: Command = replace(command, concealed=shown_at_mahjong(self.state, command.seat))
        else:
            seen = command
        try:
            self.state, out = apply(self.state, command)
        except RuleViolation as exc:
            if trial:
                return False
            self.stats.violations += 1
            self.stats.problems.append(f"refused {command.to_json()}: {exc}")
            return False
        self.record.append(seen)
        self.emitted += [line, *out]
        broken = check_invariants(self.state)
        if broken:
            self.stats.violations += len(broken)
            self.stats.problems += [f"after {command.to_json()}: {b}" for b in broken]
        return True


def play_hand(card: CompiledCard, rng: random.Random, options: AmericanOptions,
              stats: PlayStats,
              log: Callable[[dict[str, Any]], None] | None = None,
              clock: SimClock | None = None) -> AmericanHand:
    bots = {s: GreedyBot(random.Random(rng.random())) for s in SEATS}
    state, events = new_hand(card, options, "full", rng)
    hand = _BotHand(state, stats, list(events))
    if bots[Seat.E].complete(state, Seat.E):
        hand.send(cm.DeclareMahJongg(Seat.E))  # a Heavenly Hand (CH-9)
    guard = 0
    while hand.state.result is None and guard < 2000 and stats.violations <= 20:
        guard += 1
        advance(hand, bots, stats, clock)
    state = hand.state
    if state.result is None:
        stats.violations += 1
        stats.problems.append("the hand did not finish")
    else:
        kind = state.result["result"]
        stats.wins += kind == "mahjong"
        stats.draws += kind == "wall"
        stats.other_endings += kind not in ("mahjong", "wall")
    if state.result is not None:
        disagreement = mirror_disagreement(card, options, hand.record, state.result)
        if disagreement:
            stats.violations += 1
            stats.problems.append(disagreement)
    stats.false_mahjong += any(isinstance(e, ev.FalseMahJongg) for e in hand.emitted)
    stats.hands += 1
    stats.events += sum(1 for e in hand.emitted if not isinstance(e, cm.CommandRecorded))
    if log is not None:
        for e in hand.emitted:
            log(e.to_json())
        log({"final": public_view(state), "digest": digest(state)})
    return state


def _as_seen(command: Command) -> Command:
    """What a real table's camera and buttons report of a full-mode command: no concealed
    faces (a pass is three tiles, a draw is a draw)."""
    if isinstance(command, cm.CharlestonPass):
        return cm.CharlestonPass(command.seat, blind=command.blind, count=3)
    if isinstance(command, cm.CourtesyPass):
        return cm.CourtesyPass(command.seat, count=len(command.tiles))
    if isinstance(command, cm.Draw):
        return cm.Draw(command.seat)
    return command


def mirror_disagreement(card: CompiledCard, options: AmericanOptions, commands: list[Command],
                        result: dict[str, Any]) -> str:
    """Feed a mirror-mode engine only what the table showed; it must reach the same ending,
    winner and payments as the full-information engine. Returns the disagreement, or ""."""
    mirror, _ = new_hand(card, options, "mirror")
    try:
        for command in commands:
            mirror, _ = apply(mirror, _as_seen(command))
    except RuleViolation as exc:
        return f"mirror refused what the full engine accepted: {exc}"
    seen = mirror.result or {}
    for key in ("result", "winner", "line", "net"):
        if seen.get(key) != result.get(key):
            return f"mirror disagrees on {key}: {seen.get(key)!r} vs {result.get(key)!r}"
    return ""


def play_hands(card: CompiledCard, hands: int, seed: int, options: AmericanOptions | None = None,
               write: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``mjtable play --ruleset american``: bots play ``hands`` full hands. ``write`` receives
    the log, one JSON line at a time (the caller owns the file)."""
    rng = random.Random(seed)
    clock = SimClock(random.Random(f"{seed}:clock"))  # board times; not the game's RNG
    stats = PlayStats()
    start = time.perf_counter()
    seq = 0
    for hand in range(hands):
        def log(obj: dict[str, Any], hand: int = hand) -> None:
            # The JSON Lines shape of engine.record: events carry seq and hand; one final
            # line per hand with the public view and a digest.
            nonlocal seq
            if write is None:
                return
            if "final" in obj:
                write(json.dumps({"hand": hand, **obj}, separators=(",", ":")))
            else:
                write(json.dumps({"seq": seq, "hand": hand, **obj}, separators=(",", ":")))
                seq += 1

        play_hand(card, rng, options or AmericanOptions(), stats, log, clock)
    summary: dict[str, Any] = {
            "ruleset": "american", "hands": stats.hands, "wins": stats.wins,
            "draws": stats.draws, "false_mahjong": stats.false_mahjong, "events": stats.events,
            "violations": stats.violations, "seconds": round(time.perf_counter() - start, 3),
            "american": {"calls": stats.calls, "exposures": stats.exposures,
                         "joker_exchanges": stats.exchanges, "finesses": stats.finesses,
                         "charleston_passes": stats.charlestons,
                         "second_charlestons": stats.second_charlestons,
                         "blind_passes": stats.blind_passes,
                         "courtesy_passes": stats.courtesy_passes,
                         "other_endings": stats.other_endings}}
    if stats.problems:
        summary["problems"] = stats.problems[:10]
    return summary
