"""The club database's tables (SQLAlchemy Core), one schema for SQLite and PostgreSQL.

``events`` is the judge of what was counted: its primary key (table, seq) is inserted in the
same transaction as the fold it causes, so a message delivered twice (a restarted hub, two
hubs at once, a table resending after a crash) is refused by the database and folds nothing.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# One row per table the hub has heard from.
tables = Table(
    "club_tables", metadata,
    Column("table_id", String(64), primary_key=True),
    Column("first_seq", BigInteger, nullable=False),  # the first seq this hub ever stored
    Column("last_seq", BigInteger, nullable=False),  # the highest seq stored
    Column("events", BigInteger, nullable=False),  # how many distinct events stored
    Column("folded_seq", BigInteger, nullable=False),  # the highest game event folded
    Column("status", String(32), nullable=False, default="unknown"),
    Column("registered_at", String(40), nullable=False),
    Column("seen_at", String(40), nullable=False),
)

events = Table(
    "club_events", metadata,
    Column("table_id", String(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("type", String(64), nullable=False),
    Column("hand", Integer),
    Column("ts", String(40)),
    Column("payload", Text, nullable=False),
    PrimaryKeyConstraint("table_id", "seq", name="club_events_once"),
)

games = Table(
    "club_games", metadata,
    Column("table_id", String(64), nullable=False),
    Column("game", Integer, nullable=False),
    Column("ruleset", String(64), nullable=False),
    Column("started_seq", BigInteger, nullable=False),
    Column("finished", Boolean, nullable=False),
    Column("updated", String(40)),
    Column("export", Text, nullable=False),  # the game as the table's fold exports it
    PrimaryKeyConstraint("table_id", "game", name="club_games_key"),
)

players = Table(
    "club_players", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("club_id", String(64), nullable=False, unique=True),
    Column("name", String(64), nullable=False),
    Column("name_key", String(64), nullable=False, unique=True),  # casefolded, spaces single
)

game_players = Table(
    "club_game_players", metadata,
    Column("table_id", String(64), nullable=False),
    Column("game", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("name_key", String(64), nullable=False),
    Column("wind", String(1), nullable=False),
    Column("player_id", Integer, ForeignKey("club_players.id"), nullable=True),
    PrimaryKeyConstraint("table_id", "game", "name", name="club_game_players_key"),
    UniqueConstraint("table_id", "game", "wind", name="club_game_players_wind"),
)

# Missing seq ranges a hub saw and reported (a gap is closed when its events arrive).
gaps = Table(
    "club_gaps", metadata,
    Column("table_id", String(64), nullable=False),
    Column("first", BigInteger, nullable=False),
    Column("last", BigInteger, nullable=False),
    Column("seen_at", String(40), nullable=False),
    PrimaryKeyConstraint("table_id", "first", name="club_gaps_key"),
)
