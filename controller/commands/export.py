"""`mjtable export --store FILE [--game ID] --format json|csv`: the games a table kept.

JSON: ``{"games": [{"id", "ruleset", "players", "hands": [...], "totals", "final"}]}``, each
hand with its whole scoring result, seats named by player (docs/mqtt.md, Games). CSV: one row
per hand and player: game, hand, player, seat, wind, net, total.

With stakes (``--config FILE``'s ``[stakes]``, or ``--unit`` and ``--per-point``) each game
gains a ``stakes`` block and each hand its ``money`` by player (engine/scoring/stakes.py); the
CSV gains two columns, money and money_total. An American game gains its ``tournament``
points (American SC-9). Nothing that was there changes.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json
from controller.game_extras import HouseLimit
from engine.errors import MalformedInput
from engine.scoring.stakes import Stakes

HELP = "the games a table kept, with every hand's scoresheet (JSON or CSV)"
SQLITE_MAGIC = b"SQLite format 3\x00"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", required=True, metavar="FILE", help="the table's store")
    parser.add_argument("--game", type=int, metavar="ID", help="only this game")
    parser.add_argument("--format", choices=("json", "csv"), default="json")
    parser.add_argument("--config", metavar="FILE",
                        help="the table's TOML file: its [stakes] and house limit")
    parser.add_argument("--unit", metavar="UNIT",
                        help="chips or a currency (USD): the points in this unit")
    parser.add_argument("--per-point", metavar="AMOUNT",
                        help="the unit's amount for one point (with --unit; default 0.01)")
    parser.add_argument("--settle", choices=("hand", "game"),
                        help="each hand as it ends (the books) or once at the game's end")


def open_store_records(path: str, where: str) -> list[dict[str, Any]]:
    """Every event of a store, read without writing to it."""
    import json
    import sqlite3

    file = Path(path)
    try:
        head = file.read_bytes()[:16]
    except OSError as exc:
        raise CommandInputError(f"cannot read the store: {exc.strerror}", where) from None
    if head != SQLITE_MAGIC:
        raise CommandInputError("not a table store (an SQLite file)", where)
    try:
        db = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT body FROM events ORDER BY seq").fetchall()
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise CommandInputError(f"not a usable table store ({exc})", where) from None
    return [json.loads(body) for (body,) in rows]


def games_of(path: str, where: str) -> list[dict[str, Any]]:
    from controller.games import export_games

    return export_games(open_store_records(path, where))


def to_csv(games: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    money = any("stakes" in game for game in games)
    writer.writerow(["game", "hand", "player", "seat", "wind", "net", "total"]
                    + (["money", "money_total"] if money else []))
    for game in games:
        running: dict[str, Decimal] = {p: Decimal(0) for p in game["players"]}
        for hand in game["hands"]:
            by_player = {p: s for s, p in hand["seats"].items()}
            for player in game["players"]:
                seat = by_player.get(player, "")
                row = [game["id"], hand["hand"], player, seat, hand.get("prevailing") or "",
                       hand["net"][player], hand["totals"][player]]
                if "money" in hand:
                    running[player] += Decimal(hand["money"][player])
                    row += [hand["money"][player], str(running[player])]
                elif money:
                    row += ["", ""]
                writer.writerow(row)
    return out.getvalue()


def stakes_of_args(args: argparse.Namespace) -> tuple[Stakes | None, HouseLimit]:
    """The stakes asked for: ``--unit``/``--per-point``/``--settle`` over the config's."""
    from controller.game_extras import stakes_of, table_limit

    stakes, limit = None, HouseLimit()
    if args.config is not None:
        from config.load import ConfigError, load_config

        try:
            cfg = load_config(args.config)
        except ConfigError as exc:
            raise CommandInputError(str(exc), "--config") from None
        stakes, limit = stakes_of(cfg.stakes), table_limit(cfg.table.options)
    if args.per_point is not None and args.unit is None and stakes is None:
        raise CommandInputError("--per-point needs --unit (chips or a currency)", "--per-point")
    try:
        if args.unit is not None:
            rate = Decimal(args.per_point) if args.per_point is not None else (
                stakes.per_point if stakes is not None else Decimal("0.01"))
            stakes = Stakes(args.unit, rate, args.settle or "hand")
        elif stakes is not None and (args.per_point is not None or args.settle is not None):
            stakes = Stakes(stakes.unit, Decimal(args.per_point) if args.per_point is not None
                            else stakes.per_point, args.settle or stakes.settle,
                            stakes.decimals)
    except InvalidOperation:
        raise CommandInputError(f"not a number: {args.per_point!r}", "--per-point") from None
    except MalformedInput as exc:
        raise CommandInputError(exc.message, "--" + exc.where.split(".")[-1].replace(
            "_", "-")) from None
    if stakes is None and args.settle is not None:
        raise CommandInputError("--settle needs stakes: --unit or a config with [stakes]",
                                "--settle")
    return stakes, limit


def run(args: argparse.Namespace) -> int:
    from controller.game_extras import extend_games

    stakes, limit = stakes_of_args(args)
    games = extend_games(games_of(args.store, "--store"), stakes, limit)
    if args.game is not None:
        games = [g for g in games if g["id"] == args.game]
        if not games:
            raise CommandInputError(f"no game {args.game} in this store", "--game")
    if args.format == "csv":
        sys.stdout.write(to_csv(games))
    else:
        emit_json({"games": games})
    return 0
