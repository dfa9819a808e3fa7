"""A publish the broker refuses is not a delivery (docs/reliability.md): against a real
Mosquitto whose ACL refuses one topic, the row stays in the outbox, the link says why, and it
goes out once the ACL is fixed."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.broker import LocalMosquitto
from controller.mqtt import BrokerSettings, MqttLink, Topics
from controller.store import EventStore
from tests.faults.mqtt_probe import Probe
from tests.waiting import wait_until

ACL = """user table-t
topic write mahjong/v1/t/#
{extra}
user viewer
topic read mahjong/v1/#
"""


def _broker(tmp_path: Path, extra_acl: str = "") -> LocalMosquitto:
    passwd = tmp_path / "passwd"
    passwd.write_text("table-t:secret-t\nviewer:secret-v\n")
    subprocess.run(["mosquitto_passwd", "-U", str(passwd)], check=True)
    acl = tmp_path / "acl"
    acl.write_text(ACL.format(extra=extra_acl))
    return LocalMosquitto(
        workdir=tmp_path / "mosq",
        extra=f"allow_anonymous false\npassword_file {passwd}\nacl_file {acl}\n",
    )


def test_a_refused_publish_stays_in_the_outbox_until_the_broker_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(MqttLink, "REFUSED_RETRY_S", 0.5, raising=False)
    broker = _broker(tmp_path)
    acl = tmp_path / "acl"
    acl.write_text(ACL.format(extra="").replace("topic write mahjong/v1/t/#",
                                                "topic write mahjong/v1/t/events"))
    with broker:
        topics = Topics("t")
        store = EventStore(tmp_path / "t.sqlite3")
        event = {"seq": 1, "hand": 1, "type": "discard", "tile": "5C"}
        store.append([event], [(topics.events, json.dumps(event).encode(), 1)])
        store.append([], [(topics.cmd_result("roll"), b'{"ok": true}', None)])
        rec = Probe(broker.host, broker.port, "viewer", "viewer", "secret-v")
        assert rec.connect() == "Success"
        rec.subscribe("mahjong/v1/t/#")
        link = MqttLink(BrokerSettings(broker.host, broker.port, "table-t", "secret-t"),
                        topics, store, "table-t")
        link.start()
        try:
            deadline = time.monotonic() + 10
            while link.refused == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert link.refused >= 1
            assert "broker refused" in link.last_error and "authorized" in link.last_error
            assert store.outbox_size() == 1  # the event went; the refused result did not
            assert not link.wait_idle(1.0)
            # The operator fixes the ACL and reloads the broker: the result goes out.
            acl.write_text(ACL.format(extra=""))
            assert broker.proc is not None
            broker.proc.send_signal(signal.SIGHUP)
            assert link.wait_idle(15), link.last_error
            assert rec.wait_for(lambda: rec.json_on("/cmd/roll/result") == [{"ok": True}])
            assert link.last_error == ""
        finally:
            link.stop()
            rec.close()


def _wait(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    return wait_until(predicate, timeout)


def test_a_message_over_the_brokers_limit_is_never_sent(tmp_path: Path) -> None:
    """Mosquitto closes the connection on a packet over max_packet_size, and paho would send
    it again on every reconnect: the table must not, and must say so."""
    with LocalMosquitto(workdir=tmp_path / "mosq", extra="max_packet_size 4096\n") as broker:
        topics = Topics("t")
        store = EventStore(tmp_path / "t.sqlite3")
        first = {"seq": 1, "hand": 1, "type": "discard", "tile": "5C"}
        store.append([first], [(topics.events, json.dumps(first).encode(), 1)],
                     retained={topics.scores: json.dumps({"hands": ["x" * 9000]}).encode(),
                               topics.state: b'{"seq": 1}'})
        rec = Probe(broker.host, broker.port, "club")
        assert rec.connect() == "Success"
        rec.subscribe("mahjong/v1/t/#")
        link = MqttLink(BrokerSettings(broker.host, broker.port), topics, store, "table-t")
        link.start()
        try:
            assert rec.wait_for(lambda: rec.json_on("/events") == [first])
            assert rec.wait_for(lambda: rec.json_on("/state") == [{"seq": 1}])
            assert "mahjong/v1/t/scores of 9015 bytes is over the broker's limit" in (
                link.last_error)
            # An outbox row too big stays, and the stream behind it waits for it.
            store.append([], [(topics.cmd_result("status"), b"y" * 5000, None)])
            second = {"seq": 2, "hand": 1, "type": "discard", "tile": "6C"}
            store.append([second], [(topics.events, json.dumps(second).encode(), 2)])
            link.kick()
            assert _wait(lambda: "cmd/status/result of 5000 bytes" in link.last_error)
            time.sleep(1.0)
            assert store.outbox_size() == 2 and link.connected
            assert rec.json_on("/events") == [first] and not rec.json_on("/scores")
        finally:
            link.stop()
            rec.close()
