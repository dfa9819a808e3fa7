"""Mosquitto acknowledges a message before it saves it, even saving after every change: a
broker killed (or a Pi losing power) in the moment after a PUBACK loses what it acknowledged,
though the table had already taken it out of its outbox. The table keeps each event it
delivered for a while and sends the last ones again after every (re)connect
(docs/reliability.md, "The broker acknowledges before it saves"); a subscriber deduping by
`seq` sees each once.

The kill is made certain: the broker, as deploy/ ships it, is killed with -9 from the table's
own delivery callback, the instant the PUBACK of each event has been taken."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from controller.mqtt import BrokerSettings, MqttLink, Topics
from controller.store import EventStore
from tests.faults.mqtt_probe import Probe
from tests.faults.shipped_broker import ShippedBroker
from tests.waiting import wait_until

EVENTS = 5


def test_events_acknowledged_the_instant_before_a_broker_kill_still_arrive(
    tmp_path: Path,
) -> None:
    broker = ShippedBroker(tmp_path / "broker", tables=("t1",))
    broker.start()
    club = Probe("127.0.0.1", broker.plain_port, "club", "viewer", broker.password("viewer"),
                 persistent=True)
    assert club.connect() == "Success"
    club.subscribe("mahjong/v1/t1/events")
    club.close()  # away all evening: the broker queues for it

    topics = Topics("t1")
    store = EventStore(tmp_path / "t.sqlite3")
    link = MqttLink(BrokerSettings("127.0.0.1", broker.plain_port, "t1", broker.password("t1")),
                    topics, store, "t1")
    armed = threading.Event()
    kills: list[int] = []
    took_puback = link.client.on_publish

    def kill_at_puback(*args: object) -> None:
        if armed.is_set():  # the PUBACK of the event just appended
            armed.clear()
            broker.kill9()  # the broker may not have saved it yet
            kills.append(1)
        took_puback(*args)  # then the table takes it: the row leaves the outbox

    link.client.on_publish = kill_at_puback
    link.start()
    try:
        for seq in range(1, EVENTS + 1):
            assert wait_until(lambda: link.connected, 15), "the table did not (re)connect"
            assert link.wait_idle(15)
            armed.set()
            body = {"seq": seq, "hand": 1, "type": "Drew", "seat": "E"}
            store.append([body], [(topics.events, json.dumps(body).encode(), seq)])
            link.kick()
            assert wait_until(lambda s=seq: len(kills) == s, 15), f"event {seq} not sent"
            broker.start()
        assert link.wait_idle(15)
    finally:
        link.stop()
        store.close()
    club = Probe("127.0.0.1", broker.plain_port, "club", "viewer", broker.password("viewer"),
                 persistent=True)
    try:
        assert club.connect() == "Success"
        got = lambda: {e["seq"] for e in club.json_on("/events")}  # noqa: E731
        wait_until(lambda: got() >= set(range(1, EVENTS + 1)), 10)
        assert got() == set(range(1, EVENTS + 1)), f"lost {set(range(1, EVENTS + 1)) - got()}"
    finally:
        club.close()
        broker.stop()
