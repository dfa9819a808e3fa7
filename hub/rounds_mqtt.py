"""The organiser's desk on the club broker: commands in, one answer each, events published.

Topics (docs/mqtt.md, "The club tree"), under ``mahjong/v1/club/``:

* ``cmd/<verb>`` in, ``cmd/<verb>/result`` out: ``{"ok": true, ...}`` or ``{"ok": false,
  "error", "where"}``. Verbs: ``event`` (``create``, ``players``, ``show``), ``round``
  (``start``, ``end``), ``standings``.
* retained: ``events/<id>`` (the event), ``events/<id>/seating`` (every round's tables and
  winds, the next round's marked), ``events/<id>/clock`` (the round clock),
  ``events/<id>/standings`` (by the event's scheme, with the games in progress),
  ``events/<id>/tables`` (each table of the running round: its answer to ``cmd/game``, null
  until it answers).

Starting a round sends each of its tables ``mahjong/v1/<table>/cmd/game`` ``start`` with the
drawn players in seat order; the tables' answers are folded into the round's published state.

paho's callbacks only queue; one worker thread does the database work and publishes, so every
command gets exactly one answer in the order it came.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from datetime import datetime
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from hub.db import ClubDB
from hub.rounds import Event, EventDesk, EventError, now, table_command

log = logging.getLogger(__name__)
PREFIX = "mahjong/v1"
CLUB = "club"
VERBS = ("event", "round", "standings")


class RoundsService:
    """Runs the desk on the club broker until :meth:`stop`."""

    def __init__(self, db: ClubDB, host: str, port: int, prefix: str = PREFIX,
                 username: str | None = None, password: str | None = None,
                 clock: Callable[[], datetime] = now, tick: float = 0.5,
                 client_id: str = "mjtable-hub-desk", share: str | None = None) -> None:
        self.desk = EventDesk(db)
        self.share = share or "club-desk"
        self.db = db
        self.prefix = prefix
        self.clock = clock
        self.tick = tick
        self.inbox: queue.Queue[tuple[str, bytes] | Callable[[], None] | None] = queue.Queue()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=MQTTProtocolVersion.MQTTv5)
        if username:
            self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.subscribed = threading.Event()  # set once the desk hears commands
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.on_message = lambda _c, _u, msg: self.inbox.put((msg.topic, bytes(msg.payload)))
        self.host, self.port = host, port
        self._worker = threading.Thread(target=self._run, name="hub-desk", daemon=True)
        self._fingerprint: tuple[int, int] | None = None
        self._published_clock: dict[str, str] = {}
        self.table_answers: dict[str, dict[str, Any]] = {}

    def topic(self, *parts: str) -> str:
        return "/".join((self.prefix, CLUB, *parts))

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=30)
        self.client.loop_start()
        self._worker.start()

    def stop(self) -> None:
        self.inbox.put(None)
        self._worker.join(timeout=5)
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, _u: object, _f: object, reason: Any,
                    _p: object = None) -> None:
        # A shared subscription: however many hubs run a desk (a shared group, a partition
        # by table), the broker hands each command to one of them, so it is answered once.
        commands = f"$share/{self.share}/{self.topic('cmd', '+')}"
        client.subscribe([(commands, 1), (f"{self.prefix}/+/cmd/game/result", 1)])

    # -- the worker --------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self.republish_all()
        except Exception:  # the database is away: the ticks below try again
            log.exception("club desk: republishing the events")
        next_tick = time.monotonic()
        failing = False
        while True:
            try:
                item = self.inbox.get(timeout=max(0.0, next_tick - time.monotonic()))
            except queue.Empty:
                item = ("", b"")
            if item is None:
                return
            topic, payload = item if isinstance(item, tuple) else ("", b"")
            try:
                if callable(item):
                    item()
                elif topic:
                    self._message(topic, payload)
                if time.monotonic() >= next_tick:
                    next_tick = time.monotonic() + self.tick
                    self.refresh()
                failing = False
            except Exception as exc:  # the desk must outlive any one message
                # Once per failure, not every tick: a database away for an hour must not
                # fill the log (or block a hub whose stderr nobody reads).
                if not failing:
                    log.exception("club desk: %s", topic or "refresh")
                else:
                    log.debug("club desk still failing: %s", exc)
                failing = True

    def _message(self, topic: str, payload: bytes) -> None:
        parts = topic.split("/")
        if topic.endswith("/cmd/game/result") and parts[-4] != CLUB:
            self._table_answer(parts[-4], payload)
            return
        if len(parts) != len(self.prefix.split("/")) + 3:
            return  # our own .../result echoes, or deeper topics
        verb = parts[-1]
        self.publish(self.topic("cmd", verb, "result"), self.answer(verb, payload))

    def ask(self, verb: str, raw: bytes) -> Future[dict[str, Any]]:
        """A command from the club page's desk: answered on the worker, in turn with those
        from the broker, and its answer published on ``cmd/<verb>/result`` as theirs are."""
        done: Future[dict[str, Any]] = Future()

        def job() -> None:
            try:
                answer = self.answer(verb, raw)
            except Exception as exc:  # the page hears of it; the worker logs it
                done.set_exception(exc)
                raise
            done.set_result(answer)
            if verb in VERBS:
                self.publish(self.topic("cmd", verb, "result"), answer)

        self.inbox.put(job)
        return done

    def answer(self, verb: str, raw: bytes) -> dict[str, Any]:
        """Exactly one answer for one command."""
        try:
            payload = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return {"ok": False, "error": "not JSON", "where": "payload"}
        if not isinstance(payload, dict):
            return {"ok": False, "error": "a JSON object", "where": "payload"}
        if verb not in VERBS:
            return {"ok": False, "error": f"unknown verb {verb!r}: one of {', '.join(VERBS)}",
                    "where": "verb"}
        try:
            return {"ok": True, **getattr(self, f"_cmd_{verb}")(payload)}
        except EventError as e:
            return {"ok": False, "error": e.error, "where": e.where}

    def _cmd_event(self, payload: dict[str, Any]) -> dict[str, Any]:
        action = payload.get("action")
        if action == "create":
            event = self.desk.create(payload)
        elif action == "players":
            event = self.desk.change_players(payload)
        elif action == "show":
            event = self.desk.event(payload.get("event"))
        else:
            raise EventError("one of create, players, show", "action")
        self.publish_event(event)
        return {**event.summary(), "seating": event.seating_json()["rounds"]}

    def _cmd_round(self, payload: dict[str, Any]) -> dict[str, Any]:
        action = payload.get("action")
        at = self.clock()
        if action == "start":
            event, seating = self.desk.start_round(payload, at)
            sent = {}
            for seat in seating.tables:
                table = event.tables[seat.table - 1]
                command = table_command(seat)
                self.publish(f"{self.prefix}/{table}/cmd/game", command, retain=False)
                sent[table] = command["players"]
                self.table_answers.pop(table, None)  # the answer to this round's command
            self.publish_event(event)
            self.publish_tables(event)
            return {"event": event.id, "round": seating.number, "tables": sent,
                    "byes": list(seating.byes), "clock": event.clock_state(at)}
        if action == "end":
            end_games = payload.get("end_games", False)
            if not isinstance(end_games, bool):
                raise EventError("true or false", "end_games")
            event = self.desk.end_round(payload, at)
            ended = []
            if end_games:  # time: each table's game ends with the totals so far
                for seat in event.seating[event.started - 1].tables:
                    table = event.tables[seat.table - 1]
                    self.publish(f"{self.prefix}/{table}/cmd/game", {
                        "action": "end", "reason": f"round {event.started} time"})
                    ended.append(table)
            self.publish_event(event)
            return {"event": event.id, "round": event.started, "clock": event.clock,
                    "games_ended": ended}
        raise EventError("one of start, end", "action")

    def _cmd_standings(self, payload: dict[str, Any]) -> dict[str, Any]:
        event = self.desk.event(payload.get("event"))
        body = self.desk.standings(event)
        self.publish(self.topic("events", event.id, "standings"), body)
        return body

    def _table_answer(self, table: str, payload: bytes) -> None:
        """A table's answer to its ``cmd/game``: published for every event whose running
        round seats that table, so the organiser sees a table that refused (a game still
        going on there, a name it would not take)."""
        try:
            answer = json.loads(payload)
        except ValueError:
            answer = {"ok": False, "error": "not JSON"}
        if not isinstance(answer, dict):
            answer = {"ok": False, "error": "not a JSON object"}
        self.table_answers[table] = answer
        for event in self.desk.events():
            if event.started and event.seated_at(event.started, table) is not None:
                self.publish_tables(event)

    def publish_tables(self, event: Event) -> None:
        body = {"event": event.id, "round": event.started, "tables": {
            t: self.table_answers.get(t) for t in
            (event.tables[s.table - 1] for s in event.seating[event.started - 1].tables)}}
        self.publish(self.topic("events", event.id, "tables"), body, retain=True)

    # -- publishing --------------------------------------------------------------------------

    def publish(self, topic: str, body: dict[str, Any], retain: bool = False) -> None:
        self.client.publish(topic, json.dumps(body, separators=(",", ":")), qos=1,
                            retain=retain)

    def publish_event(self, event: Event) -> None:
        at = self.clock()
        self.publish(self.topic("events", event.id), event.summary(), retain=True)
        self.publish(self.topic("events", event.id, "seating"), event.seating_json(),
                     retain=True)
        clock = event.clock_state(at)
        if clock is not None:
            self.publish(self.topic("events", event.id, "clock"), clock, retain=True)
            self._published_clock[event.id] = clock["state"]
        self.publish(self.topic("events", event.id, "standings"), self.desk.standings(event),
                     retain=True)

    def republish_all(self) -> None:
        for event in self.desk.events():
            self.publish_event(event)

    def refresh(self) -> None:
        """Once a tick: standings again when a table's stream moved; a clock whose time ran
        out is published as such."""
        tables = self.db.tables()
        fingerprint = (len(tables), sum(t.events for t in tables))
        moved = fingerprint != self._fingerprint
        self._fingerprint = fingerprint
        at = self.clock()
        for event in self.desk.events():
            clock = event.clock_state(at)
            if clock is not None and self._published_clock.get(event.id) != clock["state"]:
                self.publish(self.topic("events", event.id, "clock"), clock, retain=True)
                self._published_clock[event.id] = clock["state"]
            if moved and event.started:
                self.publish(self.topic("events", event.id, "standings"),
                             self.desk.standings(event), retain=True)
