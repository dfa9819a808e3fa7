"""Club nights and tournaments: an event with rounds, the seating of each round, a round clock.

The organiser runs an event through commands (:class:`EventDesk`, reached over MQTT by
:mod:`hub.rounds_mqtt`): create it with its players, tables and number of rounds (the seating
of every round is drawn at once, :mod:`hub.seating`), start each round (each table is sent its
players in seat order and the round clock starts), end it. The event's standings count the
finished games its rounds seated, by the scheme the event chose (:mod:`hub.schemes`).

Events are kept in the club database beside the hub's games (their own table, one JSON row
per event), so a hub restarted mid-tournament carries on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Column, MetaData, String, Table, Text, select

from hub.db import ClubDB
from hub.records import GameRecord
from hub.schemes import BY_GAMES, standings
from hub.seating import FILLS, RoundSeating, SeatingError, TableSeating, draw

metadata = MetaData()
event_rows = Table("club_event_rounds", metadata,
                    Column("event_id", String(64), primary_key=True),
                    Column("body", Text, nullable=False))

EVENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
KINDS = ("club_night", "tournament")


class EventError(ValueError):
    """A command the desk refuses: ``where`` names the field."""

    def __init__(self, error: str, where: str) -> None:
        self.error = error
        self.where = where
        super().__init__(f"{where}: {error}")


def now() -> datetime:
    return datetime.now(UTC)


def iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


@dataclass
class Event:
    id: str
    name: str
    kind: str
    players: list[str]
    tables: list[str]  # table ids, by table number
    rounds: int
    fill: str = "fours"
    scheme: str = "raw"
    round_minutes: int = 90
    seating: list[RoundSeating] = field(default_factory=list)
    started: int = 0  # rounds started so far
    clock: dict[str, Any] | None = None
    # round number -> table id -> the table's game number, once the table started it
    games: dict[int, dict[str, int]] = field(default_factory=dict)

    # -- the round clock ---------------------------------------------------------------------

    def start_clock(self, at: datetime) -> None:
        self.clock = {"round": self.started, "state": "running", "started": iso(at),
                      "ends": iso(at + timedelta(minutes=self.round_minutes)),
                      "minutes": self.round_minutes}

    def clock_state(self, at: datetime) -> dict[str, Any] | None:
        """The clock as published: ``time`` once the round's minutes are up."""
        if self.clock is None:
            return None
        clock = dict(self.clock)
        if clock["state"] == "running":
            left = (datetime.fromisoformat(clock["ends"]) - at).total_seconds()
            clock["seconds_left"] = max(0, int(left))
            if left <= 0:
                clock["state"] = "time"
        return clock

    # -- the games the event seated ----------------------------------------------------------

    def seated_at(self, round_number: int, table: str) -> TableSeating | None:
        seating = self.seating[round_number - 1]
        for t in seating.tables:
            if self.tables[t.table - 1] == table:
                return t
        return None

    def match_games(self, games: Sequence[GameRecord]) -> bool:
        """Note the table's game for each table of a started round: the first game on that
        table, not already counted by an earlier round, seating exactly the drawn players."""
        changed = False
        taken = {(t, g) for r in self.games.values() for t, g in r.items()}
        for number in range(1, self.started + 1):
            found = self.games.setdefault(number, {})
            for seat in self.seating[number - 1].tables:
                table = self.tables[seat.table - 1]
                if table in found:
                    continue
                for game in games:
                    if game.table == table and (table, game.game) not in taken and \
                            sorted(game.players) == sorted(seat.players):
                        found[table] = game.game
                        taken.add((table, game.game))
                        changed = True
                        break
        return changed

    def event_games(self, games: Sequence[GameRecord]) -> list[GameRecord]:
        keys = {(t, g) for r in self.games.values() for t, g in r.items()}
        return [g for g in games if (g.table, g.game) in keys]

    # -- JSON --------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        return {"event": self.id, "name": self.name, "kind": self.kind, "rounds": self.rounds,
                "started": self.started, "players": self.players, "tables": self.tables,
                "fill": self.fill, "scheme": self.scheme, "round_minutes": self.round_minutes}

    def seating_json(self) -> dict[str, Any]:
        rounds = []
        for r in self.seating:
            body = r.to_json()
            for t in body["tables"]:  # type: ignore[attr-defined]
                t["table_id"] = self.tables[t["table"] - 1]
            rounds.append(body)
        return {"event": self.id, "next": self.started + 1 if self.started < self.rounds
                else None, "current": self.started or None, "rounds": rounds}

    def to_json(self) -> dict[str, Any]:
        return {**self.summary(), "seating": [r.to_json() for r in self.seating],
                "clock": self.clock, "games": {str(k): v for k, v in self.games.items()}}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Event:
        seating = [RoundSeating(r["round"], tuple(
            TableSeating(t["table"], tuple((w, t["seats"].get(w, "")) for w in
                                           ("East", "South", "West", "North")))
            for t in r["tables"]), tuple(r["byes"])) for r in body["seating"]]
        return cls(body["event"], body["name"], body["kind"], list(body["players"]),
                   list(body["tables"]), int(body["rounds"]), body["fill"], body["scheme"],
                   int(body["round_minutes"]), seating, int(body["started"]), body["clock"],
                   {int(k): dict(v) for k, v in body["games"].items()})


# -- reading commands --------------------------------------------------------------------------

def _text(payload: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = payload.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise EventError("a non-empty string", key)
    return value.strip()


def _int(payload: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = payload.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError(f"a whole number from {low} to {high}", key)
    return value


def _names(payload: Mapping[str, Any], key: str) -> list[str]:
    value = payload.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise EventError("a list of names", key)
    return [" ".join(v.split()) for v in value]


def _choice(payload: Mapping[str, Any], key: str, default: str, options: Sequence[str]) -> str:
    value = payload.get(key, default)
    if value not in options:
        raise EventError(f"one of {', '.join(options)}", key)
    return str(value)


class EventDesk:
    """The organiser's commands over the club database. Each method returns the answer's
    body (``ok`` is added by the caller) or raises :class:`EventError`."""

    def __init__(self, db: ClubDB) -> None:
        self.db = db
        metadata.create_all(db.engine)

    # -- storage ---------------------------------------------------------------------------

    def events(self) -> list[Event]:
        with self.db.engine.begin() as conn:
            rows = conn.execute(select(event_rows).order_by(event_rows.c.event_id)).all()
        return [Event.from_json(json.loads(r.body)) for r in rows]

    def event(self, event_id: object) -> Event:
        if not isinstance(event_id, str) or not event_id:
            raise EventError("an event id", "event")
        with self.db.engine.begin() as conn:
            row = conn.execute(select(event_rows).where(
                event_rows.c.event_id == event_id)).first()
        if row is None:
            raise EventError(f"no event {event_id!r}", "event")
        return Event.from_json(json.loads(row.body))

    def save(self, event: Event, new: bool = False) -> None:
        body = json.dumps(event.to_json())
        with self.db.engine.begin() as conn:
            if new:
                conn.execute(event_rows.insert().values(event_id=event.id, body=body))
            else:
                conn.execute(event_rows.update().where(
                    event_rows.c.event_id == event.id).values(body=body))

    # -- commands --------------------------------------------------------------------------

    def create(self, payload: Mapping[str, Any]) -> Event:
        event_id = _text(payload, "event")
        if not EVENT_ID.match(event_id):
            raise EventError("letters, digits, - and _ only (it is part of a topic)", "event")
        if any(e.id == event_id for e in self.events()):
            raise EventError(f"event {event_id!r} already exists", "event")
        players = _names(payload, "players")
        tables = _names(payload, "tables")
        rounds = _int(payload, "rounds", 4, 1, 30)
        fill = _choice(payload, "fill", "fours", FILLS)
        event = Event(event_id, payload.get("name") or event_id,
                      _choice(payload, "kind", "club_night", KINDS), players, tables, rounds,
                      fill, _choice(payload, "scheme", "raw", tuple(BY_GAMES)),
                      _int(payload, "round_minutes", 90, 1, 600))
        event.seating = self._draw(event, rounds, payload.get("seed", 0))
        if len(set(tables)) != len(tables):
            raise EventError("a table is listed twice", "tables")
        self.save(event, new=True)
        return event

    def _draw(self, event: Event, rounds: int, seed: object,
              history: Sequence[RoundSeating] = ()) -> list[RoundSeating]:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise EventError("a whole number", "seed")
        try:
            seating = draw(event.players, rounds, event.fill, seed=seed,  # type: ignore[arg-type]
                           history=history)
        except SeatingError as e:
            raise EventError(e.error, e.where) from None
        needed = len(seating[0].tables)
        if needed > len(event.tables):
            raise EventError(f"{len(event.players)} players need {needed} tables; "
                             f"{len(event.tables)} given", "tables")
        return seating

    def change_players(self, payload: Mapping[str, Any]) -> Event:
        """A new roster (a late arrival, a withdrawal): the rounds not yet started are drawn
        again, counting the meetings of the rounds already played."""
        event = self.event(payload.get("event"))
        players = _names(payload, "players")
        if event.started >= event.rounds:
            raise EventError("every round has started: nothing left to draw", "players")
        old = event.players
        event.players = players
        played = event.seating[:event.started]
        try:
            event.seating = played + self._draw(event, event.rounds - event.started,
                                                payload.get("seed", 0), played)
        except EventError:
            event.players = old
            raise
        self.save(event)
        return event

    def start_round(self, payload: Mapping[str, Any], at: datetime) -> tuple[Event, RoundSeating]:
        event = self.event(payload.get("event"))
        expected = payload.get("round", event.started + 1)
        if event.started >= event.rounds:
            raise EventError(f"all {event.rounds} rounds have started", "round")
        if expected != event.started + 1:
            raise EventError(f"the next round is {event.started + 1}", "round")
        if event.clock is not None and event.clock["state"] == "running":
            raise EventError(f"round {event.started} is still running: end it first", "round")
        event.started += 1
        event.start_clock(at)
        self.save(event)
        return event, event.seating[event.started - 1]

    def end_round(self, payload: Mapping[str, Any], at: datetime) -> Event:
        event = self.event(payload.get("event"))
        if event.clock is None or event.clock["state"] != "running":
            raise EventError("no round is running", "event")
        event.clock = {**event.clock, "state": "ended", "ended": iso(at)}
        self.save(event)
        return event

    def standings(self, event: Event) -> dict[str, Any]:
        games = self.db.games()
        if event.match_games(games):
            self.save(event)
        body = standings(event.event_games(games), event.scheme).to_json()
        running = [{"table": g.table, "game": g.game, "totals": dict(g.totals)}
                   for g in event.event_games(games) if not g.finished]
        return {"event": event.id, **body, "running": running}


def table_command(seat: TableSeating) -> dict[str, Any]:
    """The table's ``cmd/game`` start for one seated table (players in seat order E, S, W, N;
    a table of three leaves out its empty seat)."""
    return {"action": "start", "players": seat.players}
