"""End to end for the American family: `mjtable simulate --ruleset american` plays whole hands
(Charleston, calls on the board's buttons, exposures, Joker exchanges, Mah Jongg and a wall
game) through the emulated board, the service in mirror mode, the store and a real Mosquitto."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from config.cards import default_card
from controller.broker import LocalMosquitto
from controller.families.american import AmericanPart
from controller.inbox import ObserveIn
from controller.inputs import Observation, ObservationKind, Press
from controller.live_view import describe
from controller.simulation import SimulationSettings, simulate
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.world import Claims

from .conftest import until


def test_american_hands_arrive_once_in_order_concealed_tiles_never_published(
    tmp_path: Path, broker: LocalMosquitto, recorder_factory: Callable[..., Any]
) -> None:
    rec = recorder_factory(broker.host, broker.port, "mahjong/v1/sim/#", "club")
    store = tmp_path / "table.sqlite3"
    # Seed 2: a wall game (American W-1) then a Mah Jongg, with calls and Joker exchanges.
    summary = simulate(
        SimulationSettings(
            ruleset="american", hands=2, seed=2, store=str(store),
            mqtt=(broker.host, broker.port), headless=True, doubt=0.03,
        )
    )
    # The mirror fed only what the table showed ends each hand as the real game did.
    assert summary["violations"] == 0, summary["problems"]
    assert summary["hands"] == 2 and summary["wins"] == 1 and summary["draws"] == 1
    assert summary["published"] == summary["events"] > 300
    events = rec.json_on("/events")
    assert [e["seq"] for e in events] == list(range(1, summary["events"] + 1))
    kinds = {e["type"] for e in events}
    assert {"CharlestonPassOffered", "CallMade", "Exposed", "JokerExchanged", "MahJongg",
            "HandEnded"} <= kinds
    # Concealed tiles never leave the table: no private part, no command, no Dealt tiles.
    assert all("private" not in e and "command" not in e for e in events)
    logged = list(EventStore(store).events(0))
    assert any(r.get("private") for r in logged)  # ... though the log keeps them
    # The live view tells the hand from the public part alone.
    told = [describe({k: v for k, v in r.items() if k != "private"}) for r in logged]
    assert any("MAH JONGG" in line for line in told)
    assert any("exchanges" in line and "for a Joker" in line for line in told)
    # A call's board time reaches the club's subscriber (press to MQTT, the benchmark).
    assert summary["latency_ms"]["press_to_mqtt"]["n"] >= 1
    # Every C-9 decision with a winner is published with its rule.
    decisions = [a for a in rec.json_on("/adjudications") if a["type"] == "decision"]
    won = [d for d in decisions if d["winner"]]
    assert won and all(d["rule"].startswith("American C-") for d in won)
    # The retained state and scores are what a replay of the log gives.
    replayed = Table(TableSettings("sim", "american"), EventStore(store))
    late = recorder_factory(broker.host, broker.port, "mahjong/v1/sim/+", "late")
    assert late.wait_for(lambda: len(late.json_on("/state")) and len(late.json_on("/scores")))
    assert late.json_on("/state")[-1] == json.loads(json.dumps(replayed.public_state()))
    assert late.json_on("/scores")[-1] == json.loads(json.dumps(replayed.scores()))
    assert sum(replayed.totals.values()) == 0  # the League's payments balance
    # After a won hand and a wall game alike, East passes to the right (seed 002): twice.
    # players are people, never seat letters: two hands passed East twice
    assert replayed.players == {"E": "Player 3", "S": "Player 4", "W": "Player 1",
                                "N": "Player 2"}


def _table(tmp_path: Path) -> Table:
    settings = TableSettings("t", "american", courtesy_pause_ms=100, publish=False)
    return Table(settings, EventStore(str(tmp_path / "t.sqlite3")), card=default_card())


def _charleston(table: Table) -> None:
    """Three passes each way, nobody stops... then a vote to stop and no courtesy."""
    for _ in range(3):
        for seat in "ESWN":
            out = table.observe(Observation(ObservationKind.PASS, seat, count=3), 0)
            assert out.accepted, out.error
    for seat in "ESWN":
        table.observe(Observation(ObservationKind.VOTE, seat, zone="stop"), 0)
        if table.state is not None and table.state.phase != "vote":
            break
    for seat in "ESWN":
        if table.state is not None and table.state.phase == "courtesy_offer":
            table.observe(Observation(ObservationKind.COURTESY_OFFER, seat, count=0), 0)
    assert table.state is not None and table.state.phase == "play"


def _east_discarded(tmp_path: Path, tile: str) -> Table:
    """A table in play: the Charleston done, East's first discard ``tile`` at 1 000 µs."""
    table = _table(tmp_path)
    table.start()
    _charleston(table)
    assert table.observe(Observation(ObservationKind.DISCARD, "E", (tile,)), 1_000).accepted
    return table


def test_a_pass_counted_short_throws_the_hand_in(tmp_path: Path) -> None:
    """American CH-7: a wrong count in the Charleston: the hands are thrown in."""
    table = _table(tmp_path)
    table.start()
    table.observe(Observation(ObservationKind.PASS, "E", count=2), 0)
    assert table.sheet[-1]["result"] == "redeal" and table.sheet[-1]["rule"] == "American CH-7"
    assert table.hand_no == 2
    assert table.players == {"E": "Player 1", "S": "Player 2", "W": "Player 3",
                             "N": "Player 4"}  # dealt again, same East


def test_a_restart_with_calls_pending_comes_back_and_adjudicates(tmp_path: Path) -> None:
    """After a power cut the table is the fold of its log, calls included; the window that was
    open keeps its deadline (the discard's logged time and the pause), waits for the board's
    held presses, then closes on time and C-9 decides as it would have."""
    table = _east_discarded(tmp_path, "RD")
    assert table.press(Press("S", "pung", 1_100), 1_100).accepted
    assert table.press(Press("N", "mahjong", 1_200), 1_200).accepted
    before = table.public_state()
    again = _table(tmp_path)
    assert again.public_state() == before and again.seq == table.seq
    deadline = again.window.deadline_us
    assert deadline is not None and deadline > 1_000 and again.window.held
    late = deadline + again.window.latency_us + 5_000_000  # the clock after the restart
    assert again.tick(late) == []  # held until the board's presses are taken
    again.window.release(late)
    closed = again.tick(late)
    assert closed[0]["public"]["winner"] == "N"
    assert closed[0]["public"]["rule"] == "American C-9: Mah Jongg beats an exposure"


def test_calls_close_on_the_pause_and_the_next_in_turn_wins(tmp_path: Path) -> None:
    """American C-9: two exposure calls: the player next in turn after the discarder gets it,
    whatever the order of the presses."""
    table = _table(tmp_path)
    table.start()
    _charleston(table)
    assert table.observe(Observation(ObservationKind.DISCARD, "E", ("5B",)), 1_000).accepted
    assert table.press(Press("N", "pung", 1_100), 1_100).accepted
    assert table.press(Press("W", "pung", 1_200), 1_200).accepted
    assert not table.press(Press("W", "pung", 1_300), 1_300).accepted  # C-2: called already
    assert table.tick(50_000) == []  # still inside the courtesy pause
    closed = table.tick(1_000 + 200_000)
    assert closed[0]["type"] == "WindowClosed"
    assert closed[0]["public"]["winner"] == "W"
    assert closed[0]["public"]["rule"] == "American C-9: next in turn after the discarder"
    # The window has closed: a late call is refused, with its rule (C-5).
    refused = table.press(Press("S", "mahjong", 2_000), 2_000)
    assert not refused.accepted and refused.rule == "American C-5"


def test_a_low_confidence_discard_is_held_and_confirmed(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.start()
    _charleston(table)
    out = table.observe(Observation(ObservationKind.DISCARD, "E", ("5B",), confidence=0.5), 0)
    assert out.asked == 1 and table.pending
    result = table.command("confirm", b'{"pending": 1}', 0)
    assert result["ok"] and not table.pending
    assert table.public_state()["seats"]["E"]["discards"] == ["5B"]


@pytest.mark.parametrize("bad", [
    Observation(ObservationKind.JOKER_EXCHANGE, "S", ("5B",), zone="somewhere"),
    Observation(ObservationKind.VOTE, "S", zone="maybe"),
    Observation(ObservationKind.PASS, "S", zone="blind", count=3),
])
def test_unreadable_american_observations_are_refused_naming_the_field(
    tmp_path: Path, bad: Observation
) -> None:
    table = _table(tmp_path)
    table.start()
    out = table.observe(bad, 0, ask=False)
    assert not out.accepted and str(bad.kind) in out.error


def test_world_steps_show_no_concealed_faces() -> None:
    """The simulated camera counts passes and draws; it never names a face-down tile."""
    import random

    from controller.families import world_for

    world = world_for("american", random.Random(1), card=default_card())
    steps = list(world.steps())
    for step in steps:
        if isinstance(step, Claims):
            continue
        if step.kind in (ObservationKind.PASS, ObservationKind.COURTESY_PASS,
                         ObservationKind.DRAW):
            assert step.tiles == ()
    assert world.state.result is not None


def test_run_serves_an_american_table_a_gpio_button_calls(tmp_path: Path) -> None:
    """`mjtable run`'s service with `ruleset = "american"`: the seat's call button (gpiozero's
    MockFactory) is a call on the discard, decided by C-1 when the pause ends."""
    import asyncio
    import tomllib

    from config.load import parse_config
    from controller.gpio import pin_factory
    from controller.service import Service, ServiceOptions

    text = (
        '[table]\nid = "am"\nruleset = "american"\n[board]\nserial = ""\n'
        '[adjudication]\ncourtesy_pause_ms = 50\n'
        '[gpio]\nenabled = true\nfactory = "mock"\nbounce_ms = 0\n'
        "[gpio.seats.W]\nbuttons = {pung = 13}\nled = 27\n"
        '[camera]\nsource = "none"\n[mqtt]\nenabled = false\n'
    )
    cfg = parse_config(tomllib.loads(text), "table.toml")
    factory = pin_factory("mock")
    service = Service(cfg, ServiceOptions(store_path=str(tmp_path / "store.sqlite3"),
                                          gpio_factory=factory))
    assert isinstance(service.table.part, AmericanPart)

    async def scenario() -> list[dict[str, Any]]:
        stop = asyncio.Event()
        ready = asyncio.Event()
        runner = asyncio.create_task(service.run(stop, on_ready=ready.set))
        await asyncio.wait_for(ready.wait(), 5)
        steps = [Observation(ObservationKind.PASS, s, count=3) for _ in range(3) for s in "ESWN"]
        steps += [Observation(ObservationKind.VOTE, "E", zone="stop")]
        steps += [Observation(ObservationKind.COURTESY_OFFER, s, count=0) for s in "ESWN"]
        steps += [Observation(ObservationKind.DISCARD, "E", ("5C",))]
        for step in steps:
            out = await service.submit(ObserveIn(step))
            assert out.accepted, (step, out.error)
        await asyncio.to_thread(factory.pin(13).drive_low)  # W's call button
        await until(
            lambda: any(e["type"] == "WindowClosed" for e in service.store.events()),
            what="the adjudication",
        )
        events = list(service.store.events())
        stop.set()
        await runner
        return events

    try:
        events = asyncio.run(scenario())
    finally:
        factory.reset()
        factory.close()
    call = next(e for e in events if e["type"] == "CallMade")
    assert call["seat"] == "W" and call["public"]["kind"] == "expose"
    decision = next(e for e in events if e["type"] == "WindowClosed")
    assert decision["public"]["winner"] == "W"
    assert decision["public"]["rule"] == "American C-1: a call for an exposure"


def test_a_challenge_without_visible_evidence_stands_disputed(tmp_path: Path) -> None:
    """American DH-1, DH-3: only the table calls a hand dead; nothing visible: disputed."""
    table = _table(tmp_path)
    table.start()
    early = table.command("challenge", b'{"seat": "S", "target": "E"}', 0)
    assert not early["ok"] and early["rule"] == "American CH-8"  # not in the Charleston
    _charleston(table)
    result = table.command("challenge", b'{"seat": "S", "target": "E"}', 0)
    assert result["ok"] and result["events"] == ["ChallengeRuled"]
    logged = list(table.store.events(0))[-1]
    assert logged["public"] == {"target": "E", "ruling": "disputed",
                                "rule": "American DH-5, DH-6"}
    bad = table.command("challenge", b'{"seat": "S", "target": "X"}', 0)
    assert bad == {"ok": False, "error": "'X' is not one of E S W N", "where": "target"}


def test_a_joker_exchange_seen_by_the_camera_is_the_turn_players(tmp_path: Path) -> None:
    """The camera sees a natural go in for an exposure's Joker, not whose hand put it there
    (vision/observe.py): the table takes the player whose turn it is (J-4, J-5)."""
    table = _table(tmp_path)
    table.start()
    _charleston(table)
    assert table.observe(Observation(ObservationKind.DISCARD, "E", ("5B",)), 1_000).accepted
    assert table.press(Press("W", "pung", 1_100), 1_100).accepted
    table.tick(1_000 + 200_000)
    pung = Observation(ObservationKind.EXPOSURE, "W", ("5B", "J", "5B"), zone="rack-W")
    assert (out := table.observe(pung, 250_000)).accepted, out.error
    assert table.observe(Observation(ObservationKind.DISCARD, "W", ("2D",)), 300_000).accepted
    table.tick(300_000 + 200_000)
    assert table.observe(Observation(ObservationKind.DRAW, "N"), 550_000).accepted
    seen = Observation(ObservationKind.JOKER_EXCHANGE, None, ("5B",), zone="rack-W")
    assert (out := table.observe(seen, 600_000)).accepted, out.error
    exchanged = [e for e in table.store.events() if e["type"].endswith("JokerExchanged")]
    assert exchanged[-1]["seat"] == "N" and exchanged[-1]["public"]["owner"] == "W"
    assert table.public_state()["seats"]["W"]["exposures"] == [["5B", "5B", "5B"]]


def test_the_seats_that_may_be_laying_a_hand_out_for_the_camera(tmp_path: Path) -> None:
    """The camera's watcher asks who may be showing a hand (M-1): East after drawing (its
    14); a seat that alone called the discard for Mah Jongg, and once awarded it, with the
    discard (13 + 1); nobody in the window of an exposure call or of two Mah Jongg calls."""
    table = _table(tmp_path)
    table.start()
    assert table.showing_hands() == {}  # the Charleston
    _charleston(table)
    assert table.showing_hands() == {"E": 14}
    assert table.observe(Observation(ObservationKind.DISCARD, "E", ("RD",)), 1_000).accepted
    assert table.showing_hands() == {}
    assert table.press(Press("W", "pung", 1_100), 1_100).accepted
    assert table.showing_hands() == {}
    assert table.press(Press("N", "mahjong", 1_200), 1_200).accepted
    assert table.showing_hands() == {"N": 14}
    table.tick(1_000 + 200_000)
    assert table.state is not None and table.state.awarded is not None
    assert table.showing_hands() == {"N": 14}


def test_two_mahjong_calls_leave_the_camera_no_single_seat_showing(tmp_path: Path) -> None:
    table = _east_discarded(tmp_path, "RD")
    assert table.press(Press("S", "mahjong", 1_100), 1_100).accepted
    assert table.press(Press("N", "mahjong", 1_200), 1_200).accepted
    assert table.showing_hands() == {}


@pytest.mark.slow
def test_american_hands_seen_through_the_rendered_camera(tmp_path: Path) -> None:
    """Seed 2 through the rendered camera (minutes: run with -m slow): a wall game, then a
    Mah Jongg on a discard. Exposures with their Jokers, the Joker exchanges, the winner's
    hand and the Charleston's passes (the backs laid, counted) reach the service as vision's
    pipeline read them; the votes and the courtesy pass come from the game. The mirror ends
    each hand as the game did (the simulation compares them)."""
    store = tmp_path / "t.sqlite3"
    summary = simulate(
        SimulationSettings(ruleset="american", hands=2, seed=2, headless=True, camera=True,
                           pause_ms=100, store=str(store))
    )
    assert summary["violations"] == 0, summary["problems"]
    assert summary["problems"] == []
    assert summary["wins"] == 1 and summary["draws"] == 1
    camera = summary["camera"]
    assert camera["observations"] > 100
    entered = camera["referee_entered_kinds"]
    assert not {"pass", "exposure", "joker_exchange", "hand_shown"} & set(entered), entered
    assert sum(camera["hands_read"].values()) == 1  # the winner's, as the camera read it
    kinds = [e["type"] for e in EventStore(store).events(0)]
    assert kinds.count("JokerExchanged") >= 2 and kinds.count("Exposed") >= 5
    assert kinds.count("CharlestonPassOffered") >= 24  # two hands' first Charlestons at least


def _discarded(table: Table) -> list[dict[str, Any]]:
    return [r for r in table.store.events_of_hand(table.hand_no) if r["type"] == "Discarded"]


def test_the_referee_amends_a_discard_the_camera_misread(tmp_path: Path) -> None:
    """The camera read E's 5B as a red dragon with confidence and the table accepted it:
    `cmd/correct` with `at` (the event's seq) replaces the command, the hand is rebuilt with
    it, and the record keeps both; a restart rebuilds the amended hand."""
    table = _east_discarded(tmp_path, "RD")
    table.tick(1_000 + 200_000)
    assert table.observe(Observation(ObservationKind.DRAW, "S"), 300_000).accepted
    at = _discarded(table)[-1]["seq"]
    fix = {"at": at, "command": {"type": "american/Discard", "seat": "E", "tile": "5B"},
           "reason": "the camera misread it"}
    result = table.command("correct", json.dumps(fix).encode(), 400_000)
    assert result["ok"], result
    assert table.public_state()["seats"]["E"]["discards"] == ["5B"]
    assert table.store.events_of_hand(table.hand_no)[-1]["type"] == "Amended"
    # Play goes on from the amended hand, and the log gives it back after a restart.
    assert table.observe(Observation(ObservationKind.DISCARD, "S", ("2D",)), 500_000).accepted
    again = _table(tmp_path)
    assert again.public_state() == table.public_state()
    assert again.public_state()["seats"]["E"]["discards"] == ["5B"]


def test_a_correction_the_rules_refuse_changes_nothing(tmp_path: Path) -> None:
    table = _east_discarded(tmp_path, "RD")
    at = _discarded(table)[-1]["seq"]
    before, seq = table.public_state(), table.seq
    # North did not discard first: East does (P-1).
    wrong = {"at": at, "command": {"type": "american/Discard", "seat": "N", "tile": "5B"},
             "reason": "misread"}
    result = table.command("correct", json.dumps(wrong).encode(), 2_000)
    assert not result["ok"] and result["rule"].startswith("American")
    assert table.public_state() == before and table.seq == seq
    # Malformed: no reason; an event that is no move; a classical command.
    for body, where in (
        ({"at": at, "command": None}, "reason"),
        ({"at": seq + 50, "command": None, "reason": "x"}, "at"),
        ({"at": at, "command": {"type": "Discard", "seat": "E", "tile": "5B"}, "reason": "x"},
         "command"),
    ):
        out = table.command("correct", json.dumps(body).encode(), 3_000)
        assert not out["ok"] and out["where"] == where, out
    assert table.public_state() == before and table.seq == seq


def test_the_simulated_referee_amends_an_american_misread_through_the_table(
    tmp_path: Path,
) -> None:
    """What `simulate --camera`'s referee sends for a discard the camera misread: the
    table's amendment of the seat's last discard."""
    table = _east_discarded(tmp_path, "RD")
    body = table.amendment("E", "7C")
    assert body is not None and body["at"] == _discarded(table)[-1]["seq"]
    assert table.command("correct", json.dumps(body).encode(), 2_000)["ok"]
    assert table.public_state()["seats"]["E"]["discards"] == ["7C"]


def test_the_seats_that_owe_a_charleston_pass_for_the_camera(tmp_path: Path) -> None:
    """The camera counts each pass from the backs its seat lays (vision/observe.py): the
    table names the seats that have not passed on this pass (CH-2), none outside it."""
    table = _table(tmp_path)
    table.start()
    assert table.passing() == {"E", "S", "W", "N"}
    assert table.observe(Observation(ObservationKind.PASS, "S", count=3), 0).accepted
    assert table.passing() == {"E", "W", "N"}
    for seat in "EWN":
        assert table.observe(Observation(ObservationKind.PASS, seat, count=3), 0).accepted
    assert table.passing() == {"E", "S", "W", "N"}  # the next pass of the Charleston
    for _ in range(2):
        for seat in "ESWN":
            table.observe(Observation(ObservationKind.PASS, seat, count=3), 0)
    assert table.state is not None and table.state.phase == "vote"
    assert table.passing() == set()
