"""A club night end to end: a club broker, four tables each playing on its own Mosquitto bridged
to it, and `mjtable hub` keeping the club database. The hub is killed -9 and restarted and
the club network is cut for 30 s, both in the middle of the games: the standings still equal the sum
of the tables' own scoresheets, every event is stored once and none is missing."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from hub.db import ClubDB, open_db
from tests.hub.club_rig import MJTABLE, Club, store_seq
from tests.waiting import wait_until

OUTAGE_S = 30.0
# Four tables: three American games (four hands each, the table's game) and a Code 1924 game
# of which two hands are played (still going on: shown, not counted). The pace spreads the
# games over about a minute so the outage falls in their middle.
TABLES = [
    ("t1", "Ann,Bob,Cy,Dee", ["--ruleset", "american", "--game", "--seed", "11"]),
    ("t2", "Eve,Fay,Gus,Hal", ["--ruleset", "american", "--game", "--seed", "12"]),
    ("t3", "Ida,Jon,Kim,Lou", ["--ruleset", "american", "--game", "--seed", "13"]),
    ("t4", "Max,Ned,Ola,Pia", ["--hands", "2", "--seed", "14"]),
]
PACE = ["--pace", "0.04"]


def hub_seq(db: ClubDB) -> dict[str, int]:
    return {t.table: t.last_seq for t in db.tables()}


def standings_cli(db: Path) -> dict[str, Any]:
    done = subprocess.run([MJTABLE, "hub", "standings", "--db", str(db)], capture_output=True,
                          text=True, check=True, timeout=60)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def republish(port: int, table: str, events: list[dict[str, Any]]) -> None:
    """A table sending old events again (its outbox after a crash) straight to the club."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=MQTTProtocolVersion.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    for event in events:
        client.publish(f"mahjong/v1/{table}/events", json.dumps(event), qos=1).wait_for_publish(5)
    client.disconnect()
    client.loop_stop()


def test_a_club_night_survives_a_network_cut_and_a_killed_hub(tmp_path: Path) -> None:
    club = Club(tmp_path)
    try:
        club.club.start()
        club.start_hub()
        # The hub's session exists before the first table publishes (on the club broker
        # nothing is kept for a subscriber that never was).
        assert wait_until(lambda: _status(club).get("state") == "online", 30)
        tables = [club.add_table(t, names, *args, *PACE) for t, names, args in TABLES]
        with (tmp_path / "tables.log").open("w") as log:
            for table in tables:
                table.play(log)
        db = open_db(str(club.db)) if wait_until(club.db.exists, 30) else None
        assert db is not None, (tmp_path / "hub.log").read_text()
        assert wait_until(lambda: len(hub_seq(db)) == len(tables), 60), hub_seq(db)

        # The hub is killed mid-game; the tables play on and their events wait in the hub's
        # session on the club broker until it is started again.
        club.kill_hub()
        killed_at = {t.id: store_seq(t.store) for t in tables}
        assert wait_until(lambda: all(store_seq(t.store) > killed_at[t.id] + 20
                                      for t in tables), 30)
        club.start_hub()
        assert wait_until(lambda: all(hub_seq(db).get(t, 0) >= n
                                      for t, n in killed_at.items()), 60)

        # The club network goes down mid-game: every table plays on, on its own broker.
        running = [t.id for t in tables if t.proc is not None and t.proc.poll() is None]
        club.club.stop()
        cut_at = {t.id: store_seq(t.store) for t in tables}
        started = time.monotonic()
        assert wait_until(lambda: all(store_seq(t.store) > cut_at[t.id] + 20 for t in tables
                                      if t.id in running), OUTAGE_S), "the tables stopped"
        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - started)))  # the rest of the cut
        behind = {t.id: store_seq(t.store) for t in tables}
        club.club.start()
        # What the bridges queued arrives: the hub catches up past the cut.
        assert wait_until(lambda: all(hub_seq(db).get(t, 0) >= n for t, n in behind.items()),
                          60), (hub_seq(db), behind)

        summaries = {t.id: t.summary(timeout=180) for t in tables}
        last = {t.id: store_seq(t.store) for t in tables}
        assert wait_until(lambda: hub_seq(db) == last, 60), (hub_seq(db), last)
        assert all(s["problems"] == [] and s["violations"] == 0 for s in summaries.values())

        # Nothing lost, nothing twice: every seq of every table stored once.
        assert {t.table: (t.events, t.missing) for t in db.tables()} == {
            t: (n, 0) for t, n in last.items()}
        assert db.gaps() == []
        # Each game is the table's own scoresheet.
        exports = {t.id: t.export() for t in tables}
        for table in tables:
            [game] = exports[table.id]
            [mine] = db.games(table=table.id)
            final = game["final"]
            assert mine.finished == (final is not None)
            assert dict(mine.totals) == (final["settlement"] if final else game["totals"])
            assert [dict(h.net) for h in mine.hands] == [h["net"] for h in game["hands"]]
        assert [g.table for g in db.games(finished=False)] == ["t4"]

        # The standings are the sum of the tables' own final settlements.
        expected: dict[str, int] = {}
        for games in exports.values():
            for game in games:
                for name, points in (game["final"] or {}).get("settlement", {}).items():
                    expected[name] = expected.get(name, 0) + points
        first = standings_cli(club.db)
        assert {p["name"]: p["points"] for p in first["players"]} == expected
        assert all(p["games"] == 1 for p in first["players"])

        # A table resending old events changes nothing.
        with sqlite3.connect(tables[0].store) as store:
            old = [json.loads(b) for (b,) in store.execute(
                "SELECT body FROM events WHERE seq <= 40").fetchall()]
        republish(club.club.port, "t1", old)
        assert wait_until(lambda: _status(club).get("duplicates", 0) >= len(old), 30)
        assert standings_cli(club.db) == first
        assert db.tables()[0].events == last["t1"]
        assert len(running) >= 3, f"the cut came after games had ended: only {running} played"

        # SIGTERM: a clean stop, and the retained status says so.
        assert club.stop_hub() == 0
        assert wait_until(lambda: _status(club).get("state") == "offline", 10)
        db.close()
    finally:
        club.close()


def _status(club: Club) -> dict[str, Any]:
    """The hub's retained status on the club broker."""
    done = subprocess.run(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(club.club.port), "-C", "1", "-W", "3",
         "-t", f"mahjong/v1/club/hub/{club.hub_id}/status"],
        capture_output=True, text=True, timeout=10)
    try:
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {}
    return result
