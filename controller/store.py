"""The table's durable memory: an append-only event log, snapshots, and the MQTT outbox.

One SQLite file in WAL mode. An event, the messages it causes and the retained topics it
changes are written in ONE transaction, so after a power cut or ``kill -9`` the log and the
outbox agree: every event is either fully there (and will be published) or not there at all.
``synchronous=FULL`` makes a committed event survive a power cut, not only a crash.

Sequence numbers are the log's primary key: they rise by exactly one per event, across
restarts, and MQTT consumers dedupe by them.

The key ``(boot_id, seq)`` of the last board event applied is kept in ``meta`` and written in
the same transaction as what the event caused: after a restart the board resends what it was
not acknowledged, and whatever is at or before that key was already applied and is skipped.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("mjtable.store")

SCHEMA_VERSION = 1
# How long an event the broker acknowledged is kept, to be sent again after a (re)connect.
# Mosquitto saves after its acknowledgement (tens of ms with thousands of messages queued:
# bench/faults/bench_kill_at_ack.py), and the rename that replaces its saved file reaches
# the disk with the file system's next journal commit (ext4: every 5 s), which a power cut
# may not see: 10 s covers both.
SENT_KEPT_S = 10.0

BOARD_KEY = "board_key"  # meta: "<boot_id>:<seq>" of the last board event applied

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,       -- 1, 2, 3 ... never reused
    hand INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL             -- the whole event as JSON, concealed tiles included
);
CREATE INDEX IF NOT EXISTS events_by_hand ON events(hand, seq);
CREATE INDEX IF NOT EXISTS events_by_type ON events(type, seq);
CREATE TABLE IF NOT EXISTS snapshots (
    seq INTEGER PRIMARY KEY,       -- the last event folded into this state
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    seq INTEGER                     -- the event it carries, if any
);
CREATE TABLE IF NOT EXISTS sent (
    id INTEGER PRIMARY KEY,         -- its outbox id: sent again, it keeps its place
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    seq INTEGER NOT NULL,
    at REAL NOT NULL                -- when the broker acknowledged it (Unix time)
);
CREATE TABLE IF NOT EXISTS retained (
    topic TEXT PRIMARY KEY,
    payload BLOB NOT NULL,
    version INTEGER NOT NULL,
    sent_version INTEGER NOT NULL DEFAULT 0
);
"""


class StoreError(RuntimeError):
    """The store file cannot be used (wrong schema, not a database, unwritable)."""


@dataclass(frozen=True)
class Message:
    """One message waiting in the outbox."""

    id: int
    topic: str
    payload: bytes
    seq: int | None


@dataclass(frozen=True)
class RetainedMessage:
    topic: str
    payload: bytes
    version: int


def dumps(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


# Told of every message and retained topic once its transaction committed (the table's page,
# controller/web): exactly what MQTT will publish, nothing more.
Listener = Callable[[Sequence[tuple[str, bytes, int | None]], Mapping[str, bytes]], None]


class EventStore:
    """Thread-safe: the service appends from its loop, the MQTT thread acknowledges."""

    listeners: list[Listener]

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.listeners = []
        try:
            self._db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=10.0
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._check_version()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable table store ({exc})") from None

    def _check_version(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self._db.execute(
                "INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
            )
        elif int(row[0]) != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema {row[0]}, this build reads {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- the log ---------------------------------------------------------------------------

    def last_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        return int(row[0])

    def append(
        self,
        events: Sequence[Mapping[str, Any]],
        messages: Sequence[tuple[str, bytes, int | None]] = (),
        retained: Mapping[str, bytes] | None = None,
        snapshot: tuple[int, Mapping[str, Any]] | None = None,
        board_key: tuple[int, int] | None = None,
    ) -> None:
        """Append events (each carrying its ``seq``, ``hand`` and ``type``), the messages they
        cause, the retained topics they change, optionally a snapshot, and the key of the board
        event that caused them (``board_key``), atomically.

        Refuses a ``seq`` that is not exactly the next one: the log has no gaps.
        """
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                expected = int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
                for event in events:
                    expected += 1
                    if event["seq"] != expected:
                        raise StoreError(
                            f"event seq {event['seq']} out of order, expected {expected}"
                        )
                    db.execute(
                        "INSERT INTO events(seq, hand, type, body) VALUES (?, ?, ?, ?)",
                        (event["seq"], event["hand"], event["type"], dumps(event)),
                    )
                db.executemany(
                    "INSERT INTO outbox(topic, payload, seq) VALUES (?, ?, ?)", messages
                )
                for topic, payload in (retained or {}).items():
                    db.execute(
                        "INSERT INTO retained(topic, payload, version) VALUES (?, ?, 1) "
                        "ON CONFLICT(topic) DO UPDATE SET payload=excluded.payload, "
                        "version=retained.version + 1",
                        (topic, payload),
                    )
                if board_key is not None:
                    self._put_board_key(board_key)
                if snapshot is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO snapshots(seq, state) VALUES (?, ?)",
                        (snapshot[0], dumps(snapshot[1])),
                    )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        for listener in self.listeners:
            try:
                listener(messages, retained or {})
            except Exception:  # a listener's fault never undoes what was stored
                log.exception("a store listener failed")

    def _put_board_key(self, key: tuple[int, int]) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (BOARD_KEY, f"{key[0]}:{key[1]}"),
        )

    def set_board_key(self, key: tuple[int, int]) -> None:
        """Record a board event applied that caused nothing else to store."""
        with self._lock:
            self._put_board_key(key)

    def board_key(self) -> tuple[int, int] | None:
        """``(boot_id, seq)`` of the last board event applied, or None."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (BOARD_KEY,)).fetchone()
        if row is None:
            return None
        boot, _, seq = str(row[0]).partition(":")
        return int(boot), int(seq)

    def board_event_applied(self, key: tuple[int, int]) -> bool:
        """Was this board event (or a later one of the same boot) already applied?"""
        last = self.board_key()
        return last is not None and last[0] == key[0] and key[1] <= last[1]

    def events(self, after: int = 0) -> Iterator[dict[str, Any]]:
        """Every event with ``seq > after``, in order. Trusted: they were checked on append."""
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM events WHERE seq > ? ORDER BY seq", (after,)
            ).fetchall()
        for (body,) in rows:
            yield json.loads(body)

    def events_of_types(self, types: Sequence[str]) -> list[dict[str, Any]]:
        """Every event of these types, in order (the games are folded from a few of them)."""
        marks = ", ".join("?" for _ in types)
        with self._lock:
            rows = self._db.execute(
                f"SELECT body FROM events WHERE type IN ({marks}) ORDER BY seq", tuple(types)
            ).fetchall()
        return [json.loads(body) for (body,) in rows]

    def events_of_hand(self, hand: int) -> list[dict[str, Any]]:
        """Every event of one hand, in order (recovery rebuilds the hand in play from these)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM events WHERE hand = ? ORDER BY seq", (hand,)
            ).fetchall()
        return [json.loads(body) for (body,) in rows]

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT seq, state FROM snapshots ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        return None if row is None else (int(row[0]), json.loads(row[1]))

    # -- the outbox --------------------------------------------------------------------------

    def pending(self, after_id: int = 0, limit: int = 100) -> list[Message]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, topic, payload, seq FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
                (after_id, limit),
            ).fetchall()
        return [Message(int(r[0]), str(r[1]), bytes(r[2]), r[3]) for r in rows]

    def outbox_size(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0])

    def delivered(self, message_id: int, at: float | None = None) -> None:
        """The broker acknowledged it: it leaves the outbox. An event is kept ``SENT_KEPT_S``
        more (table ``sent``): the broker acknowledges before it saves, and a broker killed
        in that moment has lost it (docs/reliability.md)."""
        now = time.time() if at is None else at
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT OR REPLACE INTO sent(id, topic, payload, seq, at) "
                    "SELECT id, topic, payload, seq, ? FROM outbox "
                    "WHERE id = ? AND seq IS NOT NULL", (now, message_id))
                db.execute("DELETE FROM outbox WHERE id = ?", (message_id,))
                db.execute("DELETE FROM sent WHERE at < ?", (now - SENT_KEPT_S,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def resend_recent(self) -> int:
        """Put back in the outbox, in their places, the events the broker acknowledged in the
        ``SENT_KEPT_S`` before its last acknowledgement: at a (re)connect, the broker may be
        one restarted without them. How many."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                newest = db.execute("SELECT MAX(at) FROM sent").fetchone()[0]
                count = 0
                if newest is not None:
                    since = float(newest) - SENT_KEPT_S
                    count = db.execute(
                        "INSERT OR IGNORE INTO outbox(id, topic, payload, seq) "
                        "SELECT id, topic, payload, seq FROM sent WHERE at >= ?", (since,)
                    ).rowcount
                    db.execute("DELETE FROM sent WHERE at >= ?", (since,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return int(count)

    def forget_outbox(self) -> None:
        """A table without a broker (its page alone is fed the topics): nothing waits to be
        published."""
        with self._lock:
            self._db.execute("DELETE FROM outbox")
            self._db.execute("UPDATE retained SET sent_version = version")

    def retained_pending(self) -> list[RetainedMessage]:
        with self._lock:
            rows = self._db.execute(
                "SELECT topic, payload, version FROM retained WHERE version > sent_version"
            ).fetchall()
        return [RetainedMessage(str(r[0]), bytes(r[1]), int(r[2])) for r in rows]

    def retained_all(self) -> list[RetainedMessage]:
        with self._lock:
            rows = self._db.execute("SELECT topic, payload, version FROM retained").fetchall()
        return [RetainedMessage(str(r[0]), bytes(r[1]), int(r[2])) for r in rows]

    def retained_delivered(self, topic: str, version: int) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE retained SET sent_version = MAX(sent_version, ?) WHERE topic = ?",
                (version, topic),
            )
