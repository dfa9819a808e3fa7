"""A small MQTT 5 client for the broker's fault and security tests: it connects (optionally
with a user and TLS against a CA file), and reports the broker's reason codes as they come."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.waiting import wait_until


class Probe:
    """``Probe(host, port, user=..., password=..., ca=...)``; ``connect()`` returns the CONNACK
    reason as a string ("Success", "Not authorized", ...) or ``"no connection: ..."``."""

    def __init__(self, host: str, port: int, client_id: str, user: str = "",
                 password: str = "", ca: str | None = None, persistent: bool = False) -> None:
        self.host, self.port, self.persistent = host, port, persistent
        self.messages: list[tuple[str, bytes]] = []
        self.topics: list[str] = []
        self.acks: dict[int, str] = {}
        self.connack: str | None = None
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=MQTTProtocolVersion.MQTTv5)
        if user:
            self.client.username_pw_set(user, password or None)
        if ca is not None:
            self.client.tls_set(ca_certs=ca, cert_reqs=ssl.CERT_REQUIRED)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.on_subscribe = lambda *a: self.subscribed.set()

    def connect(self, timeout: float = 5.0) -> str:
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = 3600 if self.persistent else 0
        try:
            self.client.connect(self.host, self.port, keepalive=10,
                                clean_start=not self.persistent, properties=props)
        except (OSError, ssl.SSLError) as exc:
            return f"no connection: {type(exc).__name__}: {exc}"
        self.client.loop_start()
        deadline = time.monotonic() + timeout
        while self.connack is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.connack or "no connection: no CONNACK"

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object,
                    reason: Any, properties: object) -> None:
        self.connack = str(reason)
        self.connected.set()
        for topic in self.topics:  # again after a reconnect (a restarted broker)
            client.subscribe(topic, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.messages.append((msg.topic, bytes(msg.payload)))

    def _on_publish(self, client: mqtt.Client, userdata: object, mid: int, reason: Any,
                    properties: object) -> None:
        with self.lock:
            self.acks[mid] = str(reason)

    def subscribe(self, topic: str) -> None:
        self.subscribed.clear()
        self.topics.append(topic)
        self.client.subscribe(topic, qos=1)
        assert self.subscribed.wait(5), f"could not subscribe to {topic}"

    def publish(self, topic: str, payload: bytes, timeout: float = 5.0) -> str:
        """The PUBACK's reason ("Success", "No matching subscribers", "Not authorized"), or
        "no PUBACK" if none came (the broker closed the connection instead)."""
        info = self.client.publish(topic, payload, qos=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if info.mid in self.acks:
                    return self.acks[info.mid]
            time.sleep(0.01)
        return "no PUBACK"

    def json_on(self, suffix: str) -> list[Any]:
        with self.lock:
            return [json.loads(p) for t, p in self.messages if t.endswith(suffix)]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        return wait_until(predicate, timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
