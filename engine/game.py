"""The hand as an event-sourced state machine: ``apply(state, command) -> (state, events)``.

Each command has a *decide* function that checks it against the rules and the state and
returns the events it causes, or raises ``RuleViolation`` naming the rule. Only then are the
events folded into the state (``engine.state.evolve``), so nothing half-applies.

The decide functions live by concern: ``engine.turns`` (dice, deal, draws, flowers,
discards, kongs from the hand), ``engine.claims`` (calls and their adjudication),
``engine.mahjong`` (going out and checking the hand shown); ``engine.checks`` holds what they
share and ``engine.views`` the public and per-seat views. This module starts hands, applies
commands, takes corrections and rebuilds a hand from its record.

What differs between the books is read from the ``Ruleset`` (``engine.rules``), never from the
family's name.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from engine import claims, mahjong, turns
from engine import commands as cm
from engine import events as ev
from engine.claims import adjudicate, legal_claim_kinds
from engine.errors import EngineError, MalformedInput, RuleViolation
from engine.mahjong import can_win, win_problem
from engine.rules import Ruleset, get_ruleset
from engine.seats import SEATS, Seat
from engine.state import HandState, Mode, evolve
from engine.tiles import Tile, tile_set
from engine.views import public_view, seat_view
from engine.wall import build_wall

__all__ = [
    "HandState",
    "Mode",
    "adjudicate",
    "apply",
    "can_win",
    "commands_of",
    "legal_claim_kinds",
    "new_hand",
    "public_view",
    "rebuild",
    "seat_view",
    "win_problem",
]


# -- a new hand ----------------------------------------------------------------------------


def new_hand(
    ruleset: Ruleset | str,
    mode: Mode = "full",
    *,
    rng: random.Random | None = None,
    wall: Sequence[Tile] | None = None,
    prevailing: Seat | None = Seat.E,
    hand: int = 0,
    players: int | Sequence[Seat] = 4,
) -> tuple[HandState, list[ev.Event]]:
    """Start a hand. Full mode needs the wall as built (``wall``) or an ``rng`` to build one;
    mirror mode knows no tile until the table shows it.

    ``players``: 4, or for the 1924 Two- and Three-Hand Games 2 (East and West) or 3 (no
    West player), or the seats in play (East always among them)."""
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if mode not in ("full", "mirror"):
        raise MalformedInput("mode", f"mode is 'full' or 'mirror', not {mode!r}")
    seats = _players(rules, players)
    built: tuple[Tile, ...] | None = None
    if mode == "full":
        if wall is None:
            wall = build_wall(rules, rng or random.Random(0))  # the set, shuffled
        elif sorted(wall) != sorted(tile_set(rules.tiles)):
            raise MalformedInput("wall", f"the wall must be the {rules.tiles}-tile set")
        built = tuple(wall)
    state = HandState(rules, mode)
    started = ev.HandStarted(
        ruleset=rules.name,
        mode=mode,
        prevailing=prevailing if rules.prevailing_wind else None,
        number=hand,
        wall=built,
        players=seats,
    )
    _commit(state, [started])
    return state, [started]


_DEFAULT_PLAYERS = {4: SEATS, 3: (Seat.E, Seat.S, Seat.N), 2: (Seat.E, Seat.W)}


def _players(rules: Ruleset, players: int | Sequence[Seat]) -> tuple[Seat, ...]:
    if isinstance(players, int):
        seats = _DEFAULT_PLAYERS.get(players, ())
    else:
        seats = tuple(sorted(set(players)))
    if len(seats) not in rules.player_counts or Seat.E not in seats:
        sizes = " or ".join(str(n) for n in rules.player_counts)
        raise MalformedInput("players", f"{rules.name} is played by {sizes} players, East "
                             f"among them, not {players!r}")
    return seats


def _commit(state: HandState, events: list[ev.Event]) -> None:
    for e in events:
        evolve(state, e)
    state.log.extend(events)


def apply(state: HandState, command: cm.Command) -> tuple[HandState, list[ev.Event]]:
    """Check ``command`` and fold its events into ``state`` (changed in place and returned).

    Raises ``RuleViolation`` (naming its rule) or ``MalformedInput``; then nothing changed.
    """
    decide = _DECIDE.get(type(command))
    if decide is None:
        raise MalformedInput("type", f"the engine does not take {type(command).__name__}")
    seat = getattr(command, "seat", None)
    if seat is not None and type(seat) is not Seat:
        # Typed callers may pass a plain int; anything else is not a seat.
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
            raise MalformedInput("seat", f"a seat is one of E S W N, not {seat!r}")
        command = dataclasses.replace(command, seat=Seat(seat))  # type: ignore[type-var]
    if state.phase == "ended" and not isinstance(command, cm.Correct):
        raise RuleViolation(
            state.end_rule or state.ruleset.rule("mahjong"),
            f"the hand is over ({state.result}); no {command.TYPE} is accepted",
            "hand_over",
        )
    try:
        events = decide(state, command)
    except RuleViolation as exc:
        if exc.command is None:
            exc.command, exc.seq = command, len(state.standing)
        raise
    if isinstance(command, cm.Correct):
        return state, events  # _correct folded them already
    _commit(state, events)
    return state, events


# -- corrections ---------------------------------------------------------------------------

def commands_of(standing: Sequence[ev.Event]) -> list[tuple[int, cm.Command]]:
    """The commands behind a standing record, each with the seq of its first event."""
    out: list[tuple[int, cm.Command]] = []
    mirror = bool(standing) and isinstance(standing[0], ev.HandStarted) \
        and standing[0].mode == "mirror"
    for i, e in enumerate(standing):
        command: cm.Command | None = None
        if isinstance(e, ev.DiceThrown):
            command = cm.Throw(seat=e.seat, dice=e.dice)
        elif isinstance(e, ev.Dealt) and e.seat == Seat.E:
            seats = len(standing[0].players) if isinstance(standing[0], ev.HandStarted) else 4
            counts = tuple(d.count for d in standing[i : i + seats] if isinstance(d, ev.Dealt))
            command = cm.Deal(counts=counts if mirror else None)
        elif isinstance(e, ev.Drew):
            command = cm.Draw(seat=e.seat, tile=e.tile, time_us=e.time_us)
        elif isinstance(e, ev.FlowerGrounded):
            command = cm.GroundFlower(seat=e.seat, tile=e.tile, time_us=e.time_us)
        elif isinstance(e, ev.Discarded):
            command = cm.Discard(seat=e.seat, tile=e.tile, time_us=e.time_us)
        elif isinstance(e, ev.ClaimMade):
            command = cm.Claim(seat=e.seat, kind=e.kind, time_us=e.time_us, tiles=e.tiles,
                               into_sequence=e.into_sequence)
        elif isinstance(e, ev.ClaimsClosed):
            command = cm.CloseClaims(time_us=e.closed_us)
        elif isinstance(e, ev.MeldExposed):
            command = cm.Expose(seat=e.seat, tiles=e.tiles, time_us=e.time_us)
        elif isinstance(e, ev.KongDeclared):
            command = cm.DeclareKong(seat=e.seat, tile=e.tile, time_us=e.time_us)
        elif isinstance(e, ev.KongAdded):
            command = cm.AddKong(seat=e.seat, tile=e.tile, time_us=e.time_us)
        elif isinstance(e, ev.MahjongDeclared):
            command = cm.DeclareMahjong(seat=e.seat, concealed=e.concealed,
                                        tile=e.win_tile if mirror else None)
        elif isinstance(e, ev.TilesWashed):
            command = cm.WashTiles(seat=e.seat, concealed=e.concealed if mirror else None)
        elif isinstance(e, ev.FaultRecorded) and e.referee:
            command = cm.RecordFault(seat=e.seat, fault=e.fault, reason=e.reason)
        elif isinstance(e, ev.FalseMahjong):
            command = cm.DeclareMahjong(seat=e.seat, concealed=e.concealed,
                                        tile=e.tile if mirror else None)
        if command is not None:
            out.append((i, command))
    return out


def _fresh(started: ev.HandStarted) -> HandState:
    state = HandState(get_ruleset(started.ruleset), started.mode)  # type: ignore[arg-type]
    _commit(state, [started])
    return state


def _correct(state: HandState, c: cm.Correct) -> list[ev.Event]:
    if not isinstance(c.at, int) or not 0 < c.at < len(state.standing):
        raise MalformedInput("at", f"no event {c.at} in this hand (0-{len(state.standing) - 1})")
    if isinstance(c.command, cm.Correct):
        raise MalformedInput("command", "a correction cannot replace with a correction")
    cmds = commands_of(state.standing)
    index = next((k for k, (at, _) in enumerate(cmds) if at == c.at), None)
    if index is None:
        raise MalformedInput("at", f"event {c.at} ({state.standing[c.at].TYPE}) follows from an "
                             "earlier command: correct that one")
    started = state.standing[0]
    assert isinstance(started, ev.HandStarted)
    fresh = _fresh(started)
    replay = [cmd for _, cmd in cmds[:index]]
    if c.command is not None:
        replay.append(c.command)
    replay += [cmd for _, cmd in cmds[index + 1 :]]
    for j, cmd in enumerate(replay):
        try:
            apply(fresh, cmd)
        except RuleViolation as exc:
            raise RuleViolation(exc.rule, f"correction refused: with it, {cmd.TYPE} "
                                f"#{j} would be illegal: {exc.message}", exc.code) from None
        except EngineError as exc:
            raise MalformedInput("command", f"correction refused at {cmd.TYPE} #{j}: {exc}") \
                from None
    amended = ev.Amended(at=c.at, command=c.command, reason=c.reason,
                         events=tuple(fresh.standing[c.at :]))
    log = state.log + [amended]
    state.__dict__.update(fresh.__dict__)
    state.log = log
    return [amended]


# -- rebuilding, views -----------------------------------------------------------------------


def rebuild(events: Sequence[ev.Event]) -> HandState:
    """Fold a hand's record into its state. Trusted: the engine's own events (a log
    written by ``apply``); corrections (``Amended``) are replayed as recorded."""
    if not events or not isinstance(events[0], ev.HandStarted):
        raise MalformedInput("events[0]", "a hand's record begins with HandStarted")
    state = _fresh(events[0])
    for e in events[1:]:
        if isinstance(e, ev.HandStarted):
            raise MalformedInput("events", "a second HandStarted: one hand per rebuild")
        if isinstance(e, ev.Amended):
            log = state.log + [e]
            again = _fresh(events[0])
            for f in list(state.standing[1 : e.at]) + list(e.events):
                evolve(again, f)
            state.__dict__.update(again.__dict__)
            state.log = log
        else:
            evolve(state, e)
            state.log.append(e)
    return state


_DECIDE: dict[type[cm.Command], Callable[[HandState, Any], list[ev.Event]]] = {
    **turns.DECIDERS,
    **claims.DECIDERS,
    **mahjong.DECIDERS,
    cm.Correct: _correct,
}
