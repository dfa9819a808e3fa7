"""The club broker exactly as deploy/club ships it (config, accounts, ACL), on a real Mosquitto,
and a table's broker bridged to it over TLS with the login install.sh writes: tables publish
only their own tree, the hub reads everything, writes the club's tree and sends a table only
the club role's commands."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.broker import LocalMosquitto, free_port, mosquitto_path
from tests.faults.mqtt_probe import Probe
from tests.hub.club_rig import bridge_config
from tests.waiting import wait_until

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TABLES = ("t1", "t2")


class ClubBroker:
    def __init__(self, folder: Path) -> None:
        self.dir = folder
        self.certs = folder / "certs"
        subprocess.run([str(DEPLOY / "make-certs.sh"), str(self.certs), "club"], check=True,
                       capture_output=True)
        self.secrets, passwd = folder / "secrets", folder / "passwd"
        subprocess.run([str(DEPLOY / "club" / "club-accounts.sh"), str(self.secrets),
                        str(passwd), *TABLES], check=True, capture_output=True)
        acl = folder / "acl"
        acl.write_text((DEPLOY / "club" / "club.acl").read_text() + "".join(
            (DEPLOY / "club" / "club-table.acl").read_text().replace("TABLE_ID", t)
            for t in TABLES))
        self.port, self.tls_port = free_port(), free_port()
        conf = (DEPLOY / "club" / "club.conf").read_text()
        for old, new in {"/etc/mosquitto/club.passwd": str(passwd),
                         "/etc/mosquitto/club.acl": str(acl),
                         "/etc/mosquitto/club/": f"{self.certs}/",
                         "listener 1883 127.0.0.1": f"listener {self.port} 127.0.0.1",
                         "listener 8883\n": f"listener {self.tls_port} 127.0.0.1\n"}.items():
            assert old in conf, f"the shipped club config no longer has {old!r}"
            conf = conf.replace(old, new)
        conf += (f"persistence true\npersistence_location {folder}/\n"
                 f"log_dest file {folder}/mosquitto.log\nuser root\n")
        (folder / "mosquitto.conf").write_text(conf)
        exe = mosquitto_path()
        assert exe is not None
        self.proc = subprocess.Popen([exe, "-c", str(folder / "mosquitto.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def password(self, user: str) -> str:
        return (self.secrets / f"{user}.password").read_text().strip()

    def probe(self, user: str, client_id: str) -> Probe:
        probe = Probe("127.0.0.1", self.port, client_id, user, self.password(user))
        assert wait_until(lambda: probe.connect(timeout=1) == "Success", 5)
        return probe

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClubBroker]:
    broker = ClubBroker(tmp_path_factory.mktemp("club-broker"))
    yield broker
    broker.stop()


def test_the_hub_and_the_tables_have_only_their_roles(club: ClubBroker) -> None:
    hub, viewer = club.probe("hub", "hub-1"), club.probe("viewer", "viewer-1")
    tables = {t: club.probe(t, f"bridge-{t}") for t in TABLES}
    try:
        hub.subscribe("mahjong/v1/#")
        for table, probe in tables.items():
            probe.subscribe(f"mahjong/v1/{table}/cmd/+")
        event = json.dumps({"seq": 1, "type": "HandStarted"}).encode()
        assert tables["t1"].publish("mahjong/v1/t1/events", event) == "Success"
        assert tables["t1"].publish("mahjong/v1/t2/events", event) == "Not authorized"
        assert tables["t1"].publish("mahjong/v1/club/standings", b"{}") == "Not authorized"
        assert tables["t2"].publish("mahjong/v1/t1/cmd/game", b"{}") == "Not authorized"
        assert viewer.publish("mahjong/v1/t1/cmd/status", b"{}") == "Not authorized"
        assert hub.publish("mahjong/v1/club/standings", b"{}") in (
            "Success", "No matching subscribers")
        game = json.dumps({"action": "start", "players": ["Ann", "Bob", "Cy", "Dee"]}).encode()
        assert hub.publish("mahjong/v1/t1/cmd/game", game) == "Success"
        assert hub.publish("mahjong/v1/t2/cmd/status", b"{}") == "Success"
        # never a move, a correction or a roll: those are the table's referee's
        for verb in ("roll", "correct", "observe", "claim", "confirm"):
            assert hub.publish(f"mahjong/v1/t1/cmd/{verb}", b"{}") == "Not authorized"
        assert hub.publish("mahjong/v1/t1/events", event) == "Not authorized"
        assert hub.wait_for(lambda: ("mahjong/v1/t1/events", event) in hub.messages)
        assert tables["t1"].wait_for(lambda: len(tables["t1"].messages) == 1)
        assert tables["t1"].messages == [("mahjong/v1/t1/cmd/game", game)]
        assert tables["t2"].wait_for(lambda: len(tables["t2"].messages) == 1)
    finally:
        for probe in (hub, viewer, *tables.values()):
            probe.close()


def test_a_table_bridges_its_tree_over_tls_with_its_login(club: ClubBroker) -> None:
    # As deploy/install.sh writes it with CLUB=...: the template, the login, the club's CA.
    bridge = (bridge_config("t2", club.tls_port) + "remote_username t2\n"
              f"remote_password {club.password('t2')}\nbridge_cafile {club.certs}/ca.crt\n")
    bridge = bridge.replace("address 127.0.0.1:", "address localhost:")
    hub = club.probe("hub", "hub-2")
    with LocalMosquitto(extra=bridge) as table:
        local = Probe(table.host, table.port, "t2-service")
        try:
            hub.subscribe("mahjong/v1/t2/#")
            assert local.connect() == "Success"
            local.subscribe("mahjong/v1/t2/cmd/+")
            assert hub.wait_for(lambda: any(t == "mahjong/v1/t2/bridge"
                                            for t, _ in hub.messages), 15), \
                (club.dir / "mosquitto.log").read_text()[-2000:]
            event = json.dumps({"seq": 7, "type": "Drew"}).encode()
            assert local.publish("mahjong/v1/t2/events", event) in (
                "Success", "No matching subscribers")
            assert hub.wait_for(lambda: ("mahjong/v1/t2/events", event) in hub.messages)
            # the club role's command reaches the table through the bridge
            assert hub.publish("mahjong/v1/t2/cmd/status", b"{}") == "Success"
            assert local.wait_for(lambda: ("mahjong/v1/t2/cmd/status", b"{}")
                                  in local.messages)
        finally:
            local.close()
            hub.close()


def test_the_organiser_runs_rounds_through_the_hub_and_commands_no_table(
        club: ClubBroker, tmp_path: Path) -> None:
    from hub.db import ClubDB
    from hub.rounds_mqtt import RoundsService

    db = ClubDB(str(tmp_path / "club.db"))
    desk = RoundsService(db, "127.0.0.1", club.port, username="hub",
                         password=club.password("hub"), client_id="hub-desk")
    desk.start()
    organiser = club.probe("organiser", "organiser-1")
    tables = {t: club.probe(t, f"bridge-{t}-desk") for t in TABLES}
    try:
        assert desk.subscribed.wait(10)
        organiser.subscribe("mahjong/v1/club/cmd/+/result")
        for table, probe in tables.items():
            probe.subscribe(f"mahjong/v1/{table}/cmd/+")
        # the organiser may command no table, only the club's desk
        assert organiser.publish("mahjong/v1/t1/cmd/game", b"{}") == "Not authorized"
        assert organiser.publish("mahjong/v1/club/standings", b"{}") == "Not authorized"
        players = [f"P{i}" for i in range(8)]
        create = json.dumps({"action": "create", "event": "cup", "players": players,
                             "tables": list(TABLES), "rounds": 2}).encode()
        assert organiser.publish("mahjong/v1/club/cmd/event", create) == "Success"
        assert organiser.wait_for(lambda: any(t.endswith("event/result")
                                              for t, _ in organiser.messages), 10)
        start = json.dumps({"action": "start", "event": "cup"}).encode()
        assert organiser.publish("mahjong/v1/club/cmd/round", start) == "Success"
        # the hub's desk (logged in as hub) seats each table through the ACL
        for probe in tables.values():
            assert probe.wait_for(lambda p=probe: len(p.messages) == 1, 10)
            topic, body = probe.messages[0]
            assert topic.endswith("/cmd/game")
            assert json.loads(body)["action"] == "start"
        def answers() -> list[dict[str, object]]:
            return [json.loads(b) for t, b in organiser.messages if t.endswith("/result")]

        assert organiser.wait_for(lambda: len(answers()) == 2, 10)
        assert [a["ok"] for a in answers()] == [True, True]
    finally:
        organiser.close()
        for probe in tables.values():
            probe.close()
        desk.stop()
        db.close()
