"""The table's recorder: the part that numbers what happened and stores it with what it
publishes.

Every record gets the table's next sequence number, the hand it belongs to and the wall-clock
time (its envelope), and is written with the MQTT messages it causes, the retained topics it
changes and, now and then, a snapshot of the table, in one store transaction
(controller/store.py), keyed by the board event being applied, so a restart knows that event
was applied. Then the publisher is woken. Nothing here waits on the network.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from controller.mqtt import Topics
from controller.store import EventStore, dumps
from engine.family import Recorded

Message = tuple[str, bytes, int | None]  # topic, payload, the seq it publishes (if an event)


@dataclass
class BoardEventMark:
    """A board event being applied (:meth:`Recorder.caused_by`): its key, and whether what it
    caused was stored with it."""

    key: tuple[int, int]
    stored: bool = False


class Recorder:
    def __init__(self, store: EventStore, topics: Topics, publish: Callable[[], bool],
                 wallclock: Callable[[], float], on_append: Callable[[], None]) -> None:
        self.store = store
        self.topics = topics
        self.publish = publish  # False: no broker configured, so nothing goes to the outbox
        self.wallclock = wallclock
        self.on_append = on_append
        self.seq = store.last_seq()
        # The board event being applied, (boot_id, seq): stored with what it causes, in the
        # same transaction (controller/store.py).
        self.source_key: tuple[int, int] | None = None
        self.source_key_stored = False

    @contextlib.contextmanager
    def caused_by(self, key: tuple[int, int]) -> Iterator[BoardEventMark]:
        """Apply a board event: whatever it causes is stored with its ``key`` in the same
        transaction; the mark says whether anything was (if not, the caller stores the key
        alone, so a restart knows the event was applied)."""
        mark = BoardEventMark(key)
        self.source_key, self.source_key_stored = key, False
        try:
            yield mark
        finally:
            mark.stored = self.source_key_stored
            self.source_key, self.source_key_stored = None, False

    def envelope(self, hand: int) -> dict[str, Any]:
        """The next record's sequence number, hand and time."""
        self.seq += 1
        ts = datetime.fromtimestamp(self.wallclock(), UTC).isoformat(timespec="milliseconds")
        return {"seq": self.seq, "hand": hand, "ts": ts}

    def entries(self, kept: Sequence[Recorded], table_events: Sequence[Mapping[str, Any]],
                hand: Callable[[], int], fold: Callable[[dict[str, Any]], None],
                ) -> tuple[list[dict[str, Any]], list[Message]]:
        """The engine's events as its family keeps them (``kept``) and the table's own
        ``table_events``, each in its envelope with the messages it publishes, and each
        ``fold`` ed in turn (a hand begun moves ``hand`` on for what follows it)."""
        records: list[dict[str, Any]] = []
        messages: list[Message] = []
        for one in kept:
            started = one.body["type"] == "HandStarted"
            env = self.envelope(hand() + 1 if started else hand())
            record = {**env, **one.body}
            records.append(record)
            messages.append((self.topics.events, dumps({**env, **one.public}).encode(),
                             env["seq"]))
            if one.decision is not None:  # a closed call window's adjudication, with its rule
                decision = {"seq": env["seq"], "hand": env["hand"], "type": "decision",
                            **one.decision}
                messages.append((self.topics.adjudications, dumps(decision).encode(), None))
            fold(record)
        for body in table_events:
            record = {**self.envelope(hand()), **body}
            records.append(record)
            messages.append((self.topics.events, dumps(record).encode(), record["seq"]))
            fold(record)
        return records, messages

    def write(self, records: list[dict[str, Any]], messages: list[Message],
              retained: Mapping[str, bytes],
              snapshot: tuple[int, dict[str, Any]] | None) -> None:
        """Store ``records`` with their outbox ``messages``, the ``retained`` topics and a
        ``snapshot`` in one transaction; then wake the publisher. A refusal of the store
        raises, and nothing of it was written."""
        if not self.publish():
            messages, retained = [], {}
        self.store.append(records, messages, dict(retained), snapshot, self.source_key)
        self.source_key_stored = self.source_key is not None
        self.on_append()

    def message(self, topic: str, body: Mapping[str, Any]) -> None:
        """A message that is not an event (a prompt, a command result): outbox only."""
        if not self.publish():
            return
        self.store.append([], [(topic, dumps(dict(body)).encode(), None)],
                          board_key=self.source_key)
        self.source_key_stored = self.source_key is not None
        self.on_append()

    def recovered(self) -> None:
        """The log was read again: the numbering goes on from its last record."""
        self.seq = self.store.last_seq()
