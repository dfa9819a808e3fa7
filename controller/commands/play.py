"""`mjtable play`: bots play whole hands under the full engine (docs/engine.md).

Every hand is checked (engine.players): the invariants after every event, and unless
`--no-checks`, the state rebuilt from its own record and a mirror-mode hand fed only what a
table would show. Any disagreement counts as a violation; the exit code is 1 if there is one.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from controller.cli import CommandInputError, emit_json

if TYPE_CHECKING:
    from config.cards import CompiledCard
    from engine.rulesets import RulesetEntry

HELP = "bots play whole hands under the full engine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from engine.rulesets import names

    parser.add_argument("--ruleset", default="code1924/mixed", metavar="R",
                        help=f"one of {', '.join(names())} (default code1924/mixed); a "
                             "scoring preset plays as its family")
    parser.add_argument("--hands", type=int, default=1, help="how many hands (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="the RNG seed (default 0)")
    parser.add_argument("--players", type=int, default=None, choices=(2, 3, 4),
                        help="the ruleset's table (default 4); 2 or 3 for the 1924 Two- and "
                             "Three-Hand Games (code1924/*, classical), Harr's Two and "
                             "Three-Handed Games (pungchow/*), american/2 and american/3 "
                             "for the American game")
    parser.add_argument("--card", metavar="FILE", default="",
                        help="the American card (default: the card bundled with the table)")
    parser.add_argument("--names", metavar="A,B,C,D",
                        help="the players' names in the first hand's seat order (E, S, W, N; "
                        "as many as --players): the summary counts each one's wins")
    parser.add_argument("--log", metavar="FILE", help="write every event as JSON Lines")
    parser.add_argument("--no-checks", action="store_true",
                        help="skip the replay and mirror cross-checks (invariants still run)")


def _names(args: argparse.Namespace) -> list[str]:
    from controller.games import GameCommandError, check_players
    from engine.scoring.sheet import default_players

    if args.names is None:
        return default_players(args.players)
    try:
        return check_players(args.names.split(","), args.players)
    except GameCommandError as exc:
        raise CommandInputError(str(exc), f"--names ({exc.where})") from None


def run(args: argparse.Namespace) -> int:
    from engine import players, rulesets

    try:
        asked = rulesets.entry(args.ruleset)
    except ValueError as exc:
        raise CommandInputError(str(exc), "--ruleset") from None
    if args.card and not asked.needs_card:
        raise CommandInputError(f"{asked.name} is not played from a card", "--card")
    try:
        played = rulesets.for_players(asked.name, args.players or asked.players[-1])
    except ValueError as exc:
        raise CommandInputError(str(exc), "--players") from None
    args.players = args.players or played.players[-1]
    names = _names(args)
    _check_hands(args.hands)
    card = _card(played, args.card)
    log = _open_log(args.log)
    try:  # the ruleset, the table's size and the card are checked above: what the engine
        # would refuse with a ValueError has been answered already, naming the argument
        summary = players.play(asked.name, args.hands, args.seed, players=args.players,
                               names=names, card=card, write=_lines_to(log),
                               cross_check=not args.no_checks)
    finally:
        if log is not None:
            log.close()
    emit_json(summary)
    return 0 if summary["violations"] == 0 else 1


def _card(played: RulesetEntry, path: str) -> CompiledCard | None:
    """The card ``played`` is played from (`--card`, else the bundled one); ``None``, with
    nothing of the cards loaded (a bot hand is timed from start-up), for one played without."""
    if not played.needs_card:
        return None
    from config.cards import CardError, card_at

    try:
        return card_at(path)
    except (CardError, OSError) as exc:
        raise CommandInputError(f"the American card does not load: {exc}", "--card") from None


def _check_hands(hands: int) -> None:
    if hands < 0:
        raise CommandInputError(f"--hands must be 0 or more, not {hands}", "--hands")


def _lines_to(log: IO[str] | None) -> Callable[[str], None] | None:
    """What receives the event log line by line: the `--log` file; ``None`` without one, so
    that the engine does not build lines nobody reads."""
    if log is None:
        return None
    file = log

    def write(line: str) -> None:
        file.write(line + "\n")

    return write


def _open_log(path: str | None) -> IO[str] | None:
    if not path:
        return None
    try:
        return open(path, "w", encoding="utf-8")  # the caller closes it
    except OSError as exc:
        raise CommandInputError(f"cannot write the log: {exc.strerror}", "--log") from None
