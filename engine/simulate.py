"""Whole hands played by bots under the full engine, with every invariant checked.

``play_hand`` drives one full-information hand: it throws the dice from the seeded RNG, deals,
lets each seat ground its flowers in turn from East (Law 22), then asks the bots whenever a
seat may act: the seat on turn, every other seat on a discard (a call window the simulator
closes once each has answered), the awarded seat. ``checks`` re-verifies the hand three ways:
the invariants after every event, the rebuilt state from the log, and a mirror-mode hand fed
only what a table would show, whose public view must agree. ``play_hands`` plays a whole game
of hands so (`mjtable play`, through ``engine.family.Classical.play``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import commands as cm
from engine import events as ev
from engine.bots import GreedyBot, SeatView
from engine.errors import EngineError
from engine.game import apply, commands_of, new_hand, public_view, rebuild
from engine.invariants import InvariantBroken, check
from engine.rules import Ruleset
from engine.seats import SEATS, Seat
from engine.simclock import SimClock
from engine.state import HandState
from engine.wall import second_thrower, throw_dice

MAX_STEPS = 2000  # a hand has at most a few hundred commands; more means a loop


class Bot(Protocol):
    def act(self, view: SeatView) -> cm.Command | None: ...


@dataclass
class HandOutcome:
    state: HandState
    commands: int = 0
    violations: list[str] = field(default_factory=list)


def play_hand(
    ruleset: Ruleset,
    rng: random.Random,
    bots: Sequence[Bot],
    *,
    prevailing: Seat | None = Seat.E,
    hand: int = 0,
    players: int | Sequence[Seat] = 4,
    checks: bool = True,
    cross_check: bool = True,
    clock: SimClock | None = None,
) -> HandOutcome:
    """Play one hand. ``checks`` runs the invariants after every command; ``cross_check``
    then rebuilds the hand from its log and mirrors it (``verify_record``). ``clock`` stamps
    every action with a board time (default: a clock of its own, seeded by ``hand``)."""
    state, _ = new_hand(ruleset, "full", rng=rng, prevailing=prevailing, hand=hand,
                        players=players)
    out = HandOutcome(state)
    if clock is None:
        clock = SimClock(random.Random(f"clock:{hand}"))
    views = [SeatView(state, s, clock) for s in SEATS]

    def do(command: cm.Command) -> None:
        try:
            apply(state, command)
        except EngineError as exc:
            out.violations.append(f"refused {command.to_json()}: {exc}")
            raise
        out.commands += 1
        if checks:
            try:
                check(state)
            except InvariantBroken as exc:
                out.violations.append(f"after {command.to_json()}: {exc}")
                raise

    try:
        first = throw_dice(rng)
        do(cm.Throw(seat=Seat.E, dice=first))
        do(cm.Throw(seat=second_thrower(sum(first), state.players, ruleset.dummy_walls),
                    dice=throw_dice(rng)))
        do(cm.Deal())
        # Law 22: beginning with East, each grounds flowers and replaces them.
        for seat in state.players:
            while state.phase == "play":
                clock.think()
                command = bots[seat].act(views[seat])
                if not isinstance(command, cm.GroundFlower | cm.Draw | cm.DeclareKong
                                  | cm.WashTiles):
                    break
                do(command)
        steps = 0
        while state.phase != "ended":
            steps += 1
            if steps > MAX_STEPS:
                out.violations.append("the hand did not end")
                break
            bot_step(state, bots, views, do, clock)
    except (EngineError, InvariantBroken):
        pass
    if cross_check and not out.violations:
        out.violations.extend(verify_record(state))
    return out


def bot_step(state: HandState, bots: Sequence[Bot], views: Sequence[SeatView],
             do: Any, clock: SimClock | None = None) -> None:
    """Ask whichever bot may act now and ``do`` its command: on a discard (or a robbable
    kong) every other seat, whose calls reach the table in the order of their board times,
    then close the window.

    Where the discard stays claimable after the next player draws (Code 1924 Law 53,
    Pung-Chow F rule 1), the next player is asked first and, if he does not call, draws at
    once, as players do; the others may still call, and a call then taken sends his tile
    back to the wall. ``clock`` (shared with the views) times every action; without one
    nothing is timed and calls are made in the order asked."""
    phase = state.phase
    if phase in ("claims", "rob"):
        opened = state.window_opened_us
        since = opened
        presses: list[cm.Claim] = []
        skip = None
        if phase == "claims" and state.ruleset.claims_after_next_draw and state.claimable:
            skip = nxt = state.turn
            if clock is not None and opened is not None:
                clock.react(opened)  # the next player's press, or his draw
            command = bots[nxt].act(views[nxt])
            if isinstance(command, cm.Claim):
                presses.append(command)
            elif state.live_left() > 0:
                do(cm.Draw(seat=nxt, time_us=None if clock is None else clock.now_us))
                if state.phase != "play" or state.claimable is None:
                    return
                since = None if clock is None else clock.now_us
        presses += _ask_others(state, bots, views, skip, since, clock)
        if len(presses) > 1:
            presses.sort(key=_press_time)
        for press in presses:
            do(press)
        if phase == "rob" or state.phase == "claims":  # calls made, or no draw can follow
            closing = None
            if clock is not None and opened is not None:
                last = presses[-1].time_us if presses else None  # in time order
                closing = clock.close_after(opened, last or opened)
            do(cm.CloseClaims(time_us=closing))
        return
    if phase == "award":
        assert state.award is not None
        seat = state.award[0]
    else:
        owing = [s for s in SEATS if state.seats[s].owed_loose]
        seat = owing[0] if owing else state.turn
    if clock is not None:
        clock.think()
    command = bots[seat].act(views[seat])
    if command is None:
        raise InvariantBroken(f"{seat} has nothing to do in phase {phase}")
    do(command)


def _press_time(claim: cm.Claim) -> int:
    return claim.time_us or 0


def _ask_others(state: HandState, bots: Sequence[Bot], views: Sequence[SeatView],
                skip: Seat | None, since: int | None, clock: SimClock | None) -> list[cm.Claim]:
    """The calls of every seat after the discarder (or the kong's owner), each pressed some
    reaction time after ``since`` on the clock."""
    owner = state.claimable[1] if state.phase != "rob" and state.claimable else \
        (state.rob[1] if state.rob else state.turn)
    presses = []
    for seat in state.others_in_turn(owner):
        if seat == skip:
            continue
        command = bots[seat].act(views[seat])
        if isinstance(command, cm.Claim):
            if clock is not None and since is not None:  # timed only if it is a press
                command = cm.Claim(seat=seat, kind=command.kind, time_us=clock.react(since),
                                   tiles=command.tiles, into_sequence=command.into_sequence)
            presses.append(command)
    return presses


def fingerprint(state: HandState) -> tuple[Any, ...]:
    """Everything a rebuilt state must reproduce."""
    return (
        public_view(state),
        [s.concealed[:] for s in state.seats],
        [s.n for s in state.seats],
        state.front,
        state.back,
        state.seen[:],
        [e.to_json() for e in state.standing],
    )


def mirror_of(state: HandState) -> HandState:
    """Feed a mirror-mode hand only what the table shows of ``state``'s hand, checking its
    invariants after every command (``InvariantBroken`` if one fails)."""
    started = state.standing[0]
    assert isinstance(started, ev.HandStarted)
    mirror, _ = new_hand(state.ruleset, "mirror", prevailing=started.prevailing,
                         hand=started.number, players=started.players)
    for _, command in commands_of(state.standing):
        if isinstance(command, cm.Draw):
            command = cm.Draw(seat=command.seat, time_us=command.time_us)
        elif isinstance(command, cm.Claim):
            # What the table hears: the call, its time and, under Pung-Chow, "Chow" or "Pung".
            command = cm.Claim(seat=command.seat, kind=command.kind, time_us=command.time_us,
                               into_sequence=command.into_sequence)
        elif isinstance(command, cm.WashTiles):
            washed = next(e for e in state.standing if isinstance(e, ev.TilesWashed))
            command = cm.WashTiles(seat=command.seat, concealed=washed.concealed)
        elif isinstance(command, cm.DeclareMahjong):
            shown = next(e for e in state.standing
                         if isinstance(e, ev.MahjongDeclared | ev.FalseMahjong))
            tile = shown.win_tile if isinstance(shown, ev.MahjongDeclared) else shown.tile
            command = cm.DeclareMahjong(seat=command.seat, concealed=shown.concealed, tile=tile)
        apply(mirror, command)
        check(mirror)  # the mirror keeps its counts too, at every step
    return mirror


def _public_events(state: HandState) -> list[dict[str, Any]]:
    out = []
    for e in state.standing:
        j = e.public_json()
        j.pop("mode", None)
        out.append(j)
    return out


def verify_record(state: HandState) -> list[str]:
    """Replay equality and mirror agreement; a list of what disagreed."""
    problems = []
    try:
        again = rebuild(state.log)
        if fingerprint(again) != fingerprint(state):
            problems.append("replay: the rebuilt state differs from the played one")
    except EngineError as exc:
        problems.append(f"replay failed: {exc}")
    try:
        mirror = mirror_of(state)
        a, b = public_view(state), public_view(mirror)
        for v in (a, b):
            v.pop("mode")
        if a != b:
            problems.append("mirror: the public view differs from the full hand's")
        if _public_events(mirror) != _public_events(state):
            problems.append("mirror: the public events differ from the full hand's")
    except (EngineError, InvariantBroken, StopIteration) as exc:
        problems.append(f"mirror refused the table's record: {exc}")
    return problems


def default_bots(rng: random.Random) -> list[GreedyBot]:
    return [GreedyBot(random.Random(rng.random())) for _ in SEATS]


@dataclass
class _Tally:
    """What the hands came to, as the summary of `mjtable play` counts it."""

    names: Sequence[str]
    wins: int = 0
    draws: int = 0
    false_mahjong: int = 0
    washed: int = 0
    events: int = 0
    violations: int = 0
    wins_by: dict[str, int] = field(default_factory=dict)
    problems: list[dict[str, object]] = field(default_factory=list)

    def count(self, hand: int, state: HandState, found: list[str], winner: str | None) -> None:
        if found:
            self.violations += len(found)
            if len(self.problems) < 10:
                self.problems.append({"hand": hand, "violations": found[:3]})
        self.wins += state.result == "mahjong"
        if winner is not None:
            self.wins_by[winner] = self.wins_by.get(winner, 0) + 1
        self.draws += state.result == "drawn"
        self.false_mahjong += state.result == "false_mahjong"
        self.washed += state.result == "washed"
        self.events += len(state.log)


def play_hands(ruleset: str, hands: int, seed: int, *, players: int, names: Sequence[str],
               named: str, write: Callable[[str], None] | None,
               cross_check: bool) -> dict[str, Any]:
    """Bots play ``hands`` hands of ``ruleset`` in a row, East moving on as the laws say, every
    hand checked (``play_hand``); the summary of `mjtable play`, under the ruleset as it was
    ``named`` (a scoring preset plays as its family). ``write`` receives the event log line by
    line (engine.record)."""
    from engine.record import event_line, final_line
    from engine.rounds import next_hand, start
    from engine.rules import get_ruleset

    rules = get_ruleset(ruleset)
    started = time.perf_counter()
    rng = random.Random(seed)
    bots = default_bots(rng)
    clock = SimClock(random.Random(f"{seed}:clock"))  # board times; not the game's RNG
    match = start(rules, players)
    tally = _Tally(names, wins_by={name: 0 for name in names})
    seq = 0
    for hand in range(hands):
        outcome = play_hand(rules, rng, bots, prevailing=match.prevailing, hand=hand,
                            players=match.players, checks=True, cross_check=cross_check,
                            clock=clock)
        state = outcome.state
        found = list(outcome.violations)
        if state.phase != "ended" and not found:
            found.append("the hand did not end")
        winner = None
        if state.result == "mahjong" and state.winner is not None:
            # players keep their chairs; the winds move round them (Law 95)
            chair = (int(state.winner) + match.east_player) % 4
            winner = names[match.chairs.index(chair)]
        tally.count(hand, state, found, winner)
        if write is not None:
            for e in state.log:
                write(event_line(seq, hand, e))
                seq += 1
            write(final_line(hand, state))
        match = next_hand(rules, match, bool(state.east_stays))
    summary: dict[str, Any] = {
        "hands": hands, "wins": tally.wins, "draws": tally.draws,
        "false_mahjong": tally.false_mahjong, "washed": tally.washed, "events": tally.events,
        "violations": tally.violations, "seconds": round(time.perf_counter() - started, 3),
        "ruleset": named, **({"plays": ruleset} if named != ruleset else {}),
        "players": players, "seed": seed, "names": list(names), "wins_by_player": tally.wins_by,
    }
    if tally.problems:
        summary["problems"] = tally.problems
    return summary
