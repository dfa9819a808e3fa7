"""Club nights and tournaments over a real Mosquitto: the organiser creates an event, starts
rounds through the hub, every command gets one answer, bad input is named, standings and
seatings are published retained."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.broker import LocalMosquitto
from hub.db import ClubDB
from hub.ingest import Folder
from hub.rounds_mqtt import RoundsService
from tests.controller.conftest import Recorder
from tests.waiting import wait_until

PLAYERS = [f"Player {c}" for c in "ABCDEFGH"]


class Clock:
    def __init__(self) -> None:
        self.t = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t


@pytest.fixture
def club(tmp_path: Path) -> Iterator[tuple[LocalMosquitto, ClubDB, RoundsService, Clock]]:
    mosq = LocalMosquitto(persistence=False)
    mosq.start()
    db = ClubDB(str(tmp_path / "club.db"))
    clock = Clock()
    service = RoundsService(db, mosq.host, mosq.port, clock=clock, tick=0.1)
    service.start()
    assert service.subscribed.wait(10)
    yield mosq, db, service, clock
    service.stop()
    db.close()
    mosq.close()


class Organiser:
    """The organiser's console: sends a command, waits for its one answer."""

    def __init__(self, rec: Recorder, host: str, port: int) -> None:
        self.rec = rec
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="organiser",
                                  protocol=MQTTProtocolVersion.MQTTv5)
        self.client.connect(host, port)
        self.client.loop_start()

    def send(self, verb: str, payload: Any) -> dict[str, Any]:
        before = len(self.rec.json_on(f"club/cmd/{verb}/result"))
        raw = payload if isinstance(payload, bytes) else json.dumps(payload)
        self.client.publish(f"mahjong/v1/club/cmd/{verb}", raw, qos=1)
        assert wait_until(lambda: len(self.rec.json_on(f"club/cmd/{verb}/result")) > before, 10)
        answers = self.rec.json_on(f"club/cmd/{verb}/result")
        assert len(answers) == before + 1  # exactly one answer
        return answers[-1]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def play_game(folder: Folder, table: str, players: list[str], totals: list[int],
              seq: int) -> int:
    """Fold a finished game's events as the table publishes them."""
    folder.ingest(table, {"seq": seq, "type": "GameStarted", "game": 1, "ruleset":
                          "code1924/mixed", "players": players})
    seats = dict(zip("ESWN", players, strict=True))
    net = dict(zip("ESWN", totals, strict=True))
    winner = "E" if totals[0] > 0 else None
    folder.ingest(table, {"seq": seq + 1, "type": "HandScored", "hand": 1, "players": seats,
                          "net": net, "winner": winner,
                          "result": "mahjong" if winner else "draw"})
    folder.ingest(table, {"seq": seq + 2, "type": "GameEnded", "game": 1, "reason": "round"})
    return seq + 3


def test_an_evening_run_through_the_hub(club: tuple[LocalMosquitto, ClubDB, RoundsService,
                                                    Clock]) -> None:
    mosq, db, _service, clock = club
    rec = Recorder(mosq.host, mosq.port, "mahjong/v1/#", client_id="watcher")
    org = Organiser(rec, mosq.host, mosq.port)
    try:
        created = org.send("event", {"action": "create", "event": "friday", "players": PLAYERS,
                                     "tables": ["t1", "t2"], "rounds": 3,
                                     "scheme": "placement", "round_minutes": 60})
        assert created["ok"] and created["rounds"] == 3 and len(created["seating"]) == 3
        assert wait_until(lambda: rec.json_on("club/events/friday/seating"), 5)
        seating = rec.json_on("club/events/friday/seating")[-1]
        assert seating["next"] == 1

        started = org.send("round", {"event": "friday", "action": "start"})
        assert started["ok"] and started["round"] == 1
        first = seating["rounds"][0]["tables"]
        # each table is told its players in seat order E, S, W, N
        assert wait_until(lambda: len(rec.json_on("/cmd/game")) == 2, 5)
        sent = {t["table_id"]: [t["seats"][w] for w in ("East", "South", "West", "North")]
                for t in first}
        for table, players in sent.items():
            assert {"action": "start", "players": players} in rec.json_on(f"{table}/cmd/game")
        assert started["clock"]["ends"] == "2026-12-06T20:00:00+00:00"
        # each table's answer to its command is published for the organiser
        org.client.publish("mahjong/v1/t1/cmd/game/result", json.dumps(
            {"ok": True, "game": 1}), qos=1)
        org.client.publish("mahjong/v1/t2/cmd/game/result", json.dumps(
            {"ok": False, "error": "a game with booked hands goes on", "where": "payload"}),
            qos=1)

        def answered() -> dict[str, Any] | None:
            seen = rec.json_on("club/events/friday/tables")
            return seen[-1] if seen and None not in seen[-1]["tables"].values() else None

        assert wait_until(lambda: answered() is not None, 5)
        assert answered() == {"event": "friday", "round": 1, "tables": {
            "t1": {"ok": True, "game": 1},
            "t2": {"ok": False, "error": "a game with booked hands goes on",
                   "where": "payload"}}}

        # a second start while the round runs is refused, once, by name
        again = org.send("round", {"event": "friday", "action": "start"})
        assert again == {"ok": False, "error": "round 1 is still running: end it first",
                         "where": "round"}

        # the tables play; the standings follow without being asked
        folder = Folder(db)
        seq = 1
        seq = play_game(folder, "t1", sent["t1"], [30, -10, -10, -10], seq)
        play_game(folder, "t2", sent["t2"], [-10, 30, -10, -10], 1)

        def placed() -> bool:
            s = rec.json_on("club/events/friday/standings")
            return bool(s) and len(s[-1]["players"]) == 8

        assert wait_until(placed, 10)
        standings = rec.json_on("club/events/friday/standings")[-1]
        assert standings["scheme"] == "placement"
        top = {p["name"] for p in standings["players"][:2]}
        assert top == {sent["t1"][0], sent["t2"][1]}
        assert standings["players"][0]["points"] == 4

        # the round clock runs out: published as time
        clock.t += timedelta(minutes=61)
        assert wait_until(lambda: any(c["state"] == "time" for c in
                                      rec.json_on("club/events/friday/clock")), 5)
        bad = org.send("round", {"event": "friday", "action": "end", "end_games": "yes"})
        assert bad == {"ok": False, "error": "true or false", "where": "end_games"}
        ended = org.send("round", {"event": "friday", "action": "end", "end_games": True})
        assert ended["ok"] and ended["clock"]["state"] == "ended"
        assert sorted(ended["games_ended"]) == ["t1", "t2"]
        for table in ("t1", "t2"):  # at time, each table is told to end its game
            assert wait_until(lambda t=table: {"action": "end", "reason": "round 1 time"}
                              in rec.json_on(f"{t}/cmd/game"), 5)
        second = org.send("round", {"event": "friday", "action": "start"})
        assert second["ok"] and second["round"] == 2
    finally:
        org.close()
        rec.close()


@pytest.mark.parametrize(("verb", "payload", "answer"), [
    ("event", b"{not json", {"error": "not JSON", "where": "payload"}),
    ("event", [1, 2], {"error": "a JSON object", "where": "payload"}),
    ("seat", {}, {"error": "unknown verb 'seat': one of event, round, standings",
                  "where": "verb"}),
    ("event", {"action": "create", "event": "x", "players": PLAYERS[:7], "tables": ["t1", "t2"]},
     {"error": "7 players cannot fill tables of four; options: byes (3 sit out each round); "
               "tables of three where the ruleset allows (1 of three and 1 of four)",
      "where": "players"}),
    ("event", {"action": "create", "event": "x", "players": PLAYERS, "tables": ["t1"]},
     {"error": "8 players need 2 tables; 1 given", "where": "tables"}),
    ("event", {"action": "create", "event": "a/b", "players": PLAYERS, "tables": ["t1", "t2"]},
     {"error": "letters, digits, - and _ only (it is part of a topic)", "where": "event"}),
    ("event", {"action": "create", "event": "x", "players": PLAYERS, "tables": ["t1", "t2"],
               "rounds": 0}, {"error": "a whole number from 1 to 30", "where": "rounds"}),
    ("round", {"event": "nope", "action": "start"}, {"error": "no event 'nope'",
                                                     "where": "event"}),
    ("standings", {}, {"error": "an event id", "where": "event"}),
])
def test_bad_commands_get_one_named_answer(club: tuple[LocalMosquitto, ClubDB, RoundsService,
                                                       Clock],
                                           verb: str, payload: Any,
                                           answer: dict[str, Any]) -> None:
    mosq, _db, service, _ = club
    rec = Recorder(mosq.host, mosq.port, "mahjong/v1/club/#", client_id="watcher")
    org = Organiser(rec, mosq.host, mosq.port)
    try:
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        assert org.send(verb, raw) == {"ok": False, **answer}
        assert service.desk.events() == []  # nothing half-made
    finally:
        org.close()
        rec.close()


def test_events_survive_a_hub_restart(club: tuple[LocalMosquitto, ClubDB, RoundsService,
                                                  Clock], tmp_path: Path) -> None:
    mosq, db, service, clock = club
    rec = Recorder(mosq.host, mosq.port, "mahjong/v1/club/#", client_id="watcher")
    org = Organiser(rec, mosq.host, mosq.port)
    try:
        org.send("event", {"action": "create", "event": "cup", "players": PLAYERS,
                           "tables": ["t1", "t2"], "rounds": 2, "kind": "tournament"})
        org.send("round", {"event": "cup", "action": "start"})
        service.stop()
        restarted = RoundsService(db, mosq.host, mosq.port, clock=clock, tick=0.1)
        restarted.start()
        assert restarted.subscribed.wait(10)
        try:
            shown = org.send("event", {"event": "cup", "action": "show"})
            assert shown["started"] == 1 and shown["kind"] == "tournament"
            late = org.send("event", {"event": "cup", "action": "players",
                                      "players": PLAYERS[:7] + ["Player Z"]})
            assert late["ok"]
            assert late["seating"][0] == shown["seating"][0]  # the round played stays
            assert "Player Z" in json.dumps(late["seating"][1])
        finally:
            restarted.stop()
    finally:
        org.close()
        rec.close()


def test_two_hubs_answer_each_command_once(club: tuple[LocalMosquitto, ClubDB, RoundsService,
                                                       Clock]) -> None:
    mosq, db, _service, clock = club
    second = RoundsService(db, mosq.host, mosq.port, clock=clock, tick=0.1,
                           client_id="mjtable-hub2-desk")
    second.start()
    assert second.subscribed.wait(10)
    rec = Recorder(mosq.host, mosq.port, "mahjong/v1/club/cmd/#", client_id="watcher")
    org = Organiser(rec, mosq.host, mosq.port)
    try:
        for n in range(6):  # the broker hands them round the two desks
            org.send("event", {"action": "show", "event": f"none{n}"})
        # a late second answer would show here
        assert not wait_until(lambda: len(rec.json_on("club/cmd/event/result")) > 6, 1.0)
    finally:
        org.close()
        rec.close()
        second.stop()
