"""kill -9 of `mjtable run` while a call window is open, with presses in flight: after the
restart the ruling equals the ruling without the crash (docs/reliability.md, "Presses across
a crash").

East discards; South presses chow and North pung (the pung wins: Code 1924, Law 52, and
Classical alike). The crash point is made certain, not left to chance: the service is killed the
moment the discard is stored (or the moment South's claim is), and the presses are made on the
emulated board while it is dead, so the board holds them with their board times. Before this
was fixed the restarted window closed at its first tick, after at most one press: the second
was refused, or (Classical, where a window without claims closes) both were. One case kills
with both presses just made, wherever they are.

The ruling without the crash comes from a deterministic harness: the same observations and
the same presses, at the same table times, fed to a table in this process that never dies.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.broker import LocalMosquitto
from controller.families import table_for
from controller.inputs import Observation, ObservationKind, Press
from controller.store import EventStore
from controller.table import TableSettings
from engine import rulesets
from firmware_bridge.emulator import EmulatedBoard
from tests.faults.local_referee import LocalReferee
from tests.faults.test_end_to_end import Service
from tests.waiting import wait_until

TABLE = "w1"
PAUSE_MS = 3000  # room to kill the service and press while its window is still open
LATENCY_US = 100_000  # the default adjudication.press_latency_ms
SEATS = ("E", "S", "W", "N")
BUTTONS = ("chow", "pung", "kong", "mahjong")  # the board's button order (board.buttons)
OPENING = (
    Observation(ObservationKind.DICE, "E", dice=(3, 4)),  # East's throw selects West (Law 15)
    Observation(ObservationKind.DICE, "W", dice=(2, 2)),
    Observation(ObservationKind.DEAL, None),
    Observation(ObservationKind.DISCARD, "E", ("5C",)),
)


@dataclass(frozen=True)
class Made:
    """A press made on the board: seat, button, and the table time it was made."""

    seat: str
    kind: str
    at_us: int


def now_us() -> int:
    return time.monotonic_ns() // 1000


def ruling(events: list[dict[str, Any]], refused: list[tuple[str, str]]) -> dict[str, Any]:
    """What the window decided: the claims heard, the adjudication, the presses refused."""
    after = [e for e in events if e["type"] in ("ClaimMade", "ClaimsClosed")]
    return {
        "claims": [(e["seat"], e["kind"]) for e in after if e["type"] == "ClaimMade"],
        "closed": [(e["winner"], e["kind"], sorted(e["claims"]), e["rule"])
                   for e in after if e["type"] == "ClaimsClosed"],
        "refused": sorted(refused),
    }


def no_crash_ruling(folder: Path, ruleset: str, opened_us: int,
                    presses: list[Made]) -> dict[str, Any]:
    """The same discard and presses, at the same table times, to a table that never dies:
    each press arrives 2 ms after it was made, the loop ticking in between."""
    store = EventStore(folder / "reference.sqlite3")
    try:
        plays = rulesets.entry(ruleset).plays  # as the service's config reads it
        table = table_for(TableSettings("ref", ruleset=plays, courtesy_pause_ms=PAUSE_MS,
                                        publish=False), store)
        table.start()
        for step in OPENING:
            assert table.observe(step, opened_us).accepted
        refused = []
        for made in sorted(presses, key=lambda m: m.at_us):
            arrives = made.at_us + 2_000
            table.tick(arrives)
            if not table.press(Press(made.seat, made.kind, made.at_us), arrives).accepted:
                refused.append((made.seat, made.kind))
        table.tick(max(m.at_us for m in presses) + 10_000_000)
        return ruling(list(store.events()), refused)
    finally:
        store.close()


class Window:
    """`mjtable run` on the emulated board, East's discard made through the referee."""

    def __init__(self, folder: Path, broker: LocalMosquitto, board: EmulatedBoard,
                 ruleset: str) -> None:
        self.board, self.store = board, folder / "table.sqlite3"
        config = folder / "table.toml"
        config.write_text(
            f'[table]\nid = "{TABLE}"\nruleset = "{ruleset}"\n'
            f'[adjudication]\ncourtesy_pause_ms = {PAUSE_MS}\n'
            f'[board]\nserial = "{board.path}"\n[camera]\nsource = "none"\n'
            f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
            f'[store]\npath = "{self.store}"\n')
        self.referee = LocalReferee(broker, TABLE)
        self.service = Service(config, self.store)
        self.service.start()

    def observe(self, step: Observation) -> None:
        answer = self.referee.command("observe", step.to_json())
        assert answer["ok"], answer

    def events(self) -> list[dict[str, Any]]:
        db = EventStore(self.store)
        try:
            return list(db.events())
        finally:
            db.close()

    def opened_us(self) -> int:
        return int(next(e for e in self.events() if e["type"] == "Discarded")["time_us"])

    def press(self, seat: str, kind: str) -> Made:
        made = Made(seat, kind, now_us())
        self.board.click(seat=SEATS.index(seat), button=BUTTONS.index(kind))
        return made

    def ruling(self) -> dict[str, Any]:
        """The ruling so far: what is logged, and the refusals published."""
        refused = [(m["seat"], m["kind"]) for m in self.referee.on("/adjudications")
                   if m.get("type") == "refused"]
        return ruling(self.events(), refused)

    def decided(self) -> bool:
        """The window is closed and the board holds nothing more."""
        return (any(e["type"] == "ClaimsClosed" for e in self.events())
                and self.board.protocol.ring_used() == 0)

    def close(self) -> None:
        self.service.stop()
        self.referee.close()


def _claims_logged(window: Window, count: int) -> bool:
    return sum(e["type"] == "ClaimMade" for e in window.events()) >= count


# How each case kills and presses: "dead" presses are made while the service is dead.
CASES = {
    "both presses made while it is dead": ("kill", "S", "N"),
    "South's claim stored, North's press in flight": ("S", "stored", "kill", "N"),
    "North's press made after the pause": ("kill", "S", "after-pause", "N"),
    "killed with both presses just made": ("S", "N", "kill"),
}


@pytest.mark.parametrize(("ruleset", "case"), [
    *[("code1924/mixed", case) for case in CASES],
    ("classical", "both presses made while it is dead"),
])
def test_presses_in_flight_at_a_kill_get_the_ruling_without_the_crash(
    tmp_path: Path, broker: LocalMosquitto, ruleset: str, case: str,
) -> None:
    kind = {"S": "chow", "N": "pung"}
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=41) as board:
        window = Window(tmp_path, broker, board, ruleset)
        try:
            for step in OPENING:
                window.observe(step)
            opened = window.opened_us()
            deadline = opened + PAUSE_MS * 1000
            made: list[Made] = []
            for action in CASES[case]:
                if action == "kill":
                    window.service.kill9()
                elif action == "stored":
                    assert wait_until(lambda: _claims_logged(window, 1), 10)
                elif action == "after-pause":
                    assert wait_until(lambda: now_us() > deadline + LATENCY_US + 50_000, 10)
                else:
                    made.append(window.press(action, kind[action]))
            in_time = [m.at_us < deadline for m in made]
            late_case = "after-pause" in CASES[case]
            assert in_time == [True, not late_case], "the test was too slow for its window"
            expected = no_crash_ruling(tmp_path, ruleset, opened, made)
            window.service.start()
            assert wait_until(window.decided, 30), "no adjudication"
            wait_until(lambda: window.ruling() == expected, 5)  # refusals are published
            assert window.ruling() == expected
        finally:
            window.close()
    # Each claim was judged by when it was made on the board, not when it arrived.
    logged = {(e["seat"], e["kind"]): e["time_us"] for e in window.events()
              if e["type"] == "ClaimMade"}
    for m in made:
        if (m.seat, m.kind) in logged:
            assert abs(logged[(m.seat, m.kind)] - m.at_us) < 50_000, (m, logged)
    if not late_case:
        assert expected["closed"][0][0] == "N"  # the pung beats the chow (Code 1924, Law 52)
