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
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from engine.american import commands as cm
from engine.american.card import CompiledCard
from engine.american.commands import AmericanEvent
from engine.american.match import (
    Exposure,
    HandError,
    american_tile,
    closest,
    exposures_fit,
    make_hand,
    matches,
    unwinnable,
)
from engine.american.payments import (
    Payment,
    PaymentOptions,
    Settlement,
    Win,
    WinBy,
    bettor_settlement,
    false_mahjong_cascade,
    pay_for_the_table,
    settle_challenge,
    settle_win,
    tournament_points,
)
from engine.commands import Command
from engine.errors import MalformedInput, RuleViolation
from engine.seats import SEATS, Seat
from engine.tiles import FLOWER, JOKER, Tile, tile_name, tile_set

STACKS = 19  # "Building the walls": two high, nineteen long, against each rack
PASS_OFFSET = {"right": 1, "across": 2, "left": 3}
FIRST_CHARLESTON = ("right", "across", "left")  # CH-2
SECOND_CHARLESTON = ("left", "across", "right")  # CH-4


def _no(rule: str, message: str) -> RuleViolation:
    return RuleViolation(f"American {rule}", message)


@dataclass(frozen=True)
class AmericanOptions:
    """Table choices, each with the League's default (rule-decisions.md, American)."""

    players: int = 4  # 2 and 3: "Two and three players" (no Charleston)
    second_charleston: bool = True  # CH-4: optional, any player may stop it
    courtesy: bool = True  # CH-5
    unwinnable: Literal["physical", "literal"] = "physical"  # Q4, DH-2 (e)
    # Q2: after an uncorrected wrong Joker exchange (J-8, DH-2 (m)) "the hand with the incorrect
    # exposure is dead": by default read literally (the rack that holds it).
    wrong_exchange_dead: Literal["owner", "exchanger"] = "owner"
    bettor: bool = False  # B-1..B-4: a fifth player may bet (optional)
    payments: PaymentOptions = field(default_factory=PaymentOptions)


def player_seats(players: int) -> tuple[Seat, ...]:
    """Two-handed players sit opposite; three-handed leave North empty ("Two and three
    players"). Q5: calls and payments then follow the same rules among those present."""
    if players == 4:
        return SEATS
    if players == 3:
        return (Seat.E, Seat.S, Seat.W)
    if players == 2:
        return (Seat.E, Seat.W)
    raise ValueError(f"an American table seats 2, 3 or 4 players, not {players}")


@dataclass
class ExposedSet:
    tiles: list[Tile]
    called: Tile
    this_turn: bool = True  # C-8: may change until the owner discards
    erroneous: str | None = None  # the DH-2 cause if it is no set of like tiles
    wrong_exchange: bool = False  # J-8: a wrong tile placed by an exchange, not yet corrected
    wrong_tile: Tile | None = None

    @property
    def natural(self) -> Tile | None:
        kinds = {t for t in self.tiles if t != JOKER}
        return kinds.pop() if len(kinds) == 1 else None

    def exposure(self) -> Exposure:
        tile = self.natural
        assert tile is not None
        return Exposure(tile, len(self.tiles), self.tiles.count(JOKER))


@dataclass(frozen=True)
class Evidence:
    rule: str
    detail: str
    visible: bool  # can the table see it (exposures, discards, counts: DH-3)?


@dataclass
class Rack:
    concealed: list[Tile] = field(default_factory=list)  # full mode only
    count: int = 0
    exposures: list[ExposedSet] = field(default_factory=list)
    discards: list[Tile] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    declared_dead: str | None = None  # the rule it was declared dead under
    thrown_in: bool = False
    exchanged_jokers: int = 0  # Jokers won by exchange this turn (J-15)

    @property
    def out(self) -> bool:
        return self.declared_dead is not None or self.thrown_in

    def exposed_count(self) -> int:
        return sum(len(e.tiles) for e in self.exposures)


@dataclass
class Live:
    tile: Tile
    seat: Seat
    named: Tile | None

    @property
    def misnamed(self) -> bool:
        return self.named is not None and self.named != self.tile


@dataclass
class AmericanHand:
    card: CompiledCard
    options: AmericanOptions
    mode: str
    players: tuple[Seat, ...]
    racks: dict[Seat, Rack]
    wall: list[Tile]
    wall_left: int
    phase: str = "charleston"
    stages: list[str] = field(default_factory=list)
    stage_blind: bool = False
    second: bool = False
    pending: dict[Seat, cm.CharlestonPass] = field(default_factory=dict)
    votes: dict[Seat, bool] = field(default_factory=dict)
    offers: dict[Seat, int] = field(default_factory=dict)
    courtesy: dict[Seat, tuple[Tile, ...]] = field(default_factory=dict)
    charleston_played: bool = False
    passes_made: int = 0
    turn: Seat = Seat.E
    step: str = "discard"  # draw | discard | window | awarded
    live: Live | None = None
    calls: list[cm.Call] = field(default_factory=list)
    awarded: tuple[Seat, str] | None = None
    called_tile: Tile | None = None
    other_mahjong_calls: list[Seat] = field(default_factory=list)
    first_discard: bool = False
    last_move_exchange: bool = False
    challenges: list[tuple[Seat, Seat, bool]] = field(default_factory=list)
    false_declarer: Seat | None = None
    bet: str | None = None  # private until the hand ends (B-1)
    short_left: Seat | None = None  # CH-7: East's left may draw the tile it is short
    result: dict[str, Any] | None = None
    log: list[AmericanEvent] = field(default_factory=list)

    def rack(self, seat: Seat) -> Rack:
        return self.racks[seat]

    def next_player(self, seat: Seat) -> Seat:
        """The next seat to the right that is still playing (declared dead hands are skipped,
        DH-7; empty seats take no hand)."""
        for step in range(1, 5):
            candidate = SEATS[(seat + step) % 4]
            if candidate in self.racks and not self.racks[candidate].out:
                return candidate
        return seat

    def visible_counts(self) -> dict[Tile, int]:
        """Naturals the whole table can see: discards and every exposure."""
        seen: dict[Tile, int] = {}
        for rack in self.racks.values():
            for t in rack.discards:
                if t != JOKER:
                    seen[t] = seen.get(t, 0) + 1
            for e in rack.exposures:
                for t in e.tiles:
                    if t != JOKER:
                        seen[t] = seen.get(t, 0) + 1
        return seen


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


def new_hand(card: CompiledCard, options: AmericanOptions = AmericanOptions(),
             mode: str = "full", rng: random.Random | None = None,
             dice: int | None = None,
             deal: tuple[dict[Seat, list[Tile]], list[Tile]] | None = None,
             ) -> tuple[AmericanHand, list[AmericanEvent]]:
    """A new hand. Full mode builds and shuffles the wall with the seeded ``rng`` and deals
    (or takes ``deal``: the hands and the wall in draw order, as a log recorded them);
    mirror mode only counts."""
    if mode not in ("full", "mirror"):
        raise MalformedInput("mode", f"'full' or 'mirror', not {mode!r}")
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
    events.append(AmericanEvent("HandStarted", None, {
        "ruleset": "american", "mode": mode, "players": [s.name for s in players],
        "card": {"name": card.name, "year": card.year, "version": card.version},
        "dice": throw, "wall": state.wall_left}, {"wall": _names(wall)}))
    for seat in players:
        events.append(AmericanEvent("Dealt", seat, {"count": racks[seat].count},
                                    {"tiles": [tile_name(t) for t in racks[seat].concealed]}))
    if len(players) == 4:
        state.phase = "charleston"
        state.stages = list(FIRST_CHARLESTON)
        state.stage_blind = False
    else:
        state.phase = "play"  # "Two and three players": no Charleston; East discards
    state.log.extend(events)
    return state, events


# -- apply -----------------------------------------------------------------------------------------

def apply(state: AmericanHand, command: Command) -> list[AmericanEvent]:
    """Check and apply one command; returns its events. Raises ``RuleViolation`` (naming the
    rule) or ``MalformedInput`` without changing anything."""
    if state.result is not None:
        raise _no("M-1", "the hand is over")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedInput("type", f"{type(command).__name__} is not an American command")
    for name in ("seat", "owner", "target"):
        seat = getattr(command, name, None)
        if seat is not None and seat not in state.racks:
            raise _no("Two and three players", f"seat {seat.name} is empty at this table")
    events: list[AmericanEvent] = handler(state, command)
    state.log.extend(events)
    return events


def _ev(kind: str, seat: Seat | None = None, public: Any = None,
        private: Any = None) -> AmericanEvent:
    return AmericanEvent(kind, seat, public, private)


def _names(tiles: Sequence[Tile]) -> list[str]:
    return [tile_name(t) for t in tiles]


def _take(rack: Rack, tiles: Sequence[Tile], rule: str, doing: str) -> None:
    """Check that a full-mode rack holds these tiles (nothing is changed)."""
    pool = list(rack.concealed)
    for t in tiles:
        if t not in pool:
            raise _no(rule, f"cannot {doing}: no {tile_name(t)} in the hand")
        pool.remove(t)


def _remove(rack: Rack, tiles: Sequence[Tile]) -> None:
    for t in tiles:
        rack.concealed.remove(t)


def _not_dead(state: AmericanHand, seat: Seat, doing: str) -> None:
    rack = state.rack(seat)
    if rack.declared_dead is not None:
        raise _no("DH-7", f"{seat.name}'s hand was declared dead ({rack.declared_dead}): no "
                  f"{doing} for the rest of the hand")
    if rack.thrown_in:
        raise _no("M-4", f"{seat.name} threw in the hand")


# -- Charleston ------------------------------------------------------------------------------------

def _charleston_pass(state: AmericanHand, c: cm.CharlestonPass) -> list[AmericanEvent]:
    if state.phase != "charleston":
        raise _no("CH-2", "no Charleston pass is due now")
    if c.seat in state.pending:
        raise _no("CH-2", f"{c.seat.name} has already passed on this pass")
    if c.blind and not state.stage_blind:
        raise _no("CH-3", "a blind pass is allowed only on the last pass of a Charleston "
                  "(the first left, the second right)")
    if not 0 <= c.blind <= 3:
        raise MalformedInput("blind", "a blind pass is 1 to 3 tiles")
    own = 3 - c.blind
    if state.mode == "full":
        if len(c.tiles) != own:
            raise _no("CH-2", f"three tiles go on every pass: {c.seat.name} passes "
                      f"{len(c.tiles)} from the hand and {c.blind} blind")
        if JOKER in c.tiles:
            raise _no("CH-6", "a Joker may never be passed")
        _take(state.rack(c.seat), c.tiles, "CH-2", "pass")
    else:
        count = c.count if c.count is not None else len(c.tiles) + c.blind
        if count != 3:
            # CH-7: a wrong count in the Charleston throws the hands in for a redeal.
            state.result = {"result": "redeal", "rule": "American CH-7",
                            "why": f"{c.seat.name} passed {count} tiles"}
            return [_ev("HandEnded", None, state.result)]
    if len(state.pending) == len(state.players) - 1 and all(
            p.blind for p in state.pending.values()) and c.blind:
        raise _no("CH-10", "every player is blind passing: the player with the most tiles "
                  "to spare passes one or two from the hand and owes the rest")
    state.pending[c.seat] = c
    events = [_ev("CharlestonPassOffered", c.seat, {"stage": state.stages[0], "blind": c.blind},
                  {"tiles": _names(c.tiles)})]
    if len(state.pending) == len(state.players):
        events += _resolve_pass(state)
    return events


def _resolve_pass(state: AmericanHand) -> list[AmericanEvent]:
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
            _remove(state.rack(seat), p.tiles)
        for seat, p in passes.items():
            source = SEATS[(seat - offset) % 4]
            incoming = packets[source]
            state.rack(seat).concealed += incoming[p.blind:]
    events = [_ev("CharlestonPassed", None, {"direction": direction,
                                             "blind": {s.name: p.blind
                                                       for s, p in passes.items()}})]
    if state.stages:
        state.stage_blind = len(state.stages) == 1
        return events
    if not state.second and state.options.second_charleston:
        state.phase = "vote"
    else:
        _start_courtesy(state)
    return events


def _start_courtesy(state: AmericanHand) -> None:
    state.phase = "courtesy_offer" if state.options.courtesy else "play"


def _vote(state: AmericanHand, c: cm.CharlestonVote) -> list[AmericanEvent]:
    if state.phase != "vote":
        raise _no("CH-4", "the second Charleston may be stopped only after the first left "
                  "pass and before its tiles are looked at")
    if c.seat in state.votes:
        raise _no("CH-4", f"{c.seat.name} has already answered")
    state.votes[c.seat] = c.stop
    events = [_ev("CharlestonVote", c.seat, {"stop": c.stop})]
    if c.stop:
        # Any one player may stop it, without giving a reason (CH-4).
        state.votes = {}
        _start_courtesy(state)
        return [*events, _ev("SecondCharlestonStopped", c.seat, {"rule": "American CH-4"})]
    if len(state.votes) == len(state.players):
        state.second = True
        state.stages = list(SECOND_CHARLESTON)
        state.stage_blind = False
        state.phase = "charleston"
        events.append(_ev("SecondCharlestonStarted"))
    return events


def _courtesy_offer(state: AmericanHand, c: cm.CourtesyOffer) -> list[AmericanEvent]:
    if state.phase != "courtesy_offer":
        raise _no("CH-5", "the courtesy pass comes after the Charleston")
    if not 0 <= c.count <= 3:
        raise _no("CH-5", f"a courtesy pass is 0 to 3 tiles, not {c.count}")
    if c.seat in state.offers:
        raise _no("CH-5", f"{c.seat.name} has already said how many")
    state.offers[c.seat] = c.count
    events = [_ev("CourtesyOffered", c.seat, {"count": c.count})]
    if len(state.offers) == len(state.players):
        agreed = {s: min(n, state.offers[SEATS[(s + 2) % 4]]) for s, n in state.offers.items()}
        state.offers = agreed  # the lower wish wins; none if either wants none (CH-5)
        events.append(_ev("CourtesyAgreed", None, {s.name: n for s, n in agreed.items()}))
        if any(agreed.values()):
            state.phase = "courtesy"
        else:
            state.phase = "play"
    return events


def _courtesy_pass(state: AmericanHand, c: cm.CourtesyPass) -> list[AmericanEvent]:
    if state.phase != "courtesy":
        raise _no("CH-5", "no courtesy pass is due")
    due = state.offers.get(c.seat, 0)
    if c.seat in state.courtesy or due == 0:
        raise _no("CH-5", f"{c.seat.name} has no courtesy pass to make")
    if state.mode == "full":
        if len(c.tiles) != due:
            raise _no("CH-5", f"{c.seat.name} agreed to pass {due}, not {len(c.tiles)}")
        if JOKER in c.tiles:
            raise _no("CH-6", "a Joker may never be passed")
        _take(state.rack(c.seat), c.tiles, "CH-5", "pass")
    elif (c.count if c.count is not None else len(c.tiles)) != due:
        raise _no("CH-5", f"{c.seat.name} agreed to pass {due}")
    state.courtesy[c.seat] = c.tiles
    events = [_ev("CourtesyPassOffered", c.seat, {"count": due}, {"tiles": _names(c.tiles)})]
    if all(s in state.courtesy for s, n in state.offers.items() if n):
        if state.mode == "full":
            for seat, tiles in state.courtesy.items():
                _remove(state.rack(seat), tiles)
            for seat, tiles in state.courtesy.items():
                state.rack(SEATS[(seat + 2) % 4]).concealed += tiles
        state.phase = "play"
        events.append(_ev("CourtesyPassed", None, {s.name: n for s, n in state.offers.items()}))
    return events


# -- turns -----------------------------------------------------------------------------------------

def _record(state: AmericanHand, seat: Seat, rule: str, detail: str, visible: bool = True) -> None:
    rack = state.rack(seat)
    if not any(e.rule == rule for e in rack.evidence):
        rack.evidence.append(Evidence(rule, detail, visible))


def _check_exposed_hands(state: AmericanHand) -> None:
    """Visible dead-hand causes of every exposed hand (DH-2 (c), (d), (e)); private."""
    seen = state.visible_counts()
    for seat, rack in state.racks.items():
        if rack.out or not rack.exposures:
            continue
        for e in rack.exposures:
            if e.erroneous == "DH-2 (c)":
                _record(state, seat, "DH-2 (c)", "an exposure that is no set of like tiles")
        good = tuple(e.exposure() for e in rack.exposures
                     if not e.erroneous and e.natural is not None)
        if not good:
            continue
        if not exposures_fit(state.card, good):
            if exposures_fit(state.card, good, concealed_lines=True):
                # Only a concealed line has these sets: a concealed hand was being played and
                # tiles were exposed ("Calling ends a concealed hand").
                _record(state, seat, "DH-2 (f)", "exposures on a concealed hand")
            else:
                _record(state, seat, "DH-2 (d)", "exposures that match no hand on the card")
        elif unwinnable(state.card, good, seen, state.options.unwinnable == "literal"):
            _record(state, seat, "DH-2 (e)", "the tiles the exposed hand still needs are "
                    "gone")


def _draw(state: AmericanHand, c: cm.Draw) -> list[AmericanEvent]:
    if state.phase != "play":
        raise _no("P-1", "play begins when the Charleston is over and East has discarded")
    _not_dead(state, c.seat, "draw")
    events: list[AmericanEvent] = []
    if state.step == "window" and state.live is not None and c.seat == state.next_player(
            state.live.seat):
        if state.calls:
            raise _no("C-9", "calls are pending on the discard: the table closes the window "
                      "and the engine adjudicates first")
        events += _close(state, cm.CloseWindow())
        if state.result is not None:
            return events
    if state.wall_left <= 0:
        raise _no("W-1", "the wall is exhausted")
    if state.short_left == c.seat and not state.first_discard:
        state.short_left = None  # CH-7's exception: the short player takes the next tile
        short = state.rack(c.seat)
        extra = state.wall.pop(0) if state.mode == "full" else None
        if extra is not None:
            short.concealed.append(extra)
        state.wall_left -= 1
        short.count += 1
        return [_ev("Drew", c.seat, {"wall": state.wall_left, "rule": "American CH-7"},
                    {"tile": tile_name(extra) if extra is not None else None})]
    if c.seat != state.turn or state.step != "draw":
        if state.mode == "full":
            what = "it is not this seat's turn" if c.seat != state.turn else "already drawn"
            raise _no("P-2", f"{c.seat.name} may not draw: {what}")
        # A real table: it happened. Drawing out of turn makes the hand dead once racked
        # (P-6, DH-2 (h)).
        _record(state, c.seat, "DH-2 (h)", "drew out of turn")
    rack = state.rack(c.seat)
    tile: Tile | None = None
    if state.mode == "full":
        tile = state.wall.pop(0)
        if c.tile is not None and american_tile(c.tile) != tile:
            raise MalformedInput("tile", f"the wall's next tile is not {tile_name(c.tile)}")
        rack.concealed.append(tile)
    state.wall_left -= 1
    rack.count += 1
    if c.seat == state.turn:
        state.step = "discard"
        state.last_move_exchange = False
    events.append(_ev("Drew", c.seat, {"wall": state.wall_left},
                      {"tile": tile_name(tile) if tile is not None else None}))
    return events


def _discard(state: AmericanHand, c: cm.Discard) -> list[AmericanEvent]:
    if state.phase != "play":
        raise _no("P-1", "no discards before play begins (East discards first)")
    _not_dead(state, c.seat, "discard")
    if c.seat != state.turn:
        if not state.first_discard and any(e.rule == "DH-2 (h)"
                                            for e in state.rack(c.seat).evidence):
            # P-1: another player drew from the wall and discarded before East: thrown in.
            state.result = {"result": "redeal", "rule": "American P-1",
                            "why": f"{c.seat.name} drew and discarded before East"}
            return [_ev("HandEnded", None, state.result)]
        if not state.first_discard:
            raise _no("P-1", f"East discards first: {c.seat.name} takes it back")
        raise _no("P-2", f"it is {state.turn.name}'s turn, not {c.seat.name}'s")
    if state.step == "awarded":
        raise _no("C-10", f"{c.seat.name} called the discard: expose first, then discard")
    if state.step == "window":
        raise _no("P-2", f"{c.seat.name} has already discarded")
    rack = state.rack(c.seat)
    tile = american_tile(c.tile)
    if state.mode == "full":
        _take(rack, [tile], "P-2", "discard")
    if state.step == "draw":
        # Discarding before drawing leaves 12 tiles (P-7, DH-2 (g)).
        _record(state, c.seat, "DH-2 (g)", "discarded before drawing")
    if state.mode == "full":
        rack.concealed.remove(tile)
    rack.count -= 1
    rack.discards.append(tile)
    for e in rack.exposures:
        e.this_turn = False  # the discard locks the exposure (C-8)
    for seat, other in state.racks.items():
        for e in other.exposures:
            if e.wrong_exchange:
                e.wrong_exchange = False
                e.erroneous = "DH-2 (m)"  # no longer like tiles: never redeemable (J-13)
                blamed = seat if state.options.wrong_exchange_dead == "owner" else c.seat
                _record(state, blamed, "DH-2 (m)", "a wrong tile left in a Joker exchange")
    rack.exchanged_jokers = 0
    state.first_discard = True
    state.live = Live(tile, c.seat, None if c.named is None else american_tile(c.named))
    state.calls = []
    state.step = "window"
    state.last_move_exchange = False
    _check_exposed_hands(state)
    public: dict[str, Any] = {"tile": tile_name(tile)}
    if c.named is not None:
        public["named"] = tile_name(american_tile(c.named))
    if tile == JOKER:
        public["dead"] = "American J-3"
    return [_ev("Discarded", c.seat, public)]


def _take_back(state: AmericanHand, c: cm.TakeBack) -> list[AmericanEvent]:
    """P-7: a player other than East who discards before drawing on the very first turn may
    take the discard back (no dead hand)."""
    live = state.live
    rack = state.rack(c.seat)
    first_turn = len(rack.discards) == 1 and c.seat != Seat.E
    early = any(e.rule == "DH-2 (g)" for e in rack.evidence)
    if live is None or live.seat != c.seat or state.step != "window" or not first_turn \
            or not early or state.calls:
        raise _no("P-7", "only a player other than East who discarded before drawing on the "
                  "first turn may take the discard back, before anyone acts")
    rack.discards.pop()
    if state.mode == "full":
        rack.concealed.append(live.tile)
    rack.count += 1
    rack.evidence = [e for e in rack.evidence if e.rule != "DH-2 (g)"]
    state.live = None
    state.turn = c.seat
    state.step = "draw"
    return [_ev("DiscardTakenBack", c.seat, {"tile": tile_name(live.tile),
                                             "rule": "American P-7"})]


def _correct_name(state: AmericanHand, c: cm.CorrectName) -> list[AmericanEvent]:
    live = state.live
    if state.step != "window" or live is None or live.seat != c.seat or not live.misnamed:
        raise _no("MN-1", "there is no misnamed discard of this seat to correct")
    if state.calls:
        raise _no("MN-1", "too late: a player has already acted on the name")
    live.named = live.tile
    return [_ev("NameCorrected", c.seat, {"tile": tile_name(live.tile), "rule": "American MN-1"})]


# -- calls -----------------------------------------------------------------------------------------

def _call(state: AmericanHand, c: cm.Call) -> list[AmericanEvent]:
    live = state.live
    if state.step != "window" or live is None:
        raise _no("C-5", "no discard is open to a call (the window has closed)")
    if c.kind not in ("expose", "mahjong"):
        raise _no("C-1", f"a discard is called for an exposure or for Mah Jongg, never a "
                  f"{c.kind!r} (no chows)")
    if c.seat == live.seat:
        raise _no("C-3", "a player may not call their own discard")
    _not_dead(state, c.seat, "call")
    if any(x.seat == c.seat for x in state.calls):
        raise _no("C-2", f"{c.seat.name} has already called")
    if live.tile == JOKER and not (live.misnamed and c.kind == "mahjong"):
        raise _no("J-3", "a discarded Joker is dead: it can never be called")
    if live.misnamed and c.kind == "expose" and live.tile != JOKER:
        # MN-2: the call stands as made and the caller's hand is dead; MN-1: only Mah Jongg
        # may be called on a misnamed tile.
        _record(state, c.seat, "DH-2 (k)", "called a misnamed discard for an exposure")
    state.calls.append(c)
    return [_ev("CallMade", c.seat, {"kind": c.kind, "exposed": c.exposed})]


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
        raise _no("C-5", "no call window is open")
    events: list[AmericanEvent] = []
    if not state.calls:
        state.live = None
        if state.wall_left == 0:
            return _wall_game(state)
        state.turn = state.next_player(live.seat)
        state.step = "draw"
        return [_ev("WindowClosed", None, {"discard": tile_name(live.tile), "claims": [],
                                           "winner": None, "rule": "American C-5"})]
    winner, rule = adjudicate(live.seat, state.calls, state.players)
    events.append(_ev("WindowClosed", None, {
        "discard": tile_name(live.tile), "discarder": live.seat.name,
        "claims": [f"{x.seat.name}:{x.kind}" for x in state.calls],
        "winner": winner.seat.name, "kind": winner.kind, "rule": rule}))
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
        raise _no("C-6", f"{c.seat.name} has no call to expose for")
    called = state.called_tile
    tiles = [american_tile(t) for t in c.tiles]
    if called not in tiles:
        raise _no("C-6", f"the exposure must hold the called {tile_name(called)}")
    from_hand = list(tiles)
    from_hand.remove(called)
    rack = state.rack(c.seat)
    if state.mode == "full":
        _take(rack, from_hand, "C-6", "expose")
        _remove(rack, from_hand)
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
    _check_exposed_hands(state)
    return [_ev("Exposed", c.seat, {"tiles": _names(tiles)})]


def _adjust(state: AmericanHand, c: cm.AdjustExposure) -> list[AmericanEvent]:
    rack = state.rack(c.seat)
    if c.seat != state.turn or state.step != "discard" or not rack.exposures \
            or not rack.exposures[-1].this_turn:
        raise _no("C-8", "only this turn's exposure may change, and only until the discard")
    current = rack.exposures[-1]
    new = [american_tile(t) for t in c.tiles]
    if current.called not in new:
        raise _no("C-8", "the called tile stays in the exposure (C-6)")
    added = list(new)
    for t in current.tiles:
        if t in added:
            added.remove(t)
    returned = list(current.tiles)
    for t in new:
        if t in returned:
            returned.remove(t)
    if state.mode == "full":
        _take(rack, added, "C-8", "add to the exposure")
        # C-8 uses only tiles held before the exposure; J-15: Jokers won by exchange this turn
        # are not among them.
        held_before = rack.concealed.count(JOKER) - rack.exchanged_jokers
        if added.count(JOKER) > held_before:
            raise _no("J-15", "a Joker won by exchange this turn may not go into this turn's "
                      "exposure")
        _remove(rack, added)
        rack.concealed += returned
    rack.count += len(returned) - len(added)
    current.tiles = new
    naturals = {t for t in new if t != JOKER}
    current.erroneous = None if 3 <= len(new) <= 6 and len(naturals) == 1 else "DH-2 (c)"
    _check_exposed_hands(state)
    return [_ev("ExposureAdjusted", c.seat, {"tiles": _names(new), "rule": "American C-8"})]


# -- Joker exchange --------------------------------------------------------------------------------

def _exchange(state: AmericanHand, c: cm.JokerExchange) -> list[AmericanEvent]:
    if state.phase != "play":
        raise _no("J-5", "Jokers are exchanged during play only")
    _not_dead(state, c.seat, "Joker exchange")
    owner = state.rack(c.owner)
    tile = american_tile(c.tile)
    if tile == JOKER:
        raise _no("J-4", "only a natural goes in for a Joker, never a Joker for a natural")
    candidates = [i for i, e in enumerate(owner.exposures) if JOKER in e.tiles
                  and (c.index is None or i == c.index)]
    matching = [i for i in candidates if owner.exposures[i].natural == tile]
    wrong = False
    if matching:
        index = matching[0]
    elif c.index is not None and candidates and state.mode == "mirror":
        index, wrong = candidates[0], True  # J-8: a wrong tile placed; correctable till discard
    else:
        raise _no("J-4", f"no Joker stands for {tile_name(tile)} in an exposure of "
                  f"{c.owner.name}")
    target = owner.exposures[index]
    if target.erroneous:
        raise _no("J-13", "the Jokers of an incorrect exposure are never redeemable")
    rack = state.rack(c.seat)
    if state.mode == "full":
        _take(rack, [tile], "J-4", "exchange")
    events: list[AmericanEvent] = []
    if state.step == "window" and state.live is not None:
        # Another player beginning an exchange closes the call window (C-5 (b)).
        state.calls = []
        if c.seat != state.live.seat:
            events += _close(state, cm.CloseWindow())
    if c.seat != state.turn or state.step != "discard":
        # Only on your own turn after drawing and racking or calling and exposing (J-5);
        # earlier leaves the hand short and dead (DH-2 (b)).
        _record(state, c.seat, "DH-2 (b)", "exchanged a Joker before drawing or calling")
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
    events.append(_ev("JokerExchanged", c.seat, {"owner": c.owner.name, "tile": tile_name(tile),
                                                  "exposure": _names(target.tiles)}))
    return events


def _correct_exchange(state: AmericanHand, c: cm.CorrectExchange) -> list[AmericanEvent]:
    """J-8: a wrong tile placed in an exchange is corrected without penalty until the
    exchanger discards: the right natural goes in, the wrong tile comes back."""
    owner = state.rack(c.owner)
    target = next((e for e in owner.exposures if e.wrong_exchange), None)
    if target is None or target.wrong_tile is None or c.seat != state.turn \
            or state.step != "discard":
        raise _no("J-8", "there is no wrong exchange of this player to correct before the "
                  "discard")
    tile = american_tile(c.tile)
    natural = next((t for t in target.tiles if t not in (JOKER, target.wrong_tile)), None)
    if natural is not None and tile != natural:
        raise _no("J-4", f"the exposure is of {tile_name(natural)}, not {tile_name(tile)}")
    rack = state.rack(c.seat)
    if state.mode == "full":
        _take(rack, [tile], "J-8", "correct the exchange")
        rack.concealed.remove(tile)
        rack.concealed.append(target.wrong_tile)
    target.tiles[target.tiles.index(target.wrong_tile)] = tile
    target.wrong_exchange = False
    target.wrong_tile = None
    return [_ev("ExchangeCorrected", c.seat, {"owner": c.owner.name,
                                               "exposure": _names(target.tiles),
                                               "rule": "American J-8"})]


# -- Mah Jongg -------------------------------------------------------------------------------------

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


def _mahjong(state: AmericanHand, c: cm.DeclareMahJongg) -> list[AmericanEvent]:
    _not_dead(state, c.seat, "win")
    by = _win_kind(state, c.seat)
    if by is None and state.phase != "play":
        raise _no("CH-9", "a Mah Jongg during the Charleston does not stop it; only East "
                  "wins there: dealt complete (Heavenly), or declared as the Charleston ends "
                  "(Earthly)")
    if by is None:
        raise _no("M-1", "Mah Jongg is declared on the 14th tile: after your own draw or "
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
    if by == "discard" and live is not None and live.misnamed:
        # MN-3 (MN-4 for a Joker): the Mah Jongg stands; the misnamer pays for the table.
        rule = "MN-4" if live.tile == JOKER else "MN-3"
        settlement = pay_for_the_table(line.points * (2 if jokerless else 1), live.seat,
                                       c.seat, rule)
    else:
        settlement = settle_win(win, state.players, dead, state.options.payments)
    settlement.payments += _settle_challenges(state)
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
    events.append(_ev("MahJongg", c.seat, {"line": line.id, "points": line.points, "by": by,
                                           "jokerless": jokerless}))
    # Concealed racks are not published: only the winner's hand is shown face up (M-1).
    shown = {s.name: _names(r.concealed) for s, r in state.racks.items() if s != c.seat}
    events.append(_ev("HandEnded", None, state.result, {"racks": shown}))
    return events


def _retract(state: AmericanHand, c: cm.RetractMahJongg) -> list[AmericanEvent]:
    if state.awarded != (c.seat, "mahjong") or state.called_tile is None or state.live is None:
        raise _no("M-4", "only a Mah Jongg called on a discard, not yet shown, may be taken back")
    if c.to_exposure:
        # Found short: the declaration becomes a call for an exposure, no penalty (M-4).
        state.awarded = (c.seat, "expose")
        return [_ev("MahJonggRetracted", c.seat, {"rule": "American M-4", "now": "expose"})]
    # Corrected at once: no penalty, play on; the tile goes back and is dead (C-5).
    live = state.live
    state.rack(live.seat).discards.append(live.tile)
    state.awarded = None
    state.called_tile = None
    state.live = None
    state.turn = state.next_player(live.seat)
    state.step = "draw"
    return [_ev("MahJonggRetracted", c.seat, {"rule": "American M-4", "now": "play on"})]


def _place_bet(state: AmericanHand, c: cm.PlaceBet) -> list[AmericanEvent]:
    if not state.options.bettor:
        raise _no("B-1", "this table plays without a Bettor")
    if state.bet is not None:
        raise _no("B-1", "the bet may not be changed during play")
    if state.phase != "play" or state.first_discard:
        raise _no("B-1", "the bet is placed after the Charleston and before East's first "
                  "discard")
    choice = c.choice.strip().upper()
    if choice != "WALL" and choice not in {s.name for s in state.players}:
        raise MalformedInput("choice", f"a seat at the table or 'wall', not {c.choice!r}")
    state.bet = choice
    return [_ev("BetPlaced", None, None, {"choice": choice})]  # secret until the end (B-1)


def _bettor(state: AmericanHand, settlement: Settlement, winner: Seat | None) -> list[Any]:
    if state.bet is None:
        return []
    rows = bettor_settlement(settlement, chosen=Seat[state.bet] if state.bet != "WALL" else
                             Seat.E, winner=winner, lowest_value=state.card.lowest_value,
                             bet_on_wall=state.bet == "WALL", players=state.players)
    if state.bet == "WALL" and winner is not None:
        rows = []  # B-4: a wall-game bet wins only a wall game; otherwise nothing is paid
    return [{"from": a, "to": b, "amount": n, "why": why} for a, b, n, why in rows]


def _settle_challenges(state: AmericanHand) -> list[Payment]:
    """DH-6: disputed challenges are settled when the tiles are shown."""
    return [settle_challenge(challenger, target, was_dead, state.options.payments)
            for challenger, target, was_dead in state.challenges]


def _false_mahjong(state: AmericanHand, seat: Seat, why: str) -> list[AmericanEvent]:
    """M-4: a Mah Jongg in error with the hand exposed: the declarer is dead, stops playing and
    pays the eventual winner; the others play on (DH-2 (l))."""
    rack = state.rack(seat)
    _declare_dead(state, seat, "American M-4, DH-2 (l)")
    state.false_declarer = seat
    events = [_ev("FalseMahJongg", seat, {"why": why, "rule": "American M-4"})]
    if state.awarded == (seat, "mahjong"):
        called = state.called_tile
        state.awarded = None
        if state.other_mahjong_calls:
            # Two Mah Jongg calls: if the nearer one is wrong, the tile passes to the other (C-9).
            other = state.other_mahjong_calls.pop(0)
            state.awarded = (other, "mahjong")
            state.turn = other
            events.append(_ev("CallAwarded", other, {"rule": "American C-9", "kind": "mahjong"}))
            return events + _end_if_one_left(state)
        # The tile stays with the dead hand (C-9).
        if called is not None:
            if state.mode == "full":
                rack.concealed.append(called)
            rack.count += 1
        state.called_tile = None
        state.live = None
    state.step = "draw"
    state.turn = state.next_player(seat)
    return events + _end_if_one_left(state)


def _declare_dead(state: AmericanHand, seat: Seat, rule: str) -> None:
    rack = state.rack(seat)
    rack.declared_dead = rule
    # J-13: the erroneous exposure goes back to the rack, Jokers and all; correct ones stay.
    keep = []
    for e in rack.exposures:
        if e.erroneous:
            rack.concealed += e.tiles if state.mode == "full" else []
            rack.count += len(e.tiles)
        else:
            keep.append(e)
    rack.exposures = keep


def _end_if_one_left(state: AmericanHand, last_out: Seat | None = None) -> list[AmericanEvent]:
    playing = [s for s, r in state.racks.items() if not r.out]
    if len(playing) > 1:
        if state.turn not in playing and state.step in ("draw", "discard"):
            state.turn = state.next_player(state.turn)
            state.step = "draw"
        return []
    # Three hands dead: the last throws in and nobody is paid (M-4) — unless a false Mah
    # Jongg left a single intact hand, which collects (M-4 cascade).
    settlement = Settlement(list(_settle_challenges(state)))
    thrown = [s for s, r in state.racks.items() if r.thrown_in]
    if state.false_declarer is not None and thrown and playing:
        # The value of the hand the intact player was attempting: in full mode its nearest
        # line; a mirror cannot see it and takes the card's lowest value.
        target = closest(state.card, _hand_of(state, playing[0])) if state.mode == "full" \
            else None
        value = state.card.lines[target.line].points if target else state.card.lowest_value
        later = last_out if len(thrown) == 1 and last_out not in thrown else None
        cascade = false_mahjong_cascade(declarer=state.false_declarer, thrown_in=thrown,
                                        intact=[*playing, *([later] if later else [])],
                                        attempted_values={playing[0]: value},
                                        lowest_value=state.card.lowest_value,
                                        later_dead=later)
        settlement.payments += cascade.payments
    state.result = {"result": "dead", "winner": None, "rule": "American M-4",
                    **settlement.as_json(state.players)}
    return [_ev("HandEnded", None, state.result)]


def _hand_of(state: AmericanHand, seat: Seat) -> Any:
    rack = state.rack(seat)
    exposures = [e.tiles for e in rack.exposures if not e.erroneous]
    return make_hand(rack.concealed, exposures, sizes=(13, 14, 15))


def _wall_game(state: AmericanHand) -> list[AmericanEvent]:
    """W-1: the wall is exhausted with no Mah Jongg: nobody pays (challenges still settle)."""
    dead = [s for s, r in state.racks.items() if r.out or r.evidence]
    settlement = Settlement(list(_settle_challenges(state)))
    bettor = _bettor(state, settlement, None)
    state.result = {"result": "wall", "winner": None, "rule": "American W-1",
                    **settlement.as_json(state.players),
                    **({"bettor": {"bet": state.bet, "payments": bettor}} if state.bet else {}),
                    "tournament": {s: p for s, (p, _) in tournament_points(
                        None, state.players, dead).items()}}
    return [_ev("HandEnded", None, state.result)]


# -- challenges and faults -------------------------------------------------------------------------

def _challenge(state: AmericanHand, c: cm.Challenge) -> list[AmericanEvent]:
    if c.seat == c.target:
        raise _no("DH-1", "a player may not declare their own hand dead")
    if c.target not in state.racks:
        raise _no("DH-5", f"seat {c.target.name} is empty")
    _not_dead(state, c.seat, "challenge")
    if state.phase != "play":
        raise _no("CH-8", "a hand cannot go dead during the Charleston")
    target = state.rack(c.target)
    if target.declared_dead is not None:
        raise _no("DH-7", f"{c.target.name}'s hand is already declared dead")
    visible = [e for e in target.evidence if e.visible]
    if visible:
        rule = f"American {visible[0].rule}"
        _declare_dead(state, c.target, rule)
        events = [_ev("ChallengeRuled", c.seat, {"target": c.target.name, "ruling": "upheld",
                                                 "rule": rule}),
                  _ev("DeclaredDead", c.target, {"rule": rule})]
        if state.turn == c.target and state.step in ("draw", "discard"):
            state.turn = state.next_player(c.target)
            state.step = "draw"
        return events + _end_if_one_left(state, c.target)
    # DH-3: nothing visible shows it; the challenged may deny without revealing anything.
    state.challenges.append((c.seat, c.target, bool(target.evidence)))
    return [_ev("ChallengeRuled", c.seat, {"target": c.target.name, "ruling": "disputed",
                                           "rule": "American DH-5, DH-6"})]


def _concede(state: AmericanHand, c: cm.ConcedeDead) -> list[AmericanEvent]:
    pending = [x for x in state.challenges if x[1] == c.seat]
    if not pending:
        raise _no("DH-1", "a player may not declare their own hand dead; only a challenge "
                  "may be accepted")
    state.challenges.remove(pending[-1])
    _declare_dead(state, c.seat, "American DH-5")
    events = [_ev("DeclaredDead", c.seat, {"rule": "American DH-5", "conceded": True})]
    if state.turn == c.seat and state.step in ("draw", "discard"):
        state.turn = state.next_player(c.seat)
        state.step = "draw"
    return events + _end_if_one_left(state, c.seat)


def _throw_in(state: AmericanHand, c: cm.ThrowIn) -> list[AmericanEvent]:
    if state.false_declarer is None:
        raise _no("M-2", "nobody throws in or exposes a hand until a Mah Jongg is verified")
    rack = state.rack(c.seat)
    if rack.out:
        raise _no("M-4", f"{c.seat.name}'s hand is already out")
    rack.thrown_in = True
    events = [_ev("ThrewIn", c.seat, {"rule": "American M-4"})]
    if state.turn == c.seat:
        state.turn = state.next_player(c.seat)
        state.step = "draw"
    return events + _end_if_one_left(state, c.seat)


_CAUSES = {"h": "DH-2 (h)", "i": "DH-2 (i)", "j": "DH-2 (j)", "n": "DH-2 (n)", "k": "DH-2 (k)"}


def _observed(state: AmericanHand, c: cm.Observed) -> list[AmericanEvent]:
    if c.cause.startswith("count:"):
        try:
            count = int(c.cause.split(":", 1)[1])
        except ValueError:
            raise MalformedInput("cause", f"count:<number>, not {c.cause!r}") from None
        rack = state.rack(c.seat)
        expected = (13, 14) if state.phase == "play" else (rack.count,)
        if count in expected:
            return []
        if not state.first_discard:
            left_of_east = Seat.N if Seat.N in state.racks else state.players[-1]
            if c.seat == left_of_east and count == 12 and state.phase == "play":
                # CH-7's one exception: the player to East's left, one short, alone may take
                # the next wall tile before East's first discard.
                state.short_left = c.seat
                return [_ev("ShortHandMayDraw", c.seat, {"rule": "American CH-7"})]
            # DH-9 / CH-7: before East's first discard a wrong count means a redeal.
            state.result = {"result": "redeal", "rule": "American CH-7, DH-9",
                            "why": f"{c.seat.name} holds {count} tiles"}
            return [_ev("HandEnded", None, state.result)]
        _record(state, c.seat, "DH-2 (a)", f"{count} tiles after East's first discard")
        wrong = [s for s, r in state.racks.items() if any(e.rule == "DH-2 (a)" for e in r.evidence)]
        if len(wrong) >= 3:
            # DH-9: three wrong counts after East's first discard: the hand is replayed.
            state.result = {"result": "redeal", "rule": "American DH-9",
                            "why": "three hands with wrong counts"}
            return [_ev("HandEnded", None, state.result)]
        return []
    rule = _CAUSES.get(c.cause)
    if rule is None:
        raise MalformedInput("cause", f"one of h i j n k or count:<n>, not {c.cause!r}")
    if state.phase != "play":
        raise _no("CH-8", "a hand cannot go dead during the Charleston")
    _record(state, c.seat, rule, "seen by the table")
    return []


_HANDLERS: dict[type, Any] = {
    cm.CharlestonPass: _charleston_pass,
    cm.CharlestonVote: _vote,
    cm.CourtesyOffer: _courtesy_offer,
    cm.CourtesyPass: _courtesy_pass,
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
    cm.DeclareMahJongg: _mahjong,
    cm.Challenge: _challenge,
    cm.ConcedeDead: _concede,
    cm.ThrowIn: _throw_in,
    cm.Observed: _observed,
    cm.RetractMahJongg: _retract,
    cm.PlaceBet: _place_bet,
}


# -- views and invariants --------------------------------------------------------------------------

def digest(state: AmericanHand) -> str:
    """A digest of everything a replay must reproduce: the public view, every rack, the wall
    and the result."""
    body = {
        "public": public_view(state),
        "racks": {s.name: [_names(r.concealed), r.count, [_names(e.tiles) for e in r.exposures],
                           _names(r.discards), r.declared_dead, [e.rule for e in r.evidence]]
                  for s, r in state.racks.items()},
        "wall": _names(state.wall),
        "result": state.result,
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def public_view(state: AmericanHand) -> dict[str, Any]:
    """What the table shows: never a concealed tile, never the private dead-hand evidence."""
    return {
        "ruleset": "american", "mode": state.mode, "phase": state.phase,
        "turn": state.turn.name, "step": state.step, "wall": state.wall_left,
        "live": None if state.live is None else tile_name(state.live.tile),
        "seats": {s.name: {"count": r.count,
                           "exposures": [_names(e.tiles) for e in r.exposures],
                           "discards": _names(r.discards),
                           "declared_dead": r.declared_dead is not None}
                  for s, r in state.racks.items()},
        "result": state.result,
    }


def seat_view(state: AmericanHand, seat: Seat) -> dict[str, Any]:
    view = public_view(state)
    view["seat"] = seat.name
    view["concealed"] = _names(state.rack(seat).concealed)
    return view


def check_invariants(state: AmericanHand) -> list[str]:
    """Broken invariants of a full-mode hand: every tile in exactly one place, and the counts."""
    if state.mode != "full":
        return []
    problems = []
    everywhere = list(state.wall)
    for seat, rack in state.racks.items():
        everywhere += rack.concealed + rack.discards
        for e in rack.exposures:
            everywhere += e.tiles
        if len(rack.concealed) != rack.count:
            problems.append(f"{seat.name}: count {rack.count} but {len(rack.concealed)} tiles")
        if not rack.out and not rack.evidence and state.result is None:
            held = rack.count + rack.exposed_count()
            turn_here = seat == state.turn and state.step in ("discard",)
            if state.phase != "play":  # passes never change a count: East 14, others 13
                allowed = {14} if seat == Seat.E else {13}
            else:
                allowed = {14} if turn_here else {13}
            if seat == state.turn and state.step == "awarded":
                allowed = {13}
            if held not in allowed:
                problems.append(f"{seat.name} holds {held} tiles")
    if state.called_tile is not None:
        everywhere.append(state.called_tile)
    if sorted(everywhere) != sorted(american_set()):
        problems.append("the tiles on the table are not exactly the 152-tile set")
    if len(state.wall) != state.wall_left:
        problems.append("the wall count is off")
    return problems


def copy_options(options: AmericanOptions, **changes: Any) -> AmericanOptions:
    return replace(options, **changes)


FLOWER_TILE = FLOWER  # re-exported for bots
