"""What the club page shows, kept from the club broker: each table's retained ``state``,
``scores`` and ``status`` (bridged from the tables), and the club tree's events, seatings,
clocks and standings (:mod:`hub.rounds_mqtt`). paho's thread writes, the page's handlers read
a copy under the lock."""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

TABLE_TOPICS = ("state", "scores", "status")


class ClubView:
    def __init__(self, host: str, port: int, prefix: str = "mahjong/v1",
                 username: str | None = None, password: str | None = None,
                 client_id: str = "mjtable-club-page") -> None:
        self.prefix = prefix
        self.lock = threading.Lock()
        self.tables: dict[str, dict[str, Any]] = {}
        self.events: dict[str, dict[str, Any]] = {}
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=MQTTProtocolVersion.MQTTv5)
        if username:
            self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.host, self.port = host, port

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=30)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, *_: Any) -> None:
        client.subscribe([(f"{self.prefix}/+/{t}", 1) for t in TABLE_TOPICS]
                         + [(f"{self.prefix}/club/events/#", 1)])

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        try:
            body = json.loads(msg.payload)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        parts = msg.topic[len(self.prefix) + 1:].split("/")
        with self.lock:
            if parts[0] == "club" and len(parts) >= 3 and parts[1] == "events":
                slot = self.events.setdefault(parts[2], {})
                slot[parts[3] if len(parts) > 3 else "event"] = body
            elif len(parts) == 2 and parts[0] != "club" and parts[1] in TABLE_TOPICS:
                self.tables.setdefault(parts[0], {})[parts[1]] = body

    def snapshot(self) -> dict[str, Any]:
        """Tables by id (state, scores, status), and events by id (event, seating, clock,
        standings)."""
        with self.lock:
            return copy.deepcopy({"tables": self.tables, "events": self.events})
