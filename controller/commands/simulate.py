"""`mjtable simulate`: a whole simulated table (board, players, camera, engine, store, MQTT)."""

from __future__ import annotations

import argparse
import sys

from controller.cli import CommandInputError, emit_json

HELP = "a whole simulated table: board, camera, engine, MQTT, store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from engine.rulesets import names

    parser.add_argument("--ruleset", default="code1924/mixed", metavar="R",
                        help=f"one of {', '.join(names())} (default code1924/mixed); a "
                             "scoring preset plays as its family and scores with the preset")
    parser.add_argument("--hands", type=int, default=4, help="hands to play (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the players and the wall")
    parser.add_argument("--headless", action="store_true",
                        help="no live view; print one JSON summary at the end")
    parser.add_argument("--mqtt", metavar="HOST:PORT",
                        help="publish to this broker instead of starting one")
    parser.add_argument("--table", default="sim", help="table id in the topics (default sim)")
    parser.add_argument("--store", metavar="PATH",
                        help="keep the event store here (default: a temporary file)")
    parser.add_argument("--pause-ms", type=int, default=None,
                        help="courtesy pause of the call window (default 60 headless, 400 live)")
    parser.add_argument("--camera", action="store_true",
                        help="render the table and see it through vision's pipeline (slow)")
    parser.add_argument("--names", metavar="A,B,C,D",
                        help="the players' names in the first hand's seat order E, S, W, N")
    parser.add_argument("--web", metavar="HOST:PORT",
                        help="serve the table's page here (live: 127.0.0.1 and a free port)")
    parser.add_argument("--pace", type=float, default=None, metavar="SECONDS",
                        help="between table actions (default 0 headless, 0.03 live, 0.6 live "
                        "with the page)")
    parser.add_argument("--game", action="store_true",
                        help="play a whole game (the Round of the Winds, or the configured "
                        "hands) instead of --hands")
    parser.add_argument("--linger", type=float, default=0.0, metavar="SECONDS",
                        help="keep serving the page this long after the last hand")
    parser.add_argument("--stakes", metavar="UNIT:PER_POINT",
                        help="play for chips or money: USD:0.01 is a cent a point (the "
                        "scoreboard and the page's export show it beside the points)")
    parser.add_argument("--doubt", type=float, default=0.0,
                        help="share of observations the camera is unsure of (referee confirms)")


def _broker(text: str | None, where: str = "--mqtt",
            allow_zero: bool = False) -> tuple[str, int] | None:
    if text is None:
        return None
    host, _, port = text.rpartition(":")
    low = 0 if allow_zero else 1
    if not host or not port.isdigit() or not low <= int(port) < 65536:
        raise CommandInputError(f"expected HOST:PORT, not {text!r}", where)
    return host, int(port)


def _stakes(text: str | None) -> dict[str, object] | None:
    """``--stakes UNIT:PER_POINT`` as the config's ``[stakes]``, checked as a table's are."""
    if text is None:
        return None
    from decimal import Decimal, InvalidOperation

    from pydantic import ValidationError

    from config.schema import StakesSection
    from engine.errors import MalformedInput
    from engine.scoring.stakes import Stakes

    unit, _, rate = text.partition(":")
    try:
        section = StakesSection(unit=unit, per_point=Decimal(rate or "0.01"))
        Stakes(section.unit, section.per_point)
    except InvalidOperation:
        raise CommandInputError(f"not a number: {rate!r} (UNIT:PER_POINT)", "--stakes") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CommandInputError(f"{first['loc'][0]}: {first['msg']}", "--stakes") from None
    except MalformedInput as exc:
        raise CommandInputError(exc.message, "--stakes") from None
    return {"unit": section.unit, "per_point": section.per_point}


def _names(text: str | None) -> tuple[str, ...]:
    if text is None:
        return ()
    from controller.games import GameCommandError, check_players

    try:
        return tuple(check_players(text.split(","), 4))
    except GameCommandError as exc:
        raise CommandInputError(str(exc), f"--names ({exc.where})") from None


def run(args: argparse.Namespace) -> int:
    from config.schema import _TABLE_ID
    from engine.rulesets import entry

    try:
        args.ruleset = entry(args.ruleset).name
    except ValueError as exc:
        raise CommandInputError(str(exc), "--ruleset") from None
    if args.hands < 1:
        raise CommandInputError("at least one hand", "--hands")
    if not _TABLE_ID.match(args.table):
        raise CommandInputError("1-64 letters, digits, '-' or '_'", "--table")
    if not 0.0 <= args.doubt <= 1.0:
        raise CommandInputError("a share between 0 and 1", "--doubt")
    if args.pause_ms is not None and not 0 <= args.pause_ms <= 30_000:
        raise CommandInputError("0 to 30000 ms", "--pause-ms")
    names = _names(args.names)
    web = _broker(args.web, "--web", allow_zero=True) if args.web else None
    if web is None and not args.headless:
        web = ("127.0.0.1", 0)
    if args.pace is not None and not 0 <= args.pace <= 30:
        raise CommandInputError("0 to 30 seconds", "--pace")
    pace = args.pace
    if not 0 <= args.linger <= 3600:
        raise CommandInputError("0 to 3600 seconds", "--linger")
    if pace is None and web is not None and not args.headless:
        pace = 0.6  # a pace a person watching the page can follow
    from controller.simulation import SimulationSettings, simulate

    settings = SimulationSettings(
        ruleset=args.ruleset,
        hands=args.hands,
        seed=args.seed,
        table=args.table,
        store=args.store,
        mqtt=_broker(args.mqtt),
        headless=args.headless,
        pause_ms=args.pause_ms,
        doubt=args.doubt,
        camera=args.camera,
        names=names,
        web=web,
        game=args.game,
        step_s=pace,
        linger_s=args.linger,
        stakes=_stakes(args.stakes),
    )
    summary = simulate(settings, sys.stdout)
    if args.headless:
        emit_json(summary)
    else:
        print()
        print(f"{summary['hands']} hands, {summary['events']} events, "
              f"{summary['published']} published, {summary['violations']} violations")
        for name, total in summary["totals"].items():
            print(f"  {name:<12} {total:+d}")
        lat = summary.get("latency_ms", {})
        for key, value in lat.items():
            if value:
                print(f"  {key}: p50 {value['p50']} ms, p99 {value['p99']} ms (n={value['n']})")
        for problem in summary["problems"]:
            print(f"  problem: {problem}")
    return 0 if summary["violations"] == 0 else 1
