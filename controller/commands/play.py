"""`mjtable play`: bots play whole hands under the full engine (contracts.md).

Every hand is checked three ways (engine.simulate): the invariants after every event, the
state rebuilt from its own record, and a mirror-mode hand fed only what a table would show.
Any disagreement counts as a violation; the exit code is 1 if there is one.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import IO

from controller.cli import CommandInputError, emit_json

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
    from engine import rulesets

    try:
        asked = rulesets.entry(args.ruleset)
    except ValueError as exc:
        raise CommandInputError(str(exc), "--ruleset") from None
    if args.card and asked.family != "american":
        raise CommandInputError(f"{asked.name} is not played from a card", "--card")
    try:
        played = rulesets.for_players(asked.name, args.players or asked.players[-1])
    except ValueError as exc:
        raise CommandInputError(str(exc), "--players") from None
    args.players = args.players or played.players[-1]
    args.ruleset, args.preset = played.plays, asked.name if asked.preset else None
    names = _names(args)
    if played.family == "american":
        return _play_american(args)  # the card's game: docs/rules-american.md
    from engine.record import event_line, final_line
    from engine.rounds import next_hand, start
    from engine.rules import get_ruleset
    from engine.simclock import SimClock
    from engine.simulate import default_bots, play_hand

    ruleset = get_ruleset(args.ruleset)
    _check_hands(args.hands)
    log = _open_log(args.log)
    started = time.perf_counter()
    rng = random.Random(args.seed)
    bots = default_bots(rng)
    clock = SimClock(random.Random(f"{args.seed}:clock"))  # board times; not the game's RNG
    match = start(ruleset, args.players)
    wins_by = {name: 0 for name in names}
    wins = draws = false_calls = washed = events = violations = seq = 0
    problems: list[dict[str, object]] = []
    try:
        for hand in range(args.hands):
            outcome = play_hand(ruleset, rng, bots, prevailing=match.prevailing, hand=hand,
                                players=match.players, checks=True,
                                cross_check=not args.no_checks, clock=clock)
            state = outcome.state
            found = list(outcome.violations)
            if state.phase != "ended" and not found:
                found.append("the hand did not end")
            if found:
                violations += len(found)
                if len(problems) < 10:
                    problems.append({"hand": hand, "violations": found[:3]})
            wins += state.result == "mahjong"
            if state.result == "mahjong" and state.winner is not None:
                # players keep their chairs; the winds move round them (Law 95)
                chair = (int(state.winner) + match.east_player) % 4
                wins_by[names[match.chairs.index(chair)]] += 1
            draws += state.result == "drawn"
            false_calls += state.result == "false_mahjong"
            washed += state.result == "washed"
            events += len(state.log)
            if log is not None:
                for e in state.log:
                    log.write(event_line(seq, hand, e) + "\n")
                    seq += 1
                log.write(final_line(hand, state) + "\n")
            match = next_hand(ruleset, match, bool(state.east_stays))
    finally:
        if log is not None:
            log.close()
    summary: dict[str, object] = {
        "hands": args.hands,
        "wins": wins,
        "draws": draws,
        "false_mahjong": false_calls,
        "washed": washed,
        "events": events,
        "violations": violations,
        "seconds": round(time.perf_counter() - started, 3),
        "ruleset": args.preset or ruleset.name,
        **({"plays": ruleset.name} if args.preset else {}),
        "players": args.players,
        "seed": args.seed,
        "names": names,
        "wins_by_player": wins_by,
    }
    if problems:
        summary["problems"] = problems
    emit_json(summary)
    return 0 if violations == 0 else 1


def _play_american(args: argparse.Namespace) -> int:
    """`--ruleset american` (`american/3`, `american/2`): bots play the American game on the
    card `--card` names, else the bundled card."""
    from config.cards import card_at
    from engine.american.compiled import CardError
    from engine.american.family import play

    _check_hands(args.hands)
    try:
        card = card_at(args.card)
    except (CardError, OSError) as exc:
        raise CommandInputError(f"the American card does not load: {exc}", "--card") from None
    log = _open_log(args.log)

    def write(line: str) -> None:
        if log is not None:
            log.write(line + "\n")

    try:
        summary = play(args.ruleset, args.hands, args.seed, card, write=write)
        summary["names"] = _names(args)
    except ValueError as exc:
        raise CommandInputError(str(exc), "--ruleset") from None
    finally:
        if log is not None:
            log.close()
    emit_json(summary)
    return 0 if summary["violations"] == 0 else 1


def _check_hands(hands: int) -> None:
    if hands < 0:
        raise CommandInputError(f"--hands must be 0 or more, not {hands}", "--hands")


def _open_log(path: str | None) -> IO[str] | None:
    if not path:
        return None
    try:
        return open(path, "w", encoding="utf-8")  # the caller closes it
    except OSError as exc:
        raise CommandInputError(f"cannot write the log: {exc.strerror}", "--log") from None
