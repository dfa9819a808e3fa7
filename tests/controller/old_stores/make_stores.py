"""Writes the stores in this folder: tables of each family played by the bots, cut mid-hand,
with what each table showed at the cut (``*.expected.json``). Run from a checkout of the code
whose stores the tests keep reading (with this file and ``tests/hand_feed.py`` copied in):

    PYTHONPATH=. .venv/bin/python tests/controller/old_stores/make_stores.py OUT
    gzip -9 -n OUT/*.sqlite3

(the stores here were written so by the code of the commit before the classical and American
tables became one). Each table plays with publishing on (its outbox keeps every message it
published), a referee question held, and is cut in a hand whose call window is open.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from controller.inputs import Observation, Press
from controller.scoresheet import engine_scorer
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.world import Claims, SimulatedHand, Step
from engine.rules import get_ruleset
from engine.seats import Seat
from tests.hand_feed import feed as feed_hand

PAUSE_MS = 100


def feed(table: Any, steps: list[Step], now: int, doubt: random.Random) -> int:
    def observe(table: Any, step: Observation, now: int) -> int:
        if step.kind.value == "discard" and doubt.random() < 0.1:
            # The camera unsure: held, then the referee confirms it.
            held = table.observe(Observation(step.kind, step.seat, step.tiles, 0.5,
                                             step.time_us, step.zone, step.dice, step.source,
                                             step.winning, step.count), now)
            if held.asked is not None:
                now += 1000
                table.command("confirm", json.dumps({"pending": held.asked}).encode(), now)
            return now
        table.observe(step, now)
        return now

    return feed_hand(table, steps, now, (PAUSE_MS + 100) * 1000, observe)


def cut_in_window(table: Any, steps: list[Step]) -> int:
    """How many steps to feed so that the table is left with a call window open."""
    for i in range(len(steps) // 2, len(steps)):
        if isinstance(steps[i], Claims):
            return i
    return len(steps) // 2


def expected(table: Any) -> dict[str, Any]:
    return {"public_state": table.public_state(), "scores": table.scores(),
            "status": {k: v for k, v in table.status().items() if k != "outbox"},
            "moves": table.moves(), "seq": table.seq, "hand": table.hand_no}


def classical(folder: Path) -> None:
    path = folder / "classical.sqlite3"
    path.unlink(missing_ok=True)
    store = EventStore(path)
    table = Table(TableSettings("old", courtesy_pause_ms=PAUSE_MS, snapshot_every=40), store,
                  scorer=engine_scorer, wallclock=lambda: 1_800_000_000.0)
    table.start()
    now, doubt = 1_000_000, random.Random(7)
    rng = random.Random(5)
    while len(table.sheet) < 2:  # whole hands, scored
        hand = SimulatedHand(get_ruleset("code1924/mixed"), rng,
                             Seat[table.prevailing or "E"], table.hand_no)
        now = feed(table, list(hand.steps()), now, doubt)
    hand = SimulatedHand(get_ruleset("code1924/mixed"), rng, Seat[table.prevailing or "E"],
                         table.hand_no)
    steps = list(hand.steps())
    now = feed(table, steps[:cut_in_window(table, steps)], now, doubt)
    for seat, kind in steps[cut_in_window(table, steps)].presses:  # type: ignore[union-attr]
        table.press(Press(seat, kind, now + 100), now + 100)  # the window left open
    table.observe(Observation.from_json({"kind": "discard", "seat": "N", "tiles": ["7D"],
                                         "confidence": 0.3}, "x"), now + 200)  # still held
    (folder / "classical.expected.json").write_text(json.dumps(expected(table), indent=1))
    store.close()


def american(folder: Path) -> None:
    from controller.american_table import AmericanTable  # type: ignore[import-not-found]
    from controller.american_world import AmericanHandWorld

    from config.cards import default_card
    from engine.american.family import options_for

    path = folder / "american.sqlite3"
    path.unlink(missing_ok=True)
    store = EventStore(path)
    card = default_card()
    table = AmericanTable(TableSettings("old", "american", courtesy_pause_ms=PAUSE_MS),
                          store, card=card, wallclock=lambda: 1_800_000_000.0)
    table.start()
    now, doubt = 1_000_000, random.Random(7)
    rng = random.Random(11)
    while len(table.sheet) < 2:
        world = AmericanHandWorld(card, options_for("american", card), rng)
        now = feed(table, list(world.steps()), now, doubt)
    world = AmericanHandWorld(card, options_for("american", card), rng)
    steps = list(world.steps())
    cut = cut_in_window(table, steps)
    now = feed(table, steps[:cut], now, doubt)
    for seat, kind in steps[cut].presses:  # type: ignore[union-attr]
        table.press(Press(seat, kind, now + 100), now + 100)
    table.observe(Observation.from_json({"kind": "discard", "seat": "N", "tiles": ["7D"],
                                         "confidence": 0.3}, "x"), now + 200)
    (folder / "american.expected.json").write_text(json.dumps(expected(table), indent=1))
    store.close()


if __name__ == "__main__":
    out = Path(sys.argv[1])
    classical(out)
    american(out)
