"""The live table side by side with another tree (numbers for the README; never asserted).

1. The end of a won hand inside the service, in process: the table's settlement of a won
   hand it mirrored (its `mjtable score` document scored by the engine's scorer, the
   scoresheet entry written; target < 1 ms), and the whole end (settlement, the entry stored
   and published, the next hand begun).
2. Press to LED in `mjtable simulate` (bench_service.py's latency run, `bench_latency(10, 1)`).

Each tree runs in a fresh process of its own virtualenv, the trees alternating round by round
(this, other, other, this, ...), so that the load of a shared machine falls on both alike:

    .venv/bin/python bench/bench_table.py --against ../base [--rounds 4] [--wins 300]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


def _won_hands(n: int) -> list[Any]:
    """Won hands as the service's mirror holds them at their end (bench_score.py's)."""
    sys.path.insert(0, str(HERE.parent))
    from bench_score import mirrored_wins

    return mirrored_wins(n)


def _settler(table: Any) -> Any:
    """The table's settlement of the hand in play, as this tree's table makes it."""
    part = getattr(table, "part", None)
    if part is not None:
        return part.settle
    from controller.scoresheet import net_of  # a table before the parts: its own steps

    def settle() -> dict[str, Any]:
        state = table.state
        players = table.players_before_rotation(state)
        result = table.score(state, table.losers_shown)
        winner = None if state.winner is None else state.winner.name
        net = net_of(result)
        return dict(table.scorekeeper.entry(state.result, winner, state.end_rule, players, net,
                                            result.get("payments", []), result))
    return settle


def measure_end_of_hand(wins: int) -> dict[str, float]:
    from controller.scoresheet import engine_scorer
    from controller.store import EventStore
    from controller.table import Table, TableSettings

    hands = _won_hands(wins)
    settle_ms, end_ms = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tables: dict[str, Any] = {}
        for i, state in enumerate(hands):
            name = state.ruleset.name
            if name not in tables:
                settings = TableSettings("bench", name, publish=True)
                tables[name] = Table(settings, EventStore(f"{tmp}/{len(tables)}.sqlite3"),
                                     scorer=engine_scorer)
                tables[name].start()
            table = tables[name]
            table.state = state.copy()
            start = time.perf_counter()
            entry = _settler(table)()
            settle_ms.append((time.perf_counter() - start) * 1000)
            assert "net" in entry, entry
            if i % 3 == 0:  # the whole end, on a third of them (it writes the store)
                table.state = state.copy()
                start = time.perf_counter()
                table._finish_hand()
                end_ms.append((time.perf_counter() - start) * 1000)
    return {"settle_median_ms": statistics.median(settle_ms),
            "settle_p99_ms": sorted(settle_ms)[int(len(settle_ms) * 0.99)],
            "end_median_ms": statistics.median(end_ms), "hands": len(hands)}


def measure_latency() -> dict[str, Any]:
    sys.path.insert(0, str(HERE.parent))
    from bench_service import bench_latency

    return bench_latency(10, 1)


def _in_tree(tree: Path, what: str, wins: int) -> dict[str, Any]:
    python = tree / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([str(python), str(HERE), "--measure", what, "--wins", str(wins)],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="the other tree (its own .venv)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--wins", type=int, default=300)
    parser.add_argument("--latency", action="store_true", help="also press to LED (slow)")
    parser.add_argument("--measure", choices=("end", "latency"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        result = (measure_end_of_hand(args.wins) if args.measure == "end"
                  else measure_latency())
        print(json.dumps(result))
        return
    this = HERE.parent.parent
    trees = {"this": this, "other": args.against.resolve()} if args.against else {"this": this}
    rounds: list[dict[str, Any]] = []
    for r in range(args.rounds):
        order = list(trees) if r % 2 == 0 else list(reversed(trees))
        for what in ("end", "latency") if args.latency else ("end",):
            for name in order:
                load = os.getloadavg()[0]
                result = _in_tree(trees[name], what, args.wins)
                rounds.append({"round": r, "tree": name, "what": what,
                               "load": round(load, 1), **result})
                print(json.dumps(rounds[-1]), flush=True)


if __name__ == "__main__":
    main()
