"""The deploy files: the systemd unit lints clean, the udev rule is well formed, the install
script parses, and the broker's ACL holds against a real Mosquitto."""

from __future__ import annotations

import configparser
import json
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.broker import free_port, mosquitto_path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DEPLOY / "mahjong-table.service")
    return parser


def test_unit_is_notify_with_watchdog_dedicated_user_and_hardening() -> None:
    svc = _unit()["Service"]
    assert svc["Type"] == "notify" and int(svc["WatchdogSec"]) > 0
    assert svc["User"] == "mahjong"
    assert set(svc["SupplementaryGroups"].split()) == {"gpio", "dialout", "video"}
    for key in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp"):
        assert key in svc
    assert "mjtable run --config" in svc["ExecStart"]


def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.skip("systemd-analyze not installed")
    # The real ExecStart lives on the Pi; point it at an existing binary, keep the rest as is.
    text = (DEPLOY / "mahjong-table.service").read_text()
    text = re.sub(r"^ExecStart=\S+", "ExecStart=/bin/true", text, flags=re.M)
    unit = tmp_path / "mahjong-table.service"
    unit.write_text(text)
    done = subprocess.run(
        [exe, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60
    )
    # systemd-analyze exits 0 on a bad value and only prints "ignoring": fail on any output
    # that names our unit (other units of the host are not ours to judge).
    complaints = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if "mahjong-table.service" in line and "not executable" not in line
    ]
    assert complaints == [] and done.returncode == 0, done.stdout + done.stderr


def test_udev_rule_gives_the_stable_name() -> None:
    lines = [
        line
        for line in (DEPLOY / "99-mahjong-mcu.rules").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(lines) == 1
    rule = lines[0]
    assert 'SUBSYSTEM=="tty"' in rule and 'SYMLINK+="mahjong-mcu"' in rule
    assert "NAME=" not in rule  # renaming a tty breaks it; a symlink does not
    for part in rule.split(", "):
        assert re.fullmatch(r'[A-Z_]+(\{\w+\})?(==|\+=|=)"[^"]*"', part), part


def test_install_script_parses_and_refuses_a_bad_table_id() -> None:
    script = DEPLOY / "install.sh"
    assert subprocess.run(["bash", "-n", str(script)], timeout=10).returncode == 0
    done = subprocess.run(
        ["bash", str(script), "bad/id"], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 64 and "TABLE_ID" in done.stderr


def _client(broker: Broker, user: str, password: str, cid: str) -> mqtt.Client:
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2, client_id=cid, protocol=MQTTProtocolVersion.MQTTv5
    )
    client.username_pw_set(user, password)
    connected = threading.Event()
    client.on_connect = lambda c, u, f, rc, p: connected.set() if not rc.is_failure else None
    client.connect(broker.host, broker.port)
    client.loop_start()
    assert connected.wait(5), f"{user} could not connect"
    return client


@dataclass
class Broker:
    host: str
    port: int


@pytest.fixture
def secured_broker(tmp_path: Path) -> Iterator[Broker]:
    """Mosquitto as the Pi runs it: Debian's main mosquitto.conf (persistence on, include_dir)
    with the deployed conf.d file, password file and ACL in it, only paths and port changed."""
    exe = mosquitto_path()
    assert exe is not None, "mosquitto is not installed (./dev installs it)"
    passwd = tmp_path / "passwd"
    passwd.touch()
    for user, secret in (("table-07", "t"), ("referee", "r"), ("viewer", "v")):
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, secret], check=True)
    acl = tmp_path / "acl"
    acl.write_text(
        (DEPLOY / "mosquitto" / "mahjong-table.acl").read_text().replace("TABLE_ID", "table-07")
    )
    port = free_port()
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    (conf_d / "mahjong-table.conf").write_text(
        (DEPLOY / "mosquitto" / "mahjong-table.conf")
        .read_text()
        .replace("listener 1883", f"listener {port} 127.0.0.1")
        .replace("/etc/mosquitto/mahjong-table.passwd", str(passwd))
        .replace("/etc/mosquitto/mahjong-table.acl", str(acl))
    )
    (tmp_path / "data").mkdir()
    main = tmp_path / "mosquitto.conf"
    main.write_text(  # Debian's /etc/mosquitto/mosquitto.conf, with our paths
        f"persistence true\npersistence_location {tmp_path / 'data'}/\n"
        f"log_dest file {tmp_path / 'mosquitto.log'}\ninclude_dir {conf_d}\n"
        "user root\n"  # as root the broker would drop to `mosquitto`, who cannot write here
    )
    proc = subprocess.Popen([exe, "-c", str(main)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 5
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "mosquitto did not listen"
                time.sleep(0.02)
        yield Broker("127.0.0.1", port)
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_acl_only_the_table_writes_and_only_the_referee_commands(
    secured_broker: Broker,
) -> None:
    seen: list[tuple[str, bytes]] = []
    lock = threading.Lock()
    viewer = _client(secured_broker, "viewer", "v", "viewer")
    subscribed = threading.Event()
    viewer.on_subscribe = lambda *a: subscribed.set()

    def on_message(c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
        with lock:
            seen.append((msg.topic, bytes(msg.payload)))

    viewer.on_message = on_message
    viewer.subscribe("mahjong/v1/#", qos=1)
    assert subscribed.wait(5)

    table = _client(secured_broker, "table-07", "t", "table-07")
    referee = _client(secured_broker, "referee", "r", "referee")
    attempts = [
        (table, "mahjong/v1/table-07/events", b"table-events"),  # allowed
        (table, "mahjong/v1/table-08/events", b"other-table"),  # not its table
        (table, "mahjong/v1/table-07/cmd/correct", b"table-cmd"),  # tables do not command
        (viewer, "mahjong/v1/table-07/events", b"viewer-forged"),  # read only
        (viewer, "mahjong/v1/table-07/cmd/correct", b"viewer-cmd"),
        (referee, "mahjong/v1/table-07/cmd/correct", b"referee-cmd"),  # allowed
        (referee, "mahjong/v1/table-07/state", b"referee-forged"),
        (table, "mahjong/v1/table-07/cmd/correct/result", b"result"),  # allowed
    ]
    for client, topic, payload in attempts:
        client.publish(topic, payload, qos=1).wait_for_publish(5)
    time.sleep(0.5)
    with lock:
        got = sorted(p.decode() for _, p in seen)
    assert got == ["referee-cmd", "result", "table-events"]
    for client in (viewer, table, referee):
        client.disconnect()
        client.loop_stop()


def test_anonymous_and_wrong_password_are_refused(secured_broker: Broker) -> None:
    for user, password in ((None, None), ("viewer", "wrong")):
        client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=MQTTProtocolVersion.MQTTv5)
        if user:
            client.username_pw_set(user, password)
        result: list[str] = []
        done = threading.Event()

        def on_connect(
            c: mqtt.Client,
            u: object,
            f: object,
            rc: object,
            p: object,
            result: list[str] = result,
            done: threading.Event = done,
        ) -> None:
            result.append(str(rc))
            done.set()

        client.on_connect = on_connect
        client.connect(secured_broker.host, secured_broker.port)
        client.loop_start()
        assert done.wait(5)
        client.loop_stop()
        assert result[0] in ("Not authorized", "Bad user name or password"), json.dumps(result)
