"""`mjtable hub`: the club hub and its club database.

- `mjtable hub --mqtt HOST:PORT --db FILE|URL [--id NAME] [--tables ID,ID] [--share GROUP]
  [--web HOST:PORT [--organiser-password-file FILE]]`: runs the hub until SIGTERM (a clean
  stop); the club page, and on it the organiser's desk, where asked for.
- `mjtable hub standings --db FILE|URL [--scheme raw]`: `{"players": [{"name", "points",
  "games", "hands_won"}, ...]}`, best first.
- `mjtable hub register --db FILE|URL --club-id ID --name NAME`: a club member, once.
- `mjtable hub players --db FILE|URL`: the registered members.

``--db`` is a SQLite file, or a database URL (``postgresql+psycopg://user@host/club``) for a
league. docs/club.md has the whole club set-up.
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from controller.cli import CommandInputError, emit_json

HELP = "the club hub: tables from the club broker into the club database; standings"
ACTIONS = ("run", "standings", "register", "players")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", default="run", choices=ACTIONS,
                        help="run the hub (default), or read/write the club database")
    parser.add_argument("--db", required=True, metavar="FILE|URL",
                        help="the club database: a SQLite file, or a PostgreSQL URL")
    parser.add_argument("--mqtt", metavar="HOST:PORT", help="the club broker (run)")
    parser.add_argument("--id", default="hub", dest="hub_id",
                        help="this hub's name: its MQTT session and status topic (run)")
    parser.add_argument("--share", metavar="GROUP",
                        help="share the tables' events with other hubs of GROUP (MQTT 5 "
                        "shared subscription; run)")
    parser.add_argument("--tables", metavar="ID,ID",
                        help="only these tables: a partition of the club among several hubs "
                        "(run; docs/club.md)")
    parser.add_argument("--scheme", default="raw",
                        help="standings scheme: raw (default), placement, american")
    parser.add_argument("--web", metavar="HOST:PORT",
                        help="serve the club page here (run; docs/club.md)")
    parser.add_argument("--organiser-password-file", metavar="FILE",
                        help="the organiser's password hash (`mjtable web passwd FILE`): "
                        "offers the organiser's desk on the club page (run, with --web)")
    parser.add_argument("--club-id", help="the member's club id (register)")
    parser.add_argument("--name", help="the member's name as it shows (register)")


def _db(target: str, create: bool) -> object:
    from hub.db import open_db

    if "://" not in target:
        path = Path(target)
        if not create and not path.exists():
            raise CommandInputError(f"no club database at {target}", "--db")
        if not path.parent.is_dir():
            raise CommandInputError(f"no folder {path.parent} for the club database", "--db")
    try:
        return open_db(target)
    except Exception as exc:  # a URL that does not connect, a file that is not a database
        raise CommandInputError(f"cannot open the club database: {exc}".splitlines()[0],
                                "--db") from None


def run(args: argparse.Namespace) -> int:
    from hub.db import ClubDB, PlayerError

    if args.action == "run":
        return _run_hub(args)
    db = _db(args.db, create=args.action == "register")
    assert isinstance(db, ClubDB)
    try:
        if args.action == "standings":
            from hub.standings import schemes, standings

            if args.scheme not in schemes():
                raise CommandInputError(f"no scheme {args.scheme!r}; one of "
                                        f"{', '.join(sorted(schemes()))}", "--scheme")
            emit_json(standings(db, args.scheme))
        elif args.action == "register":
            for flag, value in (("--club-id", args.club_id), ("--name", args.name)):
                if not value:
                    raise CommandInputError("registering a member needs it", flag)
            try:
                player = db.register_player(args.club_id, args.name)
            except PlayerError as exc:
                where = "--club-id" if exc.where == "club_id" else "--name"
                raise CommandInputError(str(exc), where) from None
            emit_json({"registered": {"id": player.id, "club_id": player.club_id,
                                      "name": player.name}})
        else:
            emit_json({"players": [{"id": p.id, "club_id": p.club_id, "name": p.name}
                                   for p in db.players()]})
    finally:
        db.close()
    return 0


def _run_hub(args: argparse.Namespace) -> int:
    from controller.commands.simulate import _broker
    from hub.db import ClubDB
    from hub.ingest import RESERVED, TABLE_ID
    from hub.service import Hub, HubSettings

    if args.mqtt is None:
        raise CommandInputError("the club broker to subscribe to", "--mqtt")
    broker = _broker(args.mqtt)
    assert broker is not None
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    web = _broker(args.web, "--web", allow_zero=True) if args.web else None
    organiser = _organiser_password(args.organiser_password_file, web is not None)
    db = _db(args.db, create=True)
    assert isinstance(db, ClubDB)
    tables = tuple(t.strip() for t in (args.tables or "").split(",") if t.strip())
    for table in tables:
        if not TABLE_ID.match(table) or table in RESERVED:
            raise CommandInputError(f"{table!r} is not a table id", "--tables")
    if args.share is not None and not TABLE_ID.match(args.share):
        raise CommandInputError("a group name of letters, digits, '_', '.', '-'", "--share")
    if not TABLE_ID.match(args.hub_id):
        raise CommandInputError("a name of letters, digits, '_', '.', '-'", "--id")
    settings = HubSettings(broker[0], broker[1], args.db, hub_id=args.hub_id,
                           share=args.share, tables=tables,
                           # the club broker's login, from the unit's root-only EnvironmentFile
                           username=os.environ.get("MJTABLE_HUB_USER"),
                           password=os.environ.get("MJTABLE_HUB_PASSWORD"))
    # The events side (the organiser's desk, the club page), once the hub has subscribed.
    from hub.club_side import Beside, ClubSide

    hub = Hub(settings, db)
    side = Beside(hub.connected, lambda: ClubSide(
        args.db, broker[0], broker[1], web, settings.username, settings.password, args.hub_id,
        organiser))
    try:
        hub.run_until_signalled()
    finally:
        side.stop()
    return 0


def _organiser_password(path: str | None, serving: bool) -> str | None:
    """The organiser's password hash for the desk on the club page, read once at start."""
    from controller.web.auth import PasswordFileError, read_password_file

    if path is None:
        return None
    if not serving:
        raise CommandInputError("the organiser's desk is on the club page: give --web too",
                                "--organiser-password-file")
    try:
        return read_password_file(path)
    except PasswordFileError as exc:
        raise CommandInputError(str(exc), "--organiser-password-file") from None
