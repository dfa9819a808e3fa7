"""A publish the broker refuses is not a delivery (docs/reliability.md): against a real
Mosquitto whose ACL refuses one topic, the row stays in the outbox, the link says why, and it
goes out once the ACL is fixed."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from controller.broker import LocalMosquitto
from controller.mqtt import BrokerSettings, MqttLink, Topics
from controller.store import EventStore
from tests.faults.mqtt_probe import Probe

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
