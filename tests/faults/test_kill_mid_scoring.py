"""kill -9 of `mjtable run` between a hand's win and its score, and between its score and the
next hand: after the restart the hand is scored at once, with no input, exactly once, to the
score a table that never died gives (docs/reliability.md, "A hand a crash cut").

The kill is made certain: the process runs with its scorer (or the start of the next hand)
replaced by a SIGKILL of itself, so it dies exactly there, after the win is stored. Before
this was fixed the hand waited, unscored, for the next input (5-20 s at a table); a restart
between the score and the next hand then scored it a second time.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from controller.broker import LocalMosquitto
from controller.families import world_for
from controller.scoresheet import engine_scorer
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.world import Claims, Step
from engine.seats import Seat
from firmware_bridge.emulator import EmulatedBoard
from tests.faults.local_referee import LocalReferee
from tests.faults.test_end_to_end import Service
from tests.hand_feed import feed as feed_hand
from tests.waiting import wait_until

TABLE = "s1"
PAUSE_MS = 100
KILL = "import os, signal\n"
KILLED_SCORING = KILL + (
    "import controller.scoresheet as sheet\n"
    "sheet.engine_scorer = lambda doc: os.kill(os.getpid(), signal.SIGKILL)\n")
KILLED_NEXT_HAND = KILL + (
    "from controller.table import Table\n"
    "first = Table._new_hand\n"
    "def new_hand(self):\n"
    "    if self.state is not None and self.state.phase == 'ended':\n"
    "        os.kill(os.getpid(), signal.SIGKILL)\n"
    "    return first(self)\n"
    "Table._new_hand = new_hand\n")


def feed(table: Table, steps: list[Step], now: int) -> int:
    """Feed a bots' hand to ``table`` as the table would see it; the time reached."""
    return feed_hand(table, steps, now, (PAUSE_MS + 100) * 1000)


def a_won_hand(folder: Path) -> tuple[list[Step], int, dict[str, Any]]:
    """A bots' hand won at Mah-jongg, the index of the step whose input scores it, and the
    scoresheet entry of a table that never dies."""
    for seed in range(60):
        steps = list(world_for("code1924/mixed", random.Random(seed), prevailing=Seat.E,
                              hand=1).steps())
        store = EventStore(folder / f"scratch{seed}.sqlite3")
        table = Table(TableSettings("ref", courtesy_pause_ms=PAUSE_MS, publish=False), store,
                      scorer=engine_scorer)
        table.start()
        now = 1_000_000
        for i, step in enumerate(steps):
            now = feed(table, [step], now)
            if table.sheet:
                entry = table.sheet[0]
                store.close()
                if entry.get("net") and not isinstance(step, Claims):
                    return steps, i, entry
                break
        store.close()
    raise AssertionError("no bots' hand of 60 was won")


def events(store: Path) -> list[dict[str, Any]]:
    db = EventStore(store)
    try:
        return list(db.events())
    finally:
        db.close()


def of(store: Path, kind: str) -> list[dict[str, Any]]:
    return [e for e in events(store) if e["type"] == kind]


@pytest.mark.parametrize("killed", ["while scoring", "before the next hand"])
def test_a_hand_a_kill_cut_is_scored_at_once_and_once_on_restart(
    tmp_path: Path, broker: LocalMosquitto, killed: str
) -> None:
    steps, last, expected = a_won_hand(tmp_path)
    store = tmp_path / "table.sqlite3"
    db = EventStore(store)  # the hand up to its last input, as the table logged it
    table = Table(TableSettings(TABLE, courtesy_pause_ms=PAUSE_MS, publish=False), db,
                  scorer=engine_scorer)
    table.start()
    feed(table, steps[:last], 1_000_000)
    db.close()
    config = tmp_path / "table.toml"
    board = EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=3)
    board.start()
    config.write_text(
        f'[table]\nid = "{TABLE}"\n[adjudication]\ncourtesy_pause_ms = {PAUSE_MS}\n'
        f'[board]\nserial = "{board.path}"\n[camera]\nsource = "none"\n'
        f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n[store]\npath = "{store}"\n')
    referee = LocalReferee(broker, TABLE)
    service = Service(config, store)
    try:
        service.start(KILLED_SCORING if killed == "while scoring" else KILLED_NEXT_HAND)
        referee.send("observe", steps[last].to_json())  # the input that ends the hand ...
        assert service.proc is not None
        service.proc.wait(timeout=20)  # ... and the process dies scoring it
        assert of(store, "HandEnded")
        assert len(of(store, "HandScored")) == (killed == "before the next hand")
        assert not [e for e in of(store, "HandStarted") if e["hand"] == 2]

        service.start()  # no input from here on
        assert wait_until(lambda: any(e["hand"] == 2 for e in of(store, "HandStarted")), 10), \
            "the hand the kill cut was not finished at the restart"
    finally:
        service.stop()
        referee.close()
        board.stop()
    scored = of(store, "HandScored")
    assert len(scored) == 1, "scored twice"
    assert (scored[0]["net"], scored[0]["winner"]) == (expected["net"], expected["winner"])
    assert [e["hand"] for e in of(store, "HandStarted")] == [1, 2]


class Killed(BaseException):
    """The process dying at this point (nothing after it runs, nothing is rolled back that
    was committed)."""


def test_an_american_hand_settled_but_not_booked_is_booked_at_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """American CH-7: a pass counted short throws the hand in; the process dies before the
    scoresheet entry. The restarted table books it at once (it refused every input
    before: the hand is settled), and a second restart books nothing twice."""
    from config.cards import default_card
    from controller.inputs import Observation, ObservationKind

    def table() -> Table:
        settings = TableSettings("t", "american", courtesy_pause_ms=100, publish=False)
        return Table(settings, EventStore(str(tmp_path / "t.sqlite3")),
                             card=default_card())

    first = table()
    first.start()

    def dies(self: Table) -> list[dict[str, Any]]:
        raise Killed

    monkeypatch.setattr(Table, "_finish_hand", dies)
    with pytest.raises(Killed):
        first.observe(Observation(ObservationKind.PASS, "E", count=2), 0)
    monkeypatch.undo()
    first.store.close()
    assert not of(tmp_path / "t.sqlite3", "HandScored")

    again = table()
    again.start()
    assert [e["result"] for e in of(tmp_path / "t.sqlite3", "HandScored")] == ["redeal"]
    assert again.hand_no == 2 and again.sheet[-1]["rule"] == "American CH-7"
    again.store.close()
    third = table()
    third.start()
    assert len(of(tmp_path / "t.sqlite3", "HandScored")) == 1 and third.hand_no == 2
    third.store.close()
