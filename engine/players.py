"""Bots play whole hands of any ruleset, and the log they wrote is replayed and checked: the one
door `mjtable play` and `mjtable replay` go through (docs/engine.md), whichever family plays.

The classical families play through :mod:`engine.simulate`, every hand checked three ways:
the invariants after every event, the state rebuilt from its own record, and a mirror-mode
hand fed only what a table would show. A family played from a card (the registry's
``needs_card``: the American game, docs/rules-american.md) plays through its own bots on the
card the caller loads, since reading a file is I/O and not the engine's business.

>>> summary = play("classical/dmjl", hands=1, seed=1, players=4, names=["A", "B", "C", "D"])
>>> summary["ruleset"], summary["plays"], summary["hands"], summary["violations"]
('classical/dmjl', 'classical', 1, 0)
>>> play("american", hands=1, seed=1, players=4, names=["A", "B", "C", "D"])
Traceback (most recent call last):
...
ValueError: american is played from a card: pass the compiled card (config.cards.card_for)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.rulesets import RulesetEntry, entry, for_players

if TYPE_CHECKING:
    from engine.american.compiled import CompiledCard
    from engine.record import LoggedHand
    from engine.state import HandState

Write = Callable[[str], None]


def play(ruleset: str, hands: int, seed: int, *, players: int, names: Sequence[str],
         card: CompiledCard | None = None, write: Write | None = None,
         cross_check: bool = True) -> dict[str, Any]:
    """Bots play ``hands`` whole hands of ``ruleset`` (any name of the registry: a scoring
    preset plays as its family) at a table of ``players``; the summary of `mjtable play`.
    ``names``: the players in the first hand's seat order; ``write`` receives the event log
    line by line (the caller owns the file); ``cross_check`` replays and mirrors every hand
    besides checking the invariants (the card's bots always mirror theirs). ``ValueError``
    for a table size the ruleset has no laws for, or a card-played ruleset without its
    ``card``."""
    asked = entry(ruleset)
    played = for_players(asked.name, players)
    if played.needs_card:
        return _play_from_card(played, hands, seed, names, _card(played, card), write)
    return _play_classical(asked, players, hands, seed, names, write, cross_check)


def replay(lines: list[str], card: Callable[[], CompiledCard]) -> dict[str, Any]:
    """Rebuild every hand of a `play --log` file and check it; the report of `mjtable replay`.
    The log's first line says which family wrote it; a family played from a card asks
    ``card()`` for the card the log was played on. A malformed log raises ``MalformedInput``
    naming the line and the field."""
    first = next((line for line in lines if line.strip()), "")
    if _CARD_LOG in first.replace(" ", ""):
        from engine.american.family import replay as replay_from_card

        return replay_from_card(lines, card())
    return _replay_classical(lines)


# A log written from a card: its messages carry the family's JSON types (engine.messages).
_CARD_LOG = '"type":"american/'


def _card(played: RulesetEntry, card: CompiledCard | None) -> CompiledCard:
    if card is None:
        raise ValueError(f"{played.name} is played from a card: pass the compiled card "
                         "(config.cards.card_for)")
    return card


def _play_from_card(played: RulesetEntry, hands: int, seed: int, names: Sequence[str],
                    card: CompiledCard, write: Write | None) -> dict[str, Any]:
    from engine.american.family import play as play_from_card

    summary = play_from_card(played.name, hands, seed, card, write=write)
    summary["names"] = list(names)
    return summary


@dataclass
class _Tally:
    """What the classical hands came to, as the summary counts it."""

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


def _play_classical(asked: RulesetEntry, players: int, hands: int, seed: int,
                    names: Sequence[str], write: Write | None,
                    cross_check: bool) -> dict[str, Any]:
    from engine.record import event_line, final_line
    from engine.rounds import next_hand, start
    from engine.rules import get_ruleset
    from engine.simclock import SimClock
    from engine.simulate import default_bots, play_hand

    ruleset = get_ruleset(asked.plays)
    started = time.perf_counter()
    rng = random.Random(seed)
    bots = default_bots(rng)
    clock = SimClock(random.Random(f"{seed}:clock"))  # board times; not the game's RNG
    match = start(ruleset, players)
    tally = _Tally(names, wins_by={name: 0 for name in names})
    seq = 0
    for hand in range(hands):
        outcome = play_hand(ruleset, rng, bots, prevailing=match.prevailing, hand=hand,
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
        match = next_hand(ruleset, match, bool(state.east_stays))
    return _classical_summary(asked, players, hands, seed, tally, time.perf_counter() - started)


def _classical_summary(asked: RulesetEntry, players: int, hands: int, seed: int,
                       tally: _Tally, seconds: float) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "hands": hands,
        "wins": tally.wins,
        "draws": tally.draws,
        "false_mahjong": tally.false_mahjong,
        "washed": tally.washed,
        "events": tally.events,
        "violations": tally.violations,
        "seconds": round(seconds, 3),
        "ruleset": asked.name,
        **({"plays": asked.plays} if asked.preset else {}),
        "players": players,
        "seed": seed,
        "names": list(tally.names),
        "wins_by_player": tally.wins_by,
    }
    if tally.problems:
        summary["problems"] = tally.problems
    return summary


def _replay_classical(lines: list[str]) -> dict[str, Any]:
    from engine.errors import EngineError, MalformedInput
    from engine.game import rebuild
    from engine.record import parse_log

    started = time.perf_counter()
    hands = parse_log(lines)
    mismatches: list[dict[str, object]] = []
    events = 0
    for logged in hands:
        where = f"hand {logged.hand} (line {logged.first_line})"
        events += len(logged.events)
        try:
            state = rebuild(logged.events)
        except MalformedInput as exc:
            raise MalformedInput(f"{where}: {exc.where}", exc.message) from None
        except (EngineError, KeyError, IndexError, TypeError) as exc:
            mismatches.append({"hand": logged.hand, "problem": f"cannot rebuild: {exc}"})
            continue
        problems = _replay_problems(state, logged)
        if problems:
            mismatches.append({"hand": logged.hand, "problems": problems})
    return {
        "hands": len(hands),
        "events": events,
        "matched": len(hands) - len(mismatches),
        "mismatches": mismatches,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _replay_problems(state: HandState, logged: LoggedHand) -> list[str]:
    """What differs between a hand rebuilt from its events and its record: the final view,
    the digest, the invariants, and the commands re-applied through the checked engine."""
    from engine import events as ev
    from engine.errors import EngineError
    from engine.game import apply, commands_of, new_hand, public_view
    from engine.invariants import InvariantBroken, check
    from engine.record import digest

    problems = []
    if public_view(state) != logged.final:
        problems.append("the rebuilt public view differs from the recorded one")
    if digest(state) != logged.digest:
        problems.append("the rebuilt state's digest differs from the recorded one")
    try:
        check(state)
    except InvariantBroken as exc:
        problems.append(f"invariant: {exc}")
    started = logged.events[0]
    assert isinstance(started, ev.HandStarted)
    try:
        again, _ = new_hand(started.ruleset, started.mode,  # type: ignore[arg-type]
                            wall=started.wall, prevailing=started.prevailing,
                            hand=started.number, players=started.players)
        for _, command in commands_of(state.standing):
            apply(again, command)
        if digest(again) != digest(state):
            problems.append("re-applying the commands reaches another state")
    except EngineError as exc:
        problems.append(f"the engine refuses the recorded play: {exc}")
    return problems
