"""A false Mah-jongg's question over MQTT, as a club's software or a referee's tablet meets it
(a real Mosquitto): the question on `prompts` with the scorer's explanation, nothing in the
retained `scores` until `cmd/confirm` is answered on `cmd/confirm/result`, then the penalty."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import run_service
from test_console_browser import BMJA, two_chows_by_south

from controller.broker import BrokerUnavailable, LocalMosquitto
from tests.waiting import wait_until


class Club:
    """Subscribed to the table's whole tree; sends commands as a referee's tablet does."""

    def __init__(self, port: int, table: str) -> None:
        self.base = f"mahjong/v1/{table}/"
        self.got: list[tuple[str, Any]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="club",
                                  protocol=MQTTProtocolVersion.MQTTv5)
        subscribed = threading.Event()
        self.client.on_connect = lambda c, *a: c.subscribe(self.base + "#", 1)
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_message = self._take
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert subscribed.wait(5)

    def _take(self, c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.got.append((msg.topic[len(self.base):], json.loads(msg.payload)))

    def on(self, topic: str) -> list[Any]:
        with self.lock:
            return [body for t, body in self.got if t == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def questions_open(club: Club) -> list[int] | None:
    """The questions awaiting the referee in the last ``scores`` the club got, if a game
    was going on then."""
    scores = club.on("scores")
    game = scores[-1]["game"] if scores else None
    return None if game is None else list(game["questions"])


@pytest.fixture
def broker() -> Any:
    try:
        mosq = LocalMosquitto(persistence=False)
    except BrokerUnavailable as exc:
        pytest.fail(str(exc))
    mosq.start()
    yield mosq
    mosq.stop()


def test_the_penalty_is_asked_and_answered_over_mqtt(tmp_path: Path, broker: Any) -> None:
    extra = {**BMJA, "mqtt": {"enabled": True, "host": broker.host, "port": broker.port}}
    club = Club(broker.port, "face")
    try:
        with contextlib.contextmanager(run_service)(tmp_path, extra) as running:
            two_chows_by_south(running)
            assert wait_until(lambda: club.on("prompts"), 10), "no question on prompts"
            (question,) = club.on("prompts")
            assert question["type"] == "PenaltyHeld" and question["kind"] == "false_mahjong"
            assert question["player"] == "Bob" and question["reason"].startswith("2 chows")
            assert question["rule"] and question["closest"] and question["lacks"]
            penalty = question["penalty"]
            # `scores` is a latest-value topic: a version from before the game began may
            # still be the last one here when the question arrives on `prompts`
            assert wait_until(lambda: questions_open(club) == [1], 10)
            assert set(club.on("scores")[-1]["totals"].values()) == {0}
            club.client.publish(club.base + "cmd/confirm", json.dumps({"pending": 1}), qos=1)
            assert wait_until(lambda: club.on("cmd/confirm/result"), 10)
            (answer,) = club.on("cmd/confirm/result")
            assert answer["ok"] and answer["how"] == "confirmed"
            assert wait_until(lambda: club.on("scores")[-1]["totals"] == penalty, 10)
            settled = [e for e in club.on("events") if e["type"] == "PenaltySettled"]
            assert settled and settled[0]["net_by_player"] == penalty
            # answered twice (a second tablet): refused, the totals unchanged
            club.client.publish(club.base + "cmd/dismiss", json.dumps({"pending": 1}), qos=1)
            assert wait_until(lambda: club.on("cmd/dismiss/result"), 10)
            assert club.on("cmd/dismiss/result")[0]["ok"] is False
            assert running.service.table.totals == penalty
    finally:
        club.close()
