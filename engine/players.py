"""Bots play whole hands of any ruleset, and the log they wrote is replayed and checked: the one
door `mjtable play` and `mjtable replay` go through (docs/engine.md), whichever family plays.

Each family answers through its :class:`~engine.family.RuleFamily`: its ``play`` seats its bots
and checks every hand (the classical families: the invariants after every event, the state
rebuilt from its own record, and a mirror-mode hand fed only what a table would show; the
card's bots mirror theirs), and its ``replay_hand`` rebuilds one logged hand and checks it. The
replay loop around it is this module's. A family played from a card (the American game,
docs/rules-american.md) plays on the card the caller loads, since reading a file is I/O and
not the engine's business.

>>> summary = play("classical/dmjl", hands=1, seed=1, players=4, names=["A", "B", "C", "D"])
>>> summary["ruleset"], summary["plays"], summary["hands"], summary["violations"]
('classical/dmjl', 'classical', 1, 0)
>>> play("american", hands=1, seed=1, players=4, names=["A", "B", "C", "D"])
Traceback (most recent call last):
...
ValueError: american is played from a card: pass the compiled card (config.cards.card_at)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine.family import RuleFamily, Write, family_for, family_of_log
from engine.rulesets import entry, for_players

if TYPE_CHECKING:
    from engine.american.compiled import CompiledCard


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
    family = family_for(for_players(asked.name, players).name, card)
    return family.play(hands, seed, players=players, names=names, named=asked.name,
                       write=write, cross_check=cross_check)


def replay(lines: list[str], card: Callable[[], CompiledCard]) -> dict[str, Any]:
    """Rebuild every hand of a `play --log` file and check it; the report of `mjtable replay`.
    The log's first line says which family wrote it; a family played from a card asks
    ``card()`` for the card the log was played on. A malformed log raises ``MalformedInput``
    naming the line and the field."""
    return replay_log(family_of_log(lines, card), lines)


def replay_log(family: RuleFamily[Any], lines: list[str]) -> dict[str, Any]:
    """Every hand of a log written by ``family``'s engine rebuilt and checked by the family
    (``replay_hand``): the report of `mjtable replay`, a mismatch for each hand that differs
    from its record or cannot be rebuilt."""
    from engine.record import parse_log

    started = time.perf_counter()
    hands = parse_log(lines)
    mismatches: list[dict[str, object]] = []
    events = 0
    for logged in hands:
        checked = family.replay_hand(logged, f"hand {logged.hand} (line {logged.first_line})")
        events += checked.events
        if checked.unbuilt is not None:
            mismatches.append({"hand": logged.hand,
                               "problem": f"cannot rebuild: {checked.unbuilt}"})
        elif checked.problems:
            mismatches.append({"hand": logged.hand, "problems": checked.problems})
    return {
        **family.report_head(),
        "hands": len(hands),
        "events": events,
        "matched": len(hands) - len(mismatches),
        "mismatches": mismatches,
        "seconds": round(time.perf_counter() - started, 3),
    }
