"""The events stream keeps its order across a (re)connect, whatever the threads' timing.

paho marks its connection up, calls ``on_connect``, and only then resends what it held while
the broker was away. A busy machine can stop paho's thread in between; a message handed to
paho in that moment goes out at once, ahead of the older ones, and a subscriber that keeps
what is above the highest ``seq`` it has seen (docs/mqtt.md) drops the older ones for good.
These tests hold paho's thread in that moment, as the load does, and add events meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from controller.broker import LocalMosquitto
from controller.mqtt import BrokerSettings, MqttLink, Topics
from controller.store import EventStore
from tests.waiting import wait_until


def _append(store: EventStore, topics: Topics, first: int, count: int) -> None:
    for seq in range(first, first + count):
        event = {"seq": seq, "hand": 1, "type": "discard", "tile": "5C"}
        store.append([event], [(topics.events, json.dumps(event).encode(), seq)])


class _StalledAtConnect(MqttLink):
    """A link whose paho thread stops after ``on_connect`` (as a loaded machine stops it),
    while the table writes more events and wakes the pump."""

    def __init__(self, *args: Any, more: Callable[[], None], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.more = more
        self.stalls = 0

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: mqtt.ConnectFlags,
                    reason: ReasonCode, properties: Properties | None) -> None:
        super()._on_connect(client, userdata, flags, reason, properties)
        self.stalls += 1
        handed = self._handed_upto
        self.more()
        self.kick()
        # Long enough for the pump to hand on what it would hand on; it is not an error if
        # it hands nothing (that is the point).
        wait_until(lambda: self._handed_upto > handed, 0.5)


def _kept(seqs: list[int]) -> list[int]:
    """What a subscriber keeps that dedupes as docs/mqtt.md says: above the highest seen."""
    highest, kept = 0, []
    for seq in seqs:
        if seq > highest:
            highest = seq
            kept.append(seq)
    return kept


def _while_away(broker: LocalMosquitto, link: _StalledAtConnect,
                write: Callable[[], None]) -> None:
    """Events written while the broker is away; then it comes back, and more are written
    while paho reconnects."""
    connects = link.stalls + 1
    broker.stop()
    assert wait_until(lambda: not link.client.is_connected(), 10)
    handed = link._handed_upto
    write()
    link.kick()
    # Time for the pump to hand them to paho if it would (paho would hold them until the
    # broker is back); the outbox keeps them instead.
    wait_until(lambda: link._handed_upto > handed, 1)
    broker.start()
    assert wait_until(lambda: link.stalls == connects and link.wait_idle(0.05), 20)


def test_events_written_while_paho_connects_keep_their_order(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    topics = Topics("t")
    store = EventStore(tmp_path / "t.sqlite3")
    rec = recorder_factory(broker.host, broker.port, topics.events)
    written = [0]

    def more() -> None:
        _append(store, topics, written[0] + 1, 10)
        written[0] += 10

    link = _StalledAtConnect(BrokerSettings(host=broker.host, port=broker.port), topics, store,
                             "table-t", more=more)
    link.start()
    assert wait_until(lambda: link.stalls == 1 and link.wait_idle(0.05), 10)
    # The broker goes away; the table writes on; it comes back (the first connect of a table
    # that started before its broker is the same case).
    _while_away(broker, link, more)
    _while_away(broker, link, more)
    seqs = [json.loads(p)["seq"] for _, p, _ in rec.messages]
    assert _kept(seqs) == list(range(1, written[0] + 1)), f"arrived: {seqs}"
    link.stop()
