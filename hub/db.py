"""The club database: one data layer over SQLite (one venue) and PostgreSQL (a league).

Built on SQLAlchemy Core, so the same statements run on both; ``open_db`` takes a file path
(SQLite) or a database URL (``postgresql+psycopg://user@host/club``). The read API below is
what standings schemes and the club page call; the hub itself writes through
:mod:`hub.ingest`.

SQLite is opened in WAL mode and every transaction takes the write lock at its start
(``BEGIN IMMEDIATE``), so two hub processes on one file serialise their folds instead of
failing halfway; on PostgreSQL the table's row is locked (``SELECT ... FOR UPDATE``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, select, update
from sqlalchemy.exc import IntegrityError

from hub import schema as s
from hub.records import GameRecord, Player, game_record


class PlayerError(ValueError):
    """A registration the club refuses; ``where`` names the field."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        super().__init__(message)


@dataclass(frozen=True)
class TableRecord:
    """A table the hub has heard from. ``missing``: events between its first and last seq
    that never arrived (0 when the stream is whole)."""

    table: str
    first_seq: int
    last_seq: int
    events: int
    status: str
    registered_at: str
    seen_at: str

    @property
    def missing(self) -> int:
        return self.last_seq - self.first_seq + 1 - self.events


def name_key(name: str) -> str:
    """How names are matched: case and runs of spaces do not make another person."""
    return " ".join(name.split()).casefold()


def _is_url(target: str) -> bool:
    return "://" in target


def make_engine(target: str, writer: bool = True) -> Engine:
    """An engine for a SQLite file path or a database URL. On SQLite a ``writer`` takes the
    write lock when its transaction begins; a reader does not (in WAL mode readers never wait
    for the writer, nor it for them)."""
    if not _is_url(target):
        engine = create_engine(f"sqlite:///{target}", connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            # pysqlite's own transaction handling is switched off so BEGIN is ours
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

        return engine
    return create_engine(target, pool_pre_ping=True)


class ClubDB:
    """The club's database. ``target``: a SQLite file path, or a SQLAlchemy URL."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.engine = make_engine(target)
        # the read API's own engine: on SQLite the club page's reads never hold up the hub
        self.reader = make_engine(target, writer=False) if not _is_url(target) else self.engine
        s.metadata.create_all(self.engine)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()
        self.reader.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    # -- the read API (standings schemes, the club page) -------------------------------------

    def games(self, finished: bool | None = None, table: str | None = None) -> list[GameRecord]:
        """Games in the order they started (table, then the table's game number); only the
        finished (True) or the running (False) ones if ``finished`` is given."""
        query = select(s.games).order_by(s.games.c.table_id, s.games.c.game)
        if finished is not None:
            query = query.where(s.games.c.finished == finished)
        if table is not None:
            query = query.where(s.games.c.table_id == table)
        with self.reader.begin() as conn:
            rows = conn.execute(query).all()
            ids = self._seat_ids(conn)
        return [self._record(row, ids) for row in rows]

    def game(self, table: str, game: int) -> GameRecord | None:
        """One game by its table and the table's game number."""
        found = [g for g in self.games(table=table) if g.game == game]
        return found[0] if found else None

    def players(self) -> list[Player]:
        """Registered players, by name."""
        with self.reader.begin() as conn:
            rows = conn.execute(select(s.players).order_by(s.players.c.name_key)).all()
        return [Player(r.id, r.club_id, r.name) for r in rows]

    def player(self, player_id: int) -> Player | None:
        """One registered player by the database's id."""
        return next((p for p in self.players() if p.id == player_id), None)

    def player_by_club_id(self, club_id: str) -> Player | None:
        """One registered player by the club's membership id."""
        return next((p for p in self.players() if p.club_id == club_id), None)

    def player_games(self, player_id: int) -> list[GameRecord]:
        """Every game (finished or running) the player sat in, oldest first."""
        with self.reader.begin() as conn:
            keys = {(r.table_id, r.game) for r in conn.execute(
                select(s.game_players.c.table_id, s.game_players.c.game)
                .where(s.game_players.c.player_id == player_id)).all()}
        return [g for g in self.games() if (g.table, g.game) in keys]

    def tables(self) -> list[TableRecord]:
        """Every table the hub has heard from, by id."""
        with self.reader.begin() as conn:
            rows = conn.execute(select(s.tables).order_by(s.tables.c.table_id)).all()
        return [TableRecord(r.table_id, r.first_seq, r.last_seq, r.events, r.status,
                            r.registered_at, r.seen_at) for r in rows]

    def gaps(self) -> list[tuple[str, int, int]]:
        """Open gaps in the tables' streams: (table, first missing seq, last missing seq)."""
        with self.reader.begin() as conn:
            rows = conn.execute(select(s.gaps).order_by(s.gaps.c.table_id,
                                                        s.gaps.c.first)).all()
        return [(r.table_id, r.first, r.last) for r in rows]

    def set_table_status(self, table: str, state: str) -> None:
        """A table's own retained status (online/offline), for the club page."""
        with self.engine.begin() as conn:
            conn.execute(update(s.tables).where(s.tables.c.table_id == table)
                         .values(status=state))

    # -- players ---------------------------------------------------------------------------

    def register_player(self, club_id: str, name: str) -> Player:
        """Register a club member once. A club id or a name already registered is refused
        (:class:`PlayerError`): names are how players show, so two members need two names.
        Games already seated under the name are matched to the new id."""
        club_id = club_id.strip()
        name = " ".join(name.split())
        if not club_id or len(club_id) > 64:
            raise PlayerError("club_id", "a club id of 1-64 characters")
        if not name or len(name) > 40 or name.upper() in ("E", "S", "W", "N"):
            raise PlayerError("name", "a name of 1-40 characters, not a seat letter")
        with self.engine.begin() as conn:
            for column, value, what in ((s.players.c.club_id, club_id, "club id"),
                                        (s.players.c.name_key, name_key(name), "name")):
                row = conn.execute(select(s.players).where(column == value)).first()
                if row is not None:
                    raise PlayerError(
                        "club_id" if what == "club id" else "name",
                        f"{what} {value if what == 'club id' else name!r} is already "
                        f"registered: {row.name} ({row.club_id})")
            try:
                new_id = conn.execute(s.players.insert().values(
                    club_id=club_id, name=name, name_key=name_key(name))).inserted_primary_key
            except IntegrityError:  # another process registered it at the same moment
                raise PlayerError("club_id", f"{club_id!r} was registered just now") from None
            assert new_id is not None
            conn.execute(update(s.game_players)
                         .where(s.game_players.c.name_key == name_key(name))
                         .values(player_id=new_id[0]))
        return Player(int(new_id[0]), club_id, name)

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _seat_ids(conn: Connection) -> dict[tuple[str, int, str], int]:
        rows = conn.execute(select(s.game_players).where(
            s.game_players.c.player_id.is_not(None))).all()
        return {(r.table_id, r.game, r.name): int(r.player_id) for r in rows}

    @staticmethod
    def _record(row: Any, ids: dict[tuple[str, int, str], int]) -> GameRecord:
        export = json.loads(row.export)
        names = {p: i for (t, g, p), i in ids.items() if t == row.table_id and g == row.game}
        return game_record(row.table_id, export, int(row.started_seq), names, row.updated)


def open_db(target: str) -> ClubDB:
    """The club database at a SQLite path or a database URL, its tables created if new."""
    return ClubDB(target)
