"""The club database's fold rate: events stored and folded per second, SQLite against
PostgreSQL side by side in one run, one hub and two hubs on one database.

Real simulated games (one American game, 4 hands) replayed for TABLES tables, interleaved as a
club broker would deliver them. "two hubs" takes every other event in each of two processes'
worth of connections (threads here) on one database, as a shared subscription would; each
table's cache is then stale at almost every game event, so the fold is rebuilt from the
stored log: the worst case for several hubs.

    .venv/bin/python bench/hub/bench_db.py            # 20 tables
    .venv/bin/python bench/hub/bench_db.py --tables 5
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hub import schema  # noqa: E402
from hub.db import open_db  # noqa: E402
from hub.ingest import Folder  # noqa: E402
from tests.hub.postgres import LocalPostgres  # noqa: E402

MJTABLE = str(Path(sys.executable).with_name("mjtable"))


def game_log(folder: Path) -> list[dict[str, Any]]:
    store = folder / "store.db"
    subprocess.run([MJTABLE, "simulate", "--headless", "--ruleset", "american", "--game",
                    "--seed", "2", "--store", str(store)], check=True, capture_output=True)
    with sqlite3.connect(store) as db:
        return [json.loads(b) for (b,) in db.execute("SELECT body FROM events ORDER BY seq")]


def stream(log: list[dict[str, Any]], tables: int) -> list[tuple[str, dict[str, Any]]]:
    return [(f"t{n:03d}", event) for event in log for n in range(tables)]


def run(target: str, events: list[tuple[str, dict[str, Any]]], hubs: int) -> float:
    db = open_db(target)
    schema.metadata.drop_all(db.engine)
    db.close()
    dbs = [open_db(target) for _ in range(hubs)]
    shares = [events[i::hubs] for i in range(hubs)]

    def work(index: int) -> None:
        folder = Folder(dbs[index])
        for table, event in shares[index]:
            folder.ingest(table, event)

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(hubs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    stored = sum(t.events for t in dbs[0].tables())
    assert stored == len(events), (stored, len(events))
    for db in dbs:
        db.close()
    return len(events) / seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalPostgres() as pg:
        log = game_log(Path(tmp))
        events = stream(log, args.tables)
        results: dict[str, Any] = {"tables": args.tables, "events": len(events)}
        for name, target in (("sqlite", str(Path(tmp) / "club.db")), ("postgresql", pg.url)):
            for hubs in (1, 2):
                rate = run(target, events, hubs)
                results[f"{name}_{hubs}hub_events_per_s"] = round(rate)
                print(f"{name:<10} {hubs} hub(s): {rate:8.0f} events/s", file=sys.stderr)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
