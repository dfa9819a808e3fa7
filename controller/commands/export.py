"""`mjtable export --store FILE [--game ID] --format json|csv`: the games a table kept.

JSON: ``{"games": [{"id", "ruleset", "players", "hands": [...], "totals", "final"}]}``, each
hand with its whole scoring result, seats named by player (docs/mqtt.md, Games). CSV: one row
per hand and player: game, hand, player, seat, wind, net, total.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path
from typing import Any

from controller.cli import CommandInputError, emit_json

HELP = "the games a table kept, with every hand's scoresheet (JSON or CSV)"
SQLITE_MAGIC = b"SQLite format 3\x00"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", required=True, metavar="FILE", help="the table's store")
    parser.add_argument("--game", type=int, metavar="ID", help="only this game")
    parser.add_argument("--format", choices=("json", "csv"), default="json")


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
    writer.writerow(["game", "hand", "player", "seat", "wind", "net", "total"])
    for game in games:
        for hand in game["hands"]:
            by_player = {p: s for s, p in hand["seats"].items()}
            for player in game["players"]:
                seat = by_player.get(player, "")
                writer.writerow([game["id"], hand["hand"], player, seat,
                                 hand.get("prevailing") or "", hand["net"][player],
                                 hand["totals"][player]])
    return out.getvalue()


def run(args: argparse.Namespace) -> int:
    games = games_of(args.store, "--store")
    if args.game is not None:
        games = [g for g in games if g["id"] == args.game]
        if not games:
            raise CommandInputError(f"no game {args.game} in this store", "--game")
    if args.format == "csv":
        sys.stdout.write(to_csv(games))
    else:
        emit_json({"games": games})
    return 0
