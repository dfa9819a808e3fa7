"""`kill -9` of `mjtable run` at random points of a hand, several times: each time the service
comes back to exactly the state of its log, and the event stream has no gap (a message whose
acknowledgement died with the process may come again; consumers dedupe by seq)."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

from controller.broker import LocalMosquitto
from controller.families import world_for
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.world import Claims
from engine.game import public_view
from engine.seats import Seat
from firmware_bridge.emulator import EmulatedBoard
from tests.waiting import wait_until

TABLE = "crash"


class Referee:
    """Sends cmd/<verb> and waits for cmd/<verb>/result, like a referee's tablet."""

    def __init__(self, host: str, port: int) -> None:
        self.results: list[dict[str, Any]] = []
        self.cond = threading.Condition()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id="referee", protocol=MQTTProtocolVersion.MQTTv5
        )
        subscribed = threading.Event()
        self.client.on_connect = lambda c, *a: c.subscribe(f"mahjong/v1/{TABLE}/cmd/+/result", 1)
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()
        assert subscribed.wait(5)

    def _on_message(self, c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.results.append(json.loads(msg.payload))
            self.cond.notify_all()

    def send(self, verb: str, body: dict[str, Any]) -> int:
        with self.cond:
            mark = len(self.results)
        self.client.publish(f"mahjong/v1/{TABLE}/cmd/{verb}", json.dumps(body), qos=1)
        return mark

    def result_after(self, mark: int, timeout: float = 10.0) -> dict[str, Any] | None:
        with self.cond:
            self.cond.wait_for(lambda: len(self.results) > mark, timeout)
            return self.results[mark] if len(self.results) > mark else None

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _state_of_log(store: Path) -> dict[str, Any]:
    db = EventStore(store)
    try:
        table = Table(TableSettings(TABLE, courtesy_pause_ms=50), db, scorer=None)
        return json.loads(json.dumps(table.public_state()))
    finally:
        db.close()


def _last_seq(store: Path) -> int:
    db = EventStore(store)
    try:
        return db.last_seq()
    finally:
        db.close()


def _retained_state(host: str, port: int) -> dict[str, Any]:
    got: list[dict[str, Any]] = []
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=MQTTProtocolVersion.MQTTv5)

    def on_message(c: mqtt.Client, u: object, msg: mqtt.MQTTMessage) -> None:
        got.append(json.loads(msg.payload))
        done.set()

    client.on_message = on_message
    client.on_connect = lambda c, *a: c.subscribe(f"mahjong/v1/{TABLE}/state", 1)
    client.connect(host, port)
    client.loop_start()
    done.wait(5)
    client.disconnect()
    client.loop_stop()
    return got[-1] if got else {}


def _run_trials(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any],
    service_process: Callable[..., Any], kills: int, seed: int,
) -> None:
    store = tmp_path / "table.sqlite3"
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=seed) as board:
        config = tmp_path / "table.toml"
        config.write_text(
            f'[table]\nid = "{TABLE}"\n[adjudication]\ncourtesy_pause_ms = 50\n'
            f'[board]\nserial = "{board.path}"\n[camera]\nsource = "none"\n'
            f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
            f'[store]\npath = "{store}"\nsnapshot_every = 7\n'
        )
        rec = recorder_factory(broker.host, broker.port, f"mahjong/v1/{TABLE}/events", "club")
        referee = Referee(broker.host, broker.port)
        service = service_process(config, store)
        service.start()
        rng = random.Random(seed)
        world = world_for("code1924/mixed", random.Random(seed), prevailing=Seat.E, hand=1)
        steps = list(world.steps())
        kill_at = set(rng.sample(range(5, len(steps) - 1), kills))
        checked = 0
        try:
            for i, step in enumerate(steps):
                in_flight = i in kill_at and rng.random() < 0.5
                if isinstance(step, Claims):
                    for seat, kind in step.presses:
                        mark = referee.send("claim", {"seat": seat, "kind": kind})
                        result = referee.result_after(mark)
                        assert result and result["ok"], result
                    target = _last_seq(store) + 1  # the adjudication
                    assert _wait(lambda t=target, k=i: _last_seq(store) >= t or k in kill_at, 10)
                    before = _last_seq(store)
                else:
                    before = _last_seq(store)
                    mark = referee.send("observe", step.to_json())
                    if not in_flight:
                        result = referee.result_after(mark)
                        assert result and result["ok"], (step, result)
                if i not in kill_at:
                    continue
                service.kill9()
                logged = _events(store)
                expected = _state_of_log(store)
                service.start()
                checked += 1
                if expected.get("phase") not in ("claims", "rob"):
                    # The same state as the log, published again as the retained state.
                    assert _wait(
                        lambda e=expected: _retained_state(broker.host, broker.port) == e, 10
                    )
                else:  # a call window open at the kill is closed at once: the log goes on
                    assert _wait(
                        lambda: _retained_state(broker.host, broker.port) == _state_of_log(store),
                        10,
                    )
                assert _events(store)[: len(logged)] == logged  # nothing of the log changed
                if not isinstance(step, Claims) and _last_seq(store) == before:
                    # The observation died with the process before it was applied: again.
                    result = referee.result_after(referee.send("observe", step.to_json()))
                    assert result and result["ok"], result
                if isinstance(step, Claims):  # the window open at the kill closes on restart
                    assert _wait(
                        lambda b=before: any(
                            e["type"] == "ClaimsClosed" and e["seq"] >= b for e in _events(store)
                        ),
                        10,
                    )
            assert checked == kills
            assert _wait(lambda: _state_of_log(store)["hand"] == 2, 10)  # the hand ended
            # The mirror of the killed-and-restarted service agrees with the real game.
            mirror_final = next(e for e in _events(store) if e["type"] == "HandEnded")
            assert mirror_final["result"] == world.result().result
            last = _last_seq(store)
            assert rec.wait_for(lambda: {e["seq"] for e in rec.json_on("/events")} >= set(
                range(1, last + 1)
            ), 20)
            seqs = [e["seq"] for e in rec.json_on("/events")]
            deduped: list[int] = []
            for s in seqs:
                if s not in deduped:
                    deduped.append(s)
            assert deduped == list(range(1, last + 1)), "a gap or a reordering"
            assert public_view(world.result())["seats"] is not None
        finally:
            service.stop()
            referee.close()


def _events(store: Path) -> list[dict[str, Any]]:
    db = EventStore(store)
    try:
        return list(db.events())
    finally:
        db.close()


def _wait(predicate: Callable[[], bool], timeout: float) -> bool:
    return wait_until(predicate, timeout, interval=0.05)


def test_kill_9_at_random_points_comes_back_to_the_same_state(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any],
    service_process: Callable[..., Any],
) -> None:
    _run_trials(tmp_path, broker, recorder_factory, service_process, kills=3, seed=21)


@pytest.mark.slow
def test_kill_9_many_times(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any],
    service_process: Callable[..., Any],
) -> None:
    _run_trials(tmp_path, broker, recorder_factory, service_process, kills=12, seed=22)
