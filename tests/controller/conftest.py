"""Real parts for the service tests: a private Mosquitto on a free port, an MQTT recorder, and
`mjtable run` in a process of its own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.broker import BrokerUnavailable, LocalMosquitto
from tests.waiting import wait_until


async def until(predicate: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
    """Poll ``predicate`` on the running loop; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what or predicate}"
        await asyncio.sleep(0.01)


@pytest.fixture
def broker() -> Iterator[LocalMosquitto]:
    try:
        mosq = LocalMosquitto(persistence=True)
    except BrokerUnavailable as exc:  # ./dev installs it; a skip here would hide MQTT tests
        pytest.fail(str(exc))
    mosq.start()
    yield mosq
    mosq.close()


class Recorder:
    """A club-side consumer: a persistent session (clean_start=False, session expiry), so the
    broker keeps its messages while it or the broker is away, as a real scorer would."""

    def __init__(self, host: str, port: int, topic: str, client_id: str = "recorder") -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.topic = topic
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=MQTTProtocolVersion.MQTTv5
        )
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 3600
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        self.client.connect(host, port, keepalive=10, clean_start=False, properties=props)
        self.client.loop_start()
        assert self.subscribed.wait(5), "recorder could not subscribe"

    def _on_connect(self, client: mqtt.Client, *args: Any) -> None:
        client.subscribe(self.topic, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

    def json_on(self, suffix: str) -> list[dict[str, Any]]:
        with self.lock:
            return [json.loads(p) for t, p, _ in self.messages if t.endswith(suffix)]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        return wait_until(predicate, timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def recorder_factory() -> Iterator[Callable[..., Recorder]]:
    made: list[Recorder] = []

    def make(host: str, port: int, topic: str, client_id: str = "recorder") -> Recorder:
        rec = Recorder(host, port, topic, client_id)
        made.append(rec)
        return rec

    yield make
    for rec in made:
        rec.close()


class ServiceProcess:
    """`mjtable run` in its own process, as systemd runs it, to be killed with SIGKILL.

    ``start()`` returns once the service has written its status file (with
    ``wait_for_board``: once it also reports its board link up)."""

    def __init__(self, config: Path, store: Path, wait_for_board: bool = False) -> None:
        self.config, self.status = config, Path(f"{store}.status.json")
        self.wait_for_board = wait_for_board
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
             "run", "--config", str(self.config), "--log-level", "WARNING"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError, KeyError):
                live = json.loads(self.status.read_text())
                if live["pid"] == self.proc.pid and (
                    not self.wait_for_board or live["board"]["state"] == "up"
                ):
                    return
            assert self.proc.poll() is None, "the service exited"
            time.sleep(0.02)
        raise AssertionError("the service did not come up"
                             + (" with its board" if self.wait_for_board else ""))

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


@pytest.fixture
def service_process() -> type[ServiceProcess]:
    """The class, for tests that start and kill `mjtable run` (conftest is not importable
    under pytest's importlib mode)."""
    return ServiceProcess
