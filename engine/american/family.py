"""The `american` rule family as the rest of the system sees it: names, options and the
whole-hand simulation behind `mjtable play --ruleset american`.

Ruleset names: ``american`` (four players), ``american/3`` and ``american/2`` (the three- and
two-handed games, no Charleston). Pure like the rest of the engine: the caller loads the card
(``config.cards.default_card()``) and owns any log file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from engine.american.compiled import CompiledCard
from engine.american.game import AmericanHand, AmericanOptions, new_hand
from engine.errors import MalformedInput
from engine.rulesets import AMERICAN

if TYPE_CHECKING:
    from engine.events import Event
    from engine.record import LoggedHand, ReplayedHand

NAMES = tuple(AMERICAN)


def options_for(ruleset: str, card: CompiledCard | None = None) -> AmericanOptions:
    """The table options for a ruleset name; payment doubles come from the card's `option`
    lines when it has any (SC-8: confirmed before play)."""
    from engine.american.payments import payment_options

    name = ruleset.strip().lower()
    if name not in NAMES:
        raise ValueError(f"unknown American ruleset {ruleset!r} (known: {', '.join(NAMES)})")
    players = int(name.split("/")[1]) if "/" in name else 4
    payments = payment_options(card.options) if card is not None else None
    if payments is None:
        return AmericanOptions(players=players)
    return AmericanOptions(players=players, payments=payments)


def play(ruleset: str, hands: int, seed: int, card: CompiledCard,
         write: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Bots play ``hands`` whole hands; the summary of contracts.md plus an ``american``
    breakdown (calls, exposures, Joker exchanges, Charleston passes). ``write`` receives the
    event log line by line."""
    from engine.american.bots import play_hands

    summary = play_hands(card, hands, seed, options_for(ruleset, card), write)
    summary["ruleset"] = ruleset
    summary["seed"] = seed
    return summary


def replay(lines: list[str], card: CompiledCard) -> dict[str, Any]:
    """Rebuild every hand of a `play --log` file played on ``card`` and check it
    (:func:`check_hand`); the report of `mjtable replay`. A malformed log raises
    ``MalformedInput`` naming the line and field."""
    from engine.family import American
    from engine.players import replay_log

    return replay_log(American("american", card), lines)


def check_hand(card: CompiledCard, logged: LoggedHand, where: str) -> ReplayedHand:
    """One hand of a log rebuilt: the deal from the recorded wall and hands, then every
    recorded command through the checked engine. Each must be accepted and give exactly the
    recorded events, and the hand must end with the recorded public view and digest. A hand
    with no recorded deal raises ``MalformedInput`` naming ``where``."""
    from engine.american import events as ev
    from engine.american.game import digest, public_view
    from engine.record import ReplayedHand

    recorded = [e for e in logged.events if isinstance(e, ev.AmericanEvent)]
    first = logged.events[0] if logged.events else None
    if not isinstance(first, ev.HandStarted):
        raise MalformedInput(where, "an American hand starts with its HandStarted event")
    problems: list[str] = []
    if not isinstance(first.card, dict) or first.card.get("name") != card.name:
        problems.append("the log was recorded with another card")
    dealt = {e.seat: list(e.tiles) for e in recorded if isinstance(e, ev.Dealt)}
    if len(first.players) not in (2, 3, 4) or set(dealt) != set(first.players):
        raise MalformedInput(where, "the deal is not recorded: a Dealt event for each of "
                             f"{', '.join(s.name for s in first.players)}")
    options = options_for({4: "american", 3: "american/3", 2: "american/2"}[
        len(first.players)], card)
    state, produced = new_hand(card, options, "full", dice=first.dice,
                               deal=(dealt, list(first.wall_tiles)))
    if [e.to_json() for e in produced] != [e.to_json() for e in recorded[:len(produced)]]:
        problems.append("the deal differs from the recorded one")
    state = _play_recorded(state, logged.events[len(produced):], where, problems)
    if public_view(state) != logged.final:
        problems.append("the rebuilt public view differs from the recorded one")
    if digest(state) != logged.digest:
        problems.append("the rebuilt state's digest differs from the recorded one")
    return ReplayedHand(len(recorded), problems)


def _play_recorded(state: AmericanHand, queue: Sequence[Event], where: str,
                   problems: list[str]) -> AmericanHand:
    """Apply each recorded command again; it must give the events recorded after it. The
    first that does not (or that the engine refuses) is added to ``problems``, and the hand
    as it then stands is returned."""
    from engine.american import commands as cm
    from engine.american.game import apply
    from engine.errors import EngineError
    from engine.family import decode_command
    from engine.record import CANNOT_REBUILD

    i = 0
    try:
        while i < len(queue):
            line = queue[i]
            i += 1
            if not isinstance(line, cm.CommandRecorded):
                problems.append(f"an event with no command before it: {line.to_json()}")
                break
            state, caused = apply(state, decode_command(line.command, f"{where}: command"))
            logged_out = []
            while i < len(queue) and not isinstance(queue[i], cm.CommandRecorded):
                logged_out.append(queue[i].to_json())
                i += 1
            if [e.to_json() for e in caused] != logged_out:
                problems.append(f"{line.command.get('type')} gives other events than "
                                "recorded")
                break
    except EngineError as exc:
        problems.append(f"the engine refuses the recorded play: {exc}")
    except CANNOT_REBUILD as exc:  # a hand rebuilt from a tampered start runs out of wall
        problems.append(f"the recorded play cannot be applied again: {exc!r}")
    return state
