"""`mjtable simulate --headless`: whole hands of the simulated table per second, per ruleset.

Each run is a fresh `mjtable simulate --headless --hands N --seed S --ruleset R` process (the
emulated board, the bots' world, the service, a broker); the figures are hands per wall-clock
second (mostly the courtesy pauses the table waits out) and hands per CPU-second of the
process and its children (the broker included). With ``--against REV`` the tree at git REV is
unpacked beside this one and run with the same virtualenv (``PYTHONPATH`` pointing at each in
turn), the two alternating run by run, and each run's events and totals compared: a seeded
table must play the same game in both.

    .venv/bin/python bench/bench_simulate.py --against REV [--hands 6] [--rounds 3]
        [--ruleset classical --ruleset american]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "controller", "engine", "firmware_bridge", "vision")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(root: Path, ruleset: str, hands: int, seed: int) -> dict[str, Any]:
    """One `mjtable simulate --headless` process on the tree at ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    cpu, wall = _children_cpu(), time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--headless", "--hands",
         str(hands), "--seed", str(seed), "--ruleset", ruleset],
        cwd=root, env=env, capture_output=True, text=True, timeout=900)
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    if run.returncode not in (0, 1):
        raise RuntimeError(f"simulate at {root} failed: {run.stderr[-2000:]}")
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    return {"wall_s": wall, "cpu_s": cpu, "hands": summary["hands"],
            "events": summary["events"], "totals": summary["totals"],
            "violations": summary["violations"]}


def _unpack(rev: str, into: str) -> Path:
    archive = subprocess.run(["git", "archive", "--format=tar", rev, *PACKAGES], cwd=ROOT,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return Path(into)


def compare(rev: str, rulesets: list[str], hands: int, seed: int,
            rounds: int) -> dict[str, Any]:
    """Both trees, alternating (before, after, after, before, ...), ``rounds`` runs each."""
    out: dict[str, Any] = {"against": rev, "hands": hands, "seed": seed, "rounds": rounds,
                           "load_average_start": list(os.getloadavg())}
    with tempfile.TemporaryDirectory(prefix="bench-simulate-") as tmp:
        sides = {"before": _unpack(rev, tmp), "after": ROOT}
        for ruleset in rulesets:
            runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
            for r in range(rounds):
                order = ("before", "after") if r % 2 == 0 else ("after", "before")
                for side in order:
                    runs[side].append(run_once(sides[side], ruleset, hands, seed))
            out[ruleset] = _rows(runs)
    out["load_average_end"] = list(os.getloadavg())
    return out


def _rows(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for side, got in runs.items():
        row[side] = {
            "hands_per_wall_s": [round(g["hands"] / g["wall_s"], 3) for g in got],
            "hands_per_cpu_s": [round(g["hands"] / g["cpu_s"], 3) for g in got],
            "violations": [g["violations"] for g in got],
        }
    for key in ("hands_per_wall_s", "hands_per_cpu_s"):
        before = statistics.median(row["before"][key])
        row[f"{key}_ratio_after_over_before"] = round(
            statistics.median(row["after"][key]) / before, 3)
    games = {json.dumps([g["events"], g["totals"]]) for got in runs.values() for g in got}
    row["same_game"] = len(games) == 1
    row["events"] = runs["after"][0]["events"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", metavar="REV", help="the tree to compare with")
    parser.add_argument("--ruleset", action="append", help="repeatable; classical, american")
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rulesets = args.ruleset or ["classical", "american"]
    if args.against:
        report = compare(args.against, rulesets, args.hands, args.seed, args.rounds)
    else:
        report = {r: _rows({"before": [run_once(ROOT, r, args.hands, args.seed)],
                            "after": [run_once(ROOT, r, args.hands, args.seed)]})
                  for r in rulesets}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
