"""The console's costs, measured beside what the table already does at the same moment:

- rebuilding the page's feed from the log when the service starts (the hand in play's
  messages derived again from its records) against the table's own recovery from that log;
- answering ``cmd/moves`` (the hand's moves for a correction) against ``cmd/status``.

A Code 1924 hand is played by the bots to ``--steps`` steps (short of its end) on a table
with no broker; each measure is the median of ``--repeat`` runs, the two of a pair
alternated so the machine's load falls on both alike.

    .venv/bin/python bench/bench_console.py [--steps 150] [--repeat 30] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from controller.families import world_for
from controller.inputs import Press
from controller.lights import LightLog
from controller.published import hand_in_play
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.web.feed import Feed
from controller.world import Claims
from engine.seats import Seat


def played(path: Path, steps: int) -> Table:
    table = Table(TableSettings("bench", courtesy_pause_ms=100), EventStore(path), LightLog())
    world = world_for("code1924/mixed", random.Random(7), prevailing=Seat.E, hand=1)
    now = 1_000_000
    every = list(world.steps())
    for step in every[:min(steps, len(every) - 6)]:  # the hand still in play at the end
        now += 20_000
        if isinstance(step, Claims):
            for seat, kind in step.presses:
                now += 200
                table.press(Press(seat, kind, now), now)
        else:
            table.observe(step, now)
    return table


def paired(a: Callable[[], object], b: Callable[[], object], repeat: int) -> tuple[float, float]:
    ta, tb = [], []
    for _ in range(repeat):
        for fn, out in ((a, ta), (b, tb)):
            start = time.perf_counter()
            fn()
            out.append((time.perf_counter() - start) * 1000)
    return statistics.median(ta), statistics.median(tb)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table = played(Path(tmp) / "t.sqlite3", args.steps)
        records = hand_in_play(table.store)

        def rebuild() -> None:
            feed = Feed(table.topics.base)
            feed.replay(m for r in hand_in_play(table.store) for m in table.published(r))

        rebuild_ms, recover_ms = paired(rebuild, table.recover, args.repeat)
        moves_ms, status_ms = paired(lambda: table.command("moves", b"{}", 0),
                                     lambda: table.command("status", b"{}", 0), args.repeat)
        out = {
            "hand_records": len(records), "moves": len(table.moves()),
            "feed_rebuild_ms": round(rebuild_ms, 2), "table_recover_ms": round(recover_ms, 2),
            "rebuild_over_recover": round(rebuild_ms / recover_ms, 2),
            "cmd_moves_ms": round(moves_ms, 3), "cmd_status_ms": round(status_ms, 3),
            "moves_over_status": round(moves_ms / status_ms, 2),
        }
    print(json.dumps(out))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
