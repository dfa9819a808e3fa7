"""`mjtable hub` as a process on a real Mosquitto: its retained status, a clean stop on
SIGTERM, bad events refused with a clear answer, and its command line's errors."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from controller.broker import LocalMosquitto
from hub.db import open_db
from tests.faults.mqtt_probe import Probe
from tests.hub.club_rig import MJTABLE
from tests.waiting import wait_until

STATUS = "mahjong/v1/club/hub/h1/status"


def statuses(probe: Probe) -> list[dict[str, Any]]:
    return [json.loads(p) for t, p in list(probe.messages) if t == STATUS]


def test_the_hub_refuses_bad_events_says_why_and_stops_cleanly(
        tmp_path: Path, american_game: list[dict[str, Any]]) -> None:
    db_path = tmp_path / "club.db"
    with LocalMosquitto() as broker:
        hub = subprocess.Popen([MJTABLE, "hub", "--mqtt", f"127.0.0.1:{broker.port}",
                                "--db", str(db_path), "--id", "h1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        watcher = Probe(broker.host, broker.port, "watcher")
        table = Probe(broker.host, broker.port, "table-t1")
        try:
            assert watcher.connect() == "Success" and table.connect() == "Success"
            watcher.subscribe(STATUS)
            assert watcher.wait_for(lambda: any(s.get("state") == "online"
                                                for s in statuses(watcher)))
            for event in american_game[:5]:
                table.publish("mahjong/v1/t1/events", json.dumps(event).encode())
            table.publish("mahjong/v1/t1/events", b"not json")
            table.publish("mahjong/v1/t1/events", b'{"type": "Drew"}')
            table.publish("mahjong/v1/club/events", json.dumps(american_game[0]).encode())
            table.publish("mahjong/v1/t1/events", json.dumps(american_game[9]).encode())

            def last() -> dict[str, Any]:
                found = statuses(watcher)
                return found[-1] if found else {}

            assert watcher.wait_for(lambda: last().get("refused") == 3
                                    and last().get("gaps") != [], 15), last()
            status = last()
            assert status["last_refused"]["where"] == "topic"
            assert "'club' is the hub's own tree" in status["last_refused"]["error"]
            assert status["tables"]["t1"] == {"first_seq": 1, "last_seq": 10, "missing": 4,
                                              "status": "unknown"}
            assert status["gaps"] == [{"table": "t1", "first": 6, "last": 9}]
            # the refused messages changed nothing; the good ones are all there
            assert open_db(str(db_path)).tables()[0].events == 6
            hub.send_signal(signal.SIGTERM)
            assert hub.wait(20) == 0
            assert watcher.wait_for(lambda: last().get("state") == "offline")
            log = hub.stderr.read() if hub.stderr else ""
            assert "not JSON" in log and "payload.seq" in log
        finally:
            if hub.poll() is None:
                hub.kill()
                hub.wait()
            watcher.close()
            table.close()


@pytest.mark.parametrize(("args", "where"), [
    (["hub", "--db", "{tmp}/club.db"], "--mqtt"),
    (["hub", "--db", "{tmp}/club.db", "--mqtt", "nohost"], "--mqtt"),
    (["hub", "--db", "{tmp}/none/club.db", "--mqtt", "127.0.0.1:1"], "--db"),
    (["hub", "--db", "{tmp}/club.db", "--mqtt", "127.0.0.1:1", "--tables", "t1,club"],
     "--tables"),
    (["hub", "standings", "--db", "{tmp}/missing.db"], "--db"),
    (["hub", "standings", "--db", "{tmp}/club.db", "--scheme", "nope"], "--scheme"),
    (["hub", "register", "--db", "{tmp}/club.db", "--name", "Ann"], "--club-id"),
    (["hub", "standings", "--db", "postgresql+psycopg://nobody@/x?host=/nonexistent"], "--db"),
])
def test_bad_command_lines_get_one_clear_answer(tmp_path: Path, args: list[str],
                                                where: str) -> None:
    open_db(str(tmp_path / "club.db")).close()
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run([MJTABLE, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)
    assert answer["where"] == where and answer["error"]


def test_registering_twice_is_answered_clearly(tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")

    def register(club_id: str, name: str) -> tuple[int, dict[str, Any]]:
        done = subprocess.run([MJTABLE, "hub", "register", "--db", db, "--club-id", club_id,
                               "--name", name], capture_output=True, text=True, timeout=60)
        return done.returncode, json.loads(done.stdout)

    assert register("C-7", "Ann Lee") == (0, {"registered": {"id": 1, "club_id": "C-7",
                                                             "name": "Ann Lee"}})
    code, answer = register("C-7", "Bo")
    assert code == 2 and answer == {
        "error": "club id 'C-7' is already registered: Ann Lee (C-7)", "where": "--club-id"}
    code, answer = register("C-8", "ann  lee")
    assert code == 2 and answer["where"] == "--name" and "Ann Lee (C-7)" in answer["error"]


def test_events_the_database_could_not_take_come_again_when_it_is_back(
        tmp_path: Path, american_game: list[dict[str, Any]]) -> None:
    # The club database (a real PostgreSQL) goes away under a running hub: nothing is
    # acknowledged that was not stored, and once it is back every event is there, once.
    from tests.hub.postgres import LocalPostgres

    with LocalPostgres() as pg, LocalMosquitto() as broker:
        hub = subprocess.Popen([MJTABLE, "hub", "--mqtt", f"127.0.0.1:{broker.port}",
                                "--db", pg.url, "--id", "h1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        table = Probe(broker.host, broker.port, "table-t1")
        watcher = Probe(broker.host, broker.port, "watcher")
        db = open_db(pg.url)
        try:
            assert table.connect() == "Success" and watcher.connect() == "Success"
            watcher.subscribe(STATUS)
            assert watcher.wait_for(lambda: bool(statuses(watcher)))
            for event in american_game[:100]:
                table.publish("mahjong/v1/t1/events", json.dumps(event).encode())
            assert wait_until(lambda: db.tables() != [] and db.tables()[0].events == 100, 30)
            db.close()
            pg.stop()
            for event in american_game[100:300]:
                table.publish("mahjong/v1/t1/events", json.dumps(event).encode())
            assert watcher.wait_for(lambda: any(s.get("database_error")
                                                for s in statuses(watcher)), 30)
            pg.start()
            db = open_db(pg.url)
            assert wait_until(lambda: db.tables()[0].events == 300, 60)
            assert db.tables()[0].missing == 0 and db.gaps() == []
            hub.send_signal(signal.SIGTERM)
            assert hub.wait(20) == 0
            log = hub.stderr.read() if hub.stderr else ""
            assert "the club database failed" in log
        finally:
            if hub.poll() is None:
                hub.kill()
                hub.wait()
            db.close()
            table.close()
            watcher.close()
