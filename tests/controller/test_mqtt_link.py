"""The MQTT link against a real Mosquitto: ordered QoS 1 delivery from the durable outbox,
retained topics, the will, commands, and a broker outage."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.broker import LocalMosquitto
from controller.mqtt import BrokerSettings, MqttLink, Topics
from controller.store import EventStore

# The issue asks for a 30 s outage; CI keeps its share short. MJTABLE_OUTAGE_S=30 or the
# slow variant runs the full one.
OUTAGE_S = float(os.environ.get("MJTABLE_OUTAGE_S", "3"))


def _append(store: EventStore, topics: Topics, first: int, count: int) -> None:
    for seq in range(first, first + count):
        event = {"seq": seq, "hand": 1, "type": "discard", "tile": "5C"}
        store.append(
            [event],
            [(topics.events, json.dumps(event).encode(), seq)],
            retained={topics.state: json.dumps({"seq": seq}).encode()},
        )


def _link(broker: LocalMosquitto, store: EventStore, topics: Topics, **kw: object) -> MqttLink:
    link = MqttLink(
        BrokerSettings(host=broker.host, port=broker.port), topics, store, "table-t", **kw  # type: ignore[arg-type]
    )
    link.start()
    return link


def test_events_arrive_once_in_order_and_state_is_retained(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    topics = Topics("t")
    store = EventStore(tmp_path / "t.sqlite3")
    rec = recorder_factory(broker.host, broker.port, "mahjong/v1/t/#")
    link = _link(broker, store, topics)
    _append(store, topics, 1, 250)  # more than the in-flight window
    link.kick()
    assert rec.wait_for(lambda: len(rec.json_on("/events")) == 250)
    assert [e["seq"] for e in rec.json_on("/events")] == list(range(1, 251))
    assert link.wait_idle(5) and store.outbox_size() == 0
    assert rec.json_on("/status")[0] == {"state": "online"}
    # A late subscriber sees the retained state of the last event.
    late = recorder_factory(broker.host, broker.port, "mahjong/v1/t/state", "late")
    assert late.wait_for(lambda: late.json_on("/state") != [])
    assert late.json_on("/state")[-1] == {"seq": 250}
    link.stop()


def test_will_says_offline_when_the_table_vanishes(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    topics = Topics("t")
    link = _link(broker, EventStore(tmp_path / "t.sqlite3"), topics)
    assert link.wait_idle(5)
    rec = recorder_factory(broker.host, broker.port, topics.status)
    # Drop the TCP connection without DISCONNECT, as a power cut would.
    link._stop.set()
    link.client.loop_stop()
    link.client.socket().close()  # type: ignore[union-attr]
    assert rec.wait_for(lambda: {"state": "offline"} in rec.json_on("/status"), timeout=30)


def test_commands_reach_the_handler(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    topics = Topics("t")
    got: list[tuple[str, bytes]] = []
    store = EventStore(tmp_path / "t.sqlite3")
    link = _link(broker, store, topics, on_command=lambda v, p: got.append((v, p)))
    assert link.wait_idle(5)
    sender = recorder_factory(broker.host, broker.port, "unused/#", "sender")
    sender.client.publish(topics.cmd("correct"), b'{"x": 1}', qos=1)
    sender.client.publish(topics.cmd_result("correct"), b"ignored", qos=1)
    deadline = time.monotonic() + 5
    while not got and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    assert got == [("correct", b'{"x": 1}')]
    link.stop()


def _outage(tmp_path: Path, broker: LocalMosquitto, rec: Any, seconds: float) -> None:
    topics = Topics("t")
    store = EventStore(tmp_path / "t.sqlite3")
    link = _link(broker, store, topics)
    _append(store, topics, 1, 20)
    link.kick()
    assert rec.wait_for(lambda: len(rec.json_on("/events")) == 20)
    broker.stop()
    # The game goes on while the broker is away; every event lands in the outbox.
    deadline = time.monotonic() + seconds
    seq = 21
    while time.monotonic() < deadline:
        _append(store, topics, seq, 5)
        link.kick()
        seq += 5
        time.sleep(min(0.5, seconds / 4))
    assert store.outbox_size() >= 5
    broker.start()
    assert rec.wait_for(lambda: len({e["seq"] for e in rec.json_on("/events")}) == seq - 1, 30)
    seqs = [e["seq"] for e in rec.json_on("/events")]
    # Nothing lost; a resent message may repeat, but the stream never goes backwards after a
    # dedupe by seq, and has no gap.
    deduped = [s for i, s in enumerate(seqs) if s not in seqs[:i]]
    assert deduped == list(range(1, seq))
    assert link.wait_idle(10) and store.outbox_size() == 0
    link.stop()


def test_broker_outage_loses_nothing(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    rec = recorder_factory(broker.host, broker.port, "mahjong/v1/t/events")
    _outage(tmp_path, broker, rec, OUTAGE_S)


@pytest.mark.slow
def test_broker_outage_of_30_seconds_loses_nothing(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    rec = recorder_factory(broker.host, broker.port, "mahjong/v1/t/events")
    _outage(tmp_path, broker, rec, 30.0)


def test_restart_resends_what_was_not_acknowledged(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    """Events written while no link ran (the service died before sending) go out on the next
    start, from the store alone."""
    topics = Topics("t")
    store = EventStore(tmp_path / "t.sqlite3")
    _append(store, topics, 1, 30)
    store.close()
    rec = recorder_factory(broker.host, broker.port, "mahjong/v1/t/events")
    link = _link(broker, EventStore(tmp_path / "t.sqlite3"), topics)
    assert rec.wait_for(lambda: len(rec.json_on("/events")) == 30)
    assert [e["seq"] for e in rec.json_on("/events")] == list(range(1, 31))
    link.stop()


def test_a_message_paho_refuses_does_not_block_the_rest(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    topics = Topics("t")
    store = EventStore(tmp_path / "t.sqlite3")
    store.append([], [("mahjong/v1/t/cmd/#/result", b"{}", None)])  # wildcard: unpublishable
    _append(store, topics, 1, 3)
    rec = recorder_factory(broker.host, broker.port, "mahjong/v1/t/events")
    link = _link(broker, store, topics)
    assert rec.wait_for(lambda: len(rec.json_on("/events")) == 3)
    assert link.wait_idle(5) and store.outbox_size() == 0
    link.stop()
