"""Claims through the real serial path: the emulated board on a pty, the bridge's link, the
service. Two seats pressing within a millisecond: both calls carry the board's own edge
times, and the tie between equal calls goes to the earlier one (Code 1924, Law 52)."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path
from typing import Any

from config.load import parse_config
from controller.inbox import ObserveIn
from controller.inputs import Observation, ObservationKind
from controller.lights import Show
from controller.service import Service, ServiceOptions
from firmware_bridge.emulator import EmulatedBoard

from .conftest import until

PUNG = 1  # the board's button index of "pung" (board.buttons)


def test_two_seats_within_a_millisecond_on_the_board(tmp_path: Path) -> None:
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=3) as board:
        cfg = parse_config(
            tomllib.loads(
                f'[table]\nid = "b"\n[adjudication]\ncourtesy_pause_ms = 150\n'
                f'[board]\nserial = "{board.path}"\n[mqtt]\nenabled = false\n'
            )
        )
        service = Service(cfg, ServiceOptions(str(tmp_path / "s.sqlite3"), board.path))

        async def scenario() -> list[dict[str, Any]]:
            stop, ready = asyncio.Event(), asyncio.Event()
            runner = asyncio.create_task(service.run(stop, on_ready=ready.set))
            await asyncio.wait_for(ready.wait(), 10)
            await service.board.wait_up(timeout=5)
            for step in (
                Observation(ObservationKind.DICE, "E", dice=(3, 4)),
                Observation(ObservationKind.DICE, "W", dice=(2, 2)),
                Observation(ObservationKind.DEAL, None),
                Observation(ObservationKind.DISCARD, "E", ("5C",)),
            ):
                assert (await service.submit(ObserveIn(step))).accepted
            # North first, West 300 µs later by the board's clock.
            board.press_together([(3, PUNG), (2, PUNG)], apart_us=300)
            await until(
                lambda: any(e["type"] == "ClaimsClosed" for e in service.store.events()),
                what="the adjudication",
            )
            events = list(service.store.events())
            rtt_us.append(service.board.status().rtt_us or 0)
            stop.set()
            await runner
            return events

        rtt_us: list[int] = []
        events = asyncio.run(scenario())
    north, west = (e for e in events if e["type"] == "ClaimMade")
    assert (north["seat"], west["seat"]) == ("N", "W")
    assert west["time_us"] - north["time_us"] == 300  # the board's edge times, not arrivals
    decision = next(e for e in events if e["type"] == "ClaimsClosed")
    assert decision["winner"] == "N" and decision["rule"] == "Code 1924, Law 52"
    # The log alone shows the window: opened by the discard, both presses inside it, closed
    # after the courtesy pause (150 ms here).
    discard = next(e for e in events if e["type"] == "Discarded")
    assert decision["opened_us"] == discard["time_us"]
    assert decision["opened_us"] < north["time_us"] <= west["time_us"] < decision["closed_us"]
    assert decision["closed_us"] - decision["opened_us"] >= 150_000
    # Board times reach the host clock through an offset known to within half the round trip
    # it was measured on: a latency can read that much below zero on a loaded host, no more.
    slack_ms = rtt_us[0] / 2000 + 0.05
    assert service.press_to_led_ms and all(ms >= -slack_ms for ms in service.press_to_led_ms)
    shown = [(s.pattern.show, s.pattern.seat) for s in service.lights.history]
    assert (Show.CLAIM_WON, "N") in shown and (Show.CLAIM_REFUSED, "W") in shown
