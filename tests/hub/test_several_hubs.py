"""Several hubs on one club broker and one database, on a real Mosquitto: what a shared
subscription does there (docs/club.md, "Several hubs"), and a partition by table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.broker import LocalMosquitto
from hub.db import open_db
from hub.service import Hub, HubSettings
from tests.waiting import wait_until


@pytest.fixture
def broker() -> Iterator[LocalMosquitto]:
    with LocalMosquitto(extra="max_queued_messages 100000") as running:
        yield running


class Publisher:
    def __init__(self, broker: LocalMosquitto) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                  protocol=MQTTProtocolVersion.MQTTv5)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def send(self, table: str, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.client.publish(f"mahjong/v1/{table}/events", json.dumps(event),
                                qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def start_hubs(broker: LocalMosquitto, db: Path, **settings: Any) -> tuple[list[Hub],
                                                                            dict[str, list[int]]]:
    hubs, seen = [], {}
    for name, extra in settings.items():
        hub = Hub(HubSettings(broker.host, broker.port, str(db), hub_id=name, **extra),
                  open_db(str(db)))
        seen[name] = []
        hub.on_ingested = lambda done, got=seen[name]: got.append(done.seq)
        hub.start()
        assert hub.connected.wait(5)
        hubs.append(hub)
    return hubs, seen


def test_a_shared_group_splits_the_stream_and_mosquitto_holds_an_absent_members_share(
        broker: LocalMosquitto, tmp_path: Path, american_game: list[dict[str, Any]]) -> None:
    hubs, seen = start_hubs(broker, tmp_path / "club.db", a={"share": "hub"},
                            b={"share": "hub"})
    db = hubs[0].db
    sender = Publisher(broker)
    try:
        sender.send("t1", american_game[:400])
        assert wait_until(lambda: db.tables() != [] and db.tables()[0].events == 400, 30)
        assert sorted(seen["a"] + seen["b"]) == list(range(1, 401))  # each once, split
        assert seen["a"] and seen["b"]

        # Hub b goes away with its session kept: Mosquitto 2.0 goes on handing it every
        # other message, which waits in its session; the stream has holes until b returns.
        hubs[1].client.disconnect()
        hubs[1].client.loop_stop()
        sender.send("t1", american_game[400:600])
        assert wait_until(lambda: db.tables()[0].events == 500, 30)
        assert not wait_until(lambda: db.tables()[0].events > 500, 2)  # the rest waits for b
        assert len(db.gaps()) >= 99  # every other seq of the 200
        hubs[1].connected.clear()
        hubs[1].start()
        assert wait_until(lambda: db.tables()[0].events == 600, 30)
        assert db.gaps() == []
    finally:
        sender.close()
        for hub in hubs:
            hub.stop()


def test_hubs_partitioned_by_table_take_only_their_own(
        broker: LocalMosquitto, tmp_path: Path, american_game: list[dict[str, Any]]) -> None:
    hubs, seen = start_hubs(broker, tmp_path / "club.db", a={"tables": ("t1",)},
                            b={"tables": ("t2", "t3")})
    sender = Publisher(broker)
    try:
        for table in ("t1", "t2", "t3"):
            sender.send(table, american_game[:50])
        db = hubs[0].db
        assert wait_until(lambda: [t.events for t in db.tables()] == [50, 50, 50], 30)
        assert (len(seen["a"]), len(seen["b"])) == (50, 100)
    finally:
        sender.close()
        for hub in hubs:
            hub.stop()
