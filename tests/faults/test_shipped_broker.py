"""The broker configuration deploy/ ships, against a real Mosquitto (docs/security.md,
docs/reliability.md): TLS on the LAN with the table's own CA, plain MQTT on loopback only, no
anonymous client, each referee confined to its own table, no oversized message, and what the
broker acknowledged kept across kill -9."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.mqtt_probe import Probe
from tests.faults.shipped_broker import ShippedBroker


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShippedBroker]:
    broker = ShippedBroker(tmp_path_factory.mktemp("shipped-broker"))
    broker.start()
    yield broker
    broker.stop()


def _probe(b: ShippedBroker, client_id: str, user: str = "", tls: bool = True,
           host: str | None = None, persistent: bool = False) -> Probe:
    return Probe(host or b.lan or "127.0.0.1", b.tls_port if tls else b.plain_port, client_id,
                 user, b.password(user) if user else "", b.ca if tls else None, persistent)


def test_tls_with_the_tables_ca_is_accepted_on_the_lan(shipped: ShippedBroker) -> None:
    probe = _probe(shipped, "viewer-1", "viewer")
    try:
        assert probe.connect() == "Success"
    finally:
        probe.close()


def test_plain_mqtt_is_refused_on_the_lan_and_taken_on_loopback(shipped: ShippedBroker) -> None:
    if shipped.lan is None:
        pytest.skip("this machine has no network address besides loopback")
    lan_plain = Probe(shipped.lan, shipped.plain_port, "p1", "viewer", shipped.password("viewer"))
    assert lan_plain.connect().startswith("no connection: ConnectionRefusedError")
    # The TLS port does not speak plain MQTT either.
    tls_port_plain = Probe(shipped.lan, shipped.tls_port, "p2", "viewer",
                           shipped.password("viewer"))
    assert tls_port_plain.connect(timeout=3).startswith("no connection")
    tls_port_plain.close()
    local = _probe(shipped, "p3", "viewer", tls=False, host="127.0.0.1")
    try:
        assert local.connect() == "Success"
    finally:
        local.close()


def test_a_certificate_from_another_ca_is_not_trusted(
    shipped: ShippedBroker, tmp_path: Path
) -> None:
    other = ShippedBroker(tmp_path / "other", tables=("t9",))
    probe = Probe(shipped.lan or "127.0.0.1", shipped.tls_port, "p4", "viewer",
                  shipped.password("viewer"), other.ca)
    assert "CERTIFICATE_VERIFY_FAILED" in probe.connect()


@pytest.mark.parametrize(("user", "password"), [("", ""), ("viewer", "not-the-password"),
                                                ("referee-t1", "")])
def test_a_client_without_its_password_is_refused(
    shipped: ShippedBroker, user: str, password: str
) -> None:
    probe = Probe(shipped.lan or "127.0.0.1", shipped.tls_port, "p5", user, password, shipped.ca)
    try:
        assert probe.connect() in ("Not authorized", "Bad user name or password")
    finally:
        probe.close()


def test_a_referee_commands_its_own_table_only(shipped: ShippedBroker) -> None:
    tables = {t: _probe(shipped, f"table-{t}", t) for t in ("t1", "t2")}
    referee = _probe(shipped, "ref-1", "referee-t1")
    organiser = _probe(shipped, "org", "organiser")
    viewer = _probe(shipped, "viewer-2", "viewer")
    try:
        for probe in (*tables.values(), referee, organiser, viewer):
            assert probe.connect() == "Success"
        for table, probe in tables.items():
            probe.subscribe(f"mahjong/v1/{table}/cmd/+")
        roll = json.dumps({"seat": "E"}).encode()
        assert referee.publish("mahjong/v1/t1/cmd/roll", roll) == "Success"
        assert referee.publish("mahjong/v1/t2/cmd/roll", roll) == "Not authorized"
        assert viewer.publish("mahjong/v1/t1/cmd/roll", roll) == "Not authorized"
        # A table cannot command itself or another (its account writes only its own tree).
        assert tables["t2"].publish("mahjong/v1/t1/cmd/roll", roll) == "Not authorized"
        assert referee.publish("mahjong/v1/t1/events", b"{}") == "Not authorized"
        assert referee.publish("mahjong/v1/t1/state", b"{}") == "Not authorized"
        assert viewer.publish("mahjong/v1/t1/events", b"{}") == "Not authorized"
        assert tables["t1"].publish("mahjong/v1/t2/events", b"{}") == "Not authorized"
        assert tables["t1"].publish("mahjong/v1/t1/cmd/roll/result", b"{}") in (
            "Success", "No matching subscribers")
        assert organiser.publish("mahjong/v1/t2/cmd/roll", roll) == "Success"
        assert tables["t1"].wait_for(lambda: len(tables["t1"].messages) == 1)
        assert tables["t2"].wait_for(lambda: len(tables["t2"].messages) == 1)
        assert tables["t1"].json_on("/cmd/roll") == tables["t2"].json_on("/cmd/roll") == [
            {"seat": "E"}]
    finally:
        for probe in (*tables.values(), referee, organiser, viewer):
            probe.close()


def test_an_oversized_command_never_reaches_the_table(shipped: ShippedBroker) -> None:
    table = _probe(shipped, "table-t1-size", "t1")
    referee = _probe(shipped, "ref-size", "referee-t1")
    try:
        assert table.connect() == "Success" and referee.connect() == "Success"
        table.subscribe("mahjong/v1/t1/cmd/+")
        # Over the 1 MiB limit, and 50 MB: the broker closes the connection (before it
        # buffers the packet); neither is acknowledged.
        for size in (1_050_000, 50_000_000):
            sender = _probe(shipped, f"ref-big-{size}", "referee-t1")
            assert sender.connect() == "Success"
            assert sender.publish("mahjong/v1/t1/cmd/correct", b"x" * size, 5) == "no PUBACK"
            sender.close()
        assert referee.publish("mahjong/v1/t1/cmd/roll", b"{}") == "Success"
        assert table.wait_for(lambda: len(table.messages) == 1)
        assert table.messages == [("mahjong/v1/t1/cmd/roll", b"{}")]
        assert shipped.rss_kib() < 40_000, "the broker buffered the 50 MB command"
    finally:
        table.close()
        referee.close()


def test_a_persistent_subscriber_keeps_what_the_broker_acknowledged_across_kill_9(
    tmp_path: Path,
) -> None:
    broker = ShippedBroker(tmp_path, tables=("t1",))
    broker.start()
    try:
        club = _probe(broker, "club-scorer", "viewer", persistent=True)
        assert club.connect() == "Success"
        club.subscribe("mahjong/v1/t1/events")
        club.close()  # the club's scorer goes away; its session stays
        table = _probe(broker, "table-t1", "t1", tls=False, host="127.0.0.1")
        assert table.connect() == "Success"
        for seq in range(1, 301):
            reason = table.publish("mahjong/v1/t1/events", json.dumps({"seq": seq}).encode())
            assert reason == "Success", reason  # acknowledged: the table forgets it now
        table.client.loop_stop()
        broker.kill9()
        broker.start()
        club = _probe(broker, "club-scorer", "viewer", persistent=True)
        assert club.connect() == "Success"
        assert club.wait_for(lambda: len(club.messages) >= 300, timeout=15)
        assert [m["seq"] for m in club.json_on("/events")] == list(range(1, 301))
        club.close()
    finally:
        broker.stop()


def test_accounts_are_made_without_a_password_in_sight(shipped: ShippedBroker) -> None:
    secrets = [shipped.password(u) for u in ("t1", "t2", "referee-t1", "viewer", "organiser")]
    assert all(len(s) >= 20 for s in secrets) and len(set(secrets)) == len(secrets)
    for secret in secrets:
        assert secret not in shipped.account_output
        assert secret not in shipped.passwd.read_text()  # only hashes
    assert all((shipped.secrets / f"{u}.password").stat().st_mode & 0o077 == 0
               for u in ("t1", "referee-t1"))
    assert (shipped.certs / "ca.key").stat().st_mode & 0o077 == 0
    install = (Path(__file__).resolve().parents[2] / "deploy" / "install.sh").read_text()
    # No secret as an argument (visible to every user in `ps`) nor echoed to the terminal.
    assert "mosquitto_passwd -b" not in install and "password $" not in install
