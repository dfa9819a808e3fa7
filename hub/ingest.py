"""Folding the tables' events into the club database, each exactly once.

One transaction per event: the table's row is locked, the event is inserted under its
primary key (table, seq), and only if that insert took place is it folded into the table's
games. A duplicate (the same seq again: a restarted hub, a second hub, a table resending its
outbox after a crash) is refused by the key and changes nothing. The database is the judge,
not the process's memory, so two hubs on one database cannot both count a hand.

Games are folded with the table's own fold (:class:`controller.games.GameBook`). Events may
arrive out of order (two hubs sharing a subscription, a gap filled late): an event below the
highest game event already folded rebuilds that table's games from its stored events in
``seq`` order, so the result is always the fold of the whole log in order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Table, delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError, OperationalError

from controller.games import FOLDED, GameBook
from hub import schema as s
from hub.db import ClubDB, name_key

TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
RESERVED = frozenset({"club"})  # mahjong/v1/club/... is the hub's own tree
DEFAULT_RULESET = "code1924/mixed"
RETRIES = 3


class EventError(ValueError):
    """An event the hub cannot take; ``where`` names what was wrong."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        super().__init__(message)


@dataclass(frozen=True)
class Ingested:
    """What one event did: ``new`` (stored and folded) or a duplicate; ``gap``: the seqs
    missing just before it (first, last), ``new_table``: the first event of this table."""

    table: str
    seq: int
    new: bool
    gap: tuple[int, int] | None = None
    new_table: bool = False
    folded: bool = False


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def check_event(table: str, payload: Any) -> tuple[int, Mapping[str, Any]]:
    """The event's seq and body, or :class:`EventError` naming what is wrong."""
    if table in RESERVED or not TABLE_ID.match(table):
        raise EventError("topic", f"{table!r} is not a table id (letters, digits, '_', '.', "
                         "'-'; at most 64; 'club' is the hub's own tree)")
    if not isinstance(payload, Mapping):
        raise EventError("payload", "an event is a JSON object")
    seq = payload.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise EventError("payload.seq", f"seq must be a whole number from 1, not {seq!r}")
    kind = payload.get("type")
    if not isinstance(kind, str) or not kind:
        raise EventError("payload.type", "an event names its type")
    return seq, payload


class Folder:
    """Writes events into a :class:`ClubDB` and keeps each table's games folded.

    The fold of each table is cached between events; the cache is trusted only while the
    table's ``folded_seq`` in the database is what this process last wrote (another hub may
    have folded since), otherwise it is rebuilt from the stored events."""

    def __init__(self, db: ClubDB) -> None:
        self.db = db
        self._books: dict[str, GameBook] = {}

    def ingest(self, table: str, payload: Any) -> Ingested:
        seq, body = check_event(table, payload)
        for attempt in range(RETRIES):
            try:
                with self.db.transaction() as conn:
                    return self._ingest(conn, table, seq, body)
            except (IntegrityError, OperationalError):
                # another hub's transaction won a race (a lock, a key): the next try sees it
                self._books.pop(table, None)
                if attempt == RETRIES - 1:
                    raise
            except Exception:
                self._books.pop(table, None)  # rolled back: the cache may be ahead of the db
                raise
        raise AssertionError("unreachable")

    def _ingest(self, conn: Connection, table: str, seq: int,
                body: Mapping[str, Any]) -> Ingested:
        stamp = now()
        # Two hubs may see a new table at once: the row is made once, then locked, so the
        # rest of this transaction runs for one hub at a time per table.
        conn.execute(_insert_ignore(conn, s.tables).values(
            table_id=table, first_seq=seq, last_seq=0, events=0, folded_seq=0,
            status="unknown", registered_at=stamp, seen_at=stamp))
        row = conn.execute(select(s.tables).where(s.tables.c.table_id == table)
                           .with_for_update()).first()
        new_table = row is not None and row.events == 0
        assert row is not None
        stored = conn.execute(_insert_ignore(conn, s.events).values(
            table_id=table, seq=seq, type=str(body["type"]),
            hand=body.get("hand") if isinstance(body.get("hand"), int) else None,
            ts=str(body.get("ts") or "")[:40] or None,
            payload=json.dumps(body, separators=(",", ":"), ensure_ascii=False))
            .returning(s.events.c.seq)).first()
        if stored is None:  # this (table, seq) is already in: a copy
            return Ingested(table, seq, new=False)
        gap = (int(row.last_seq) + 1, seq - 1) if row.last_seq and seq > row.last_seq + 1 \
            else None
        conn.execute(update(s.tables).where(s.tables.c.table_id == table).values(
            first_seq=min(int(row.first_seq), seq), last_seq=max(int(row.last_seq), seq),
            events=s.tables.c.events + 1, seen_at=stamp))
        if gap is not None or seq < row.last_seq:  # only then can a gap open or close
            self._note_gap(conn, table, seq, gap, stamp)
        folded = False
        if body["type"] in FOLDED:
            self._fold(conn, table, seq, body, int(row.folded_seq))
            folded = True
        return Ingested(table, seq, True, gap, new_table, folded)

    @staticmethod
    def _note_gap(conn: Connection, table: str, seq: int, gap: tuple[int, int] | None,
                  stamp: str) -> None:
        """Record a new gap; an event that arrives inside a recorded gap narrows it."""
        if gap is not None:
            conn.execute(s.gaps.insert().values(table_id=table, first=gap[0], last=gap[1],
                                                seen_at=stamp))
            return
        hit = conn.execute(select(s.gaps).where(
            s.gaps.c.table_id == table, s.gaps.c.first <= seq, s.gaps.c.last >= seq)).first()
        if hit is None:
            return
        conn.execute(delete(s.gaps).where(s.gaps.c.table_id == table,
                                          s.gaps.c.first == hit.first))
        for first, last in ((hit.first, seq - 1), (seq + 1, hit.last)):
            if first <= last:
                conn.execute(s.gaps.insert().values(table_id=table, first=first, last=last,
                                                    seen_at=hit.seen_at))

    # -- the fold ----------------------------------------------------------------------------

    def _fold(self, conn: Connection, table: str, seq: int, body: Mapping[str, Any],
              folded_seq: int) -> None:
        book = self._books.get(table)
        in_order = seq > folded_seq and book is not None and book.last_seq == folded_seq
        if in_order:
            assert book is not None
            book.fold(body)
            _tag_hand(book, body)
            changed = list(book.games)  # the game that was in play, and one it opened
        else:
            book = self._rebuild(conn, table)
            conn.execute(delete(s.games).where(s.games.c.table_id == table))
            conn.execute(delete(s.game_players).where(s.game_players.c.table_id == table))
            changed = list(book.games)
        for game in changed:
            self._write_game(conn, table, game, str(body.get("ts") or "") or None)
        conn.execute(update(s.tables).where(s.tables.c.table_id == table)
                     .values(folded_seq=book.last_seq))
        # only the game in play is needed to go on folding: the rest is in the database
        book.games[:] = book.games[-1:]
        self._books[table] = book

    @staticmethod
    def _rebuild(conn: Connection, table: str) -> GameBook:
        book = GameBook(DEFAULT_RULESET, keep_all=True)
        rows = conn.execute(select(s.events.c.payload).where(
            s.events.c.table_id == table, s.events.c.type.in_(FOLDED))
            .order_by(s.events.c.seq)).all()
        for (payload,) in rows:
            body = json.loads(payload)
            book.fold(body)
            _tag_hand(book, body)
        return book

    @staticmethod
    def _write_game(conn: Connection, table: str, game: Any, stamp: str | None) -> None:
        export = game.export()
        key = (s.games.c.table_id == table) & (s.games.c.game == game.id)
        values = {"ruleset": game.ruleset, "started_seq": game.started_seq,
                  "finished": export["final"] is not None, "updated": stamp,
                  "export": json.dumps(export, separators=(",", ":"), ensure_ascii=False)}
        if conn.execute(select(s.games.c.game).where(key)).first() is None:
            conn.execute(s.games.insert().values(table_id=table, game=game.id, **values))
            _seat(conn, table, game.id, list(game.players))
        else:
            conn.execute(update(s.games).where(key).values(**values))


def _insert_ignore(conn: Connection, table: Table) -> Any:
    """INSERT that leaves an existing row alone, in the connection's dialect."""
    if conn.dialect.name == "postgresql":
        return pg_insert(table).on_conflict_do_nothing()
    return sqlite_insert(table).on_conflict_do_nothing()


def _tag_hand(book: GameBook, body: Mapping[str, Any]) -> None:
    """Keep the event's seq on the hand it booked (records.HandRecord.seq)."""
    game = book.current
    if body.get("type") == "HandScored" and game is not None and game.hands \
            and "seq" not in game.hands[-1]:
        game.hands[-1]["seq"] = body.get("seq")


def _seat(conn: Connection, table: str, game: int, names: list[str]) -> None:
    """A game is seated: its players' names matched to the registered players."""
    winds = ("E", "S", "W", "N") if len(names) == 4 else ("E", "S", "N") if len(names) == 3 \
        else ("E", "W")
    registered = dict(conn.execute(select(s.players.c.name_key, s.players.c.id)).all())
    for wind, name in zip(winds, names, strict=False):
        conn.execute(s.game_players.insert().values(
            table_id=table, game=game, name=name, name_key=name_key(name), wind=wind,
            player_id=registered.get(name_key(name))))


def event_count(db: ClubDB, table: str) -> int:
    with db.transaction() as conn:
        return int(conn.execute(select(func.count()).select_from(s.events)
                                .where(s.events.c.table_id == table)).scalar_one())
