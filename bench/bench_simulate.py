"""`mjtable simulate --headless`: whole hands of the simulated table per second, per ruleset.

Each run is a fresh `mjtable simulate --headless --hands N --seed S --ruleset R` process (the
emulated board, the bots' world, the service, a broker); the figures are hands per wall-clock
second (mostly the courtesy pauses the table waits out) and hands per CPU-second of the
process and its children (the broker included). With ``--against REV`` the tree at git REV is
unpacked beside this one and run with the same virtualenv (``PYTHONPATH`` pointing at each in
turn), the two alternating run by run, and each run's events and totals compared: a seeded
table must play the same game in both. Beside it, the world alone (the bots' hands turned into
steps, no service) in a fresh process per tree: hands per CPU-second and the steps made.

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


# The world alone, in a fresh process on the tree at argv[1]; a tree from before the one world
# plays its family's own world class.
_WORLD_CHILD = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from engine.seats import Seat
ruleset, hands, seed = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    from controller.families import world_for
except ImportError:
    world_for = None
def world(rng, hand):
    if world_for is not None:
        return world_for(ruleset, rng, prevailing=Seat.E, hand=hand)
    if ruleset.startswith("american"):
        from config.cards import default_card
        from controller.american_world import AmericanHandWorld
        from engine.american.family import options_for
        card = default_card()
        return AmericanHandWorld(card, options_for(ruleset, card), rng)
    from controller.world import SimulatedHand
    from engine.rules import get_ruleset
    return SimulatedHand(get_ruleset(ruleset), rng, Seat.E, hand)
world(random.Random(0), 1)  # imports and the card's first load are not the world's pace
rng, steps = random.Random(seed), 0
c0 = time.process_time()
for hand in range(1, hands + 1):
    steps += sum(1 for _ in world(rng, hand).steps())
cpu = time.process_time() - c0
print(json.dumps({"hands_per_cpu_s": hands / cpu, "steps": steps}))
"""


def world_once(root: Path, ruleset: str, hands: int, seed: int) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-c", _WORLD_CHILD, str(root), ruleset, str(hands),
                          str(seed)], cwd=root, capture_output=True, text=True, check=True,
                         timeout=900)
    got: dict[str, Any] = json.loads(run.stdout)
    return got


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
            out[ruleset]["world_alone"] = _world_rows(sides, ruleset, hands * 5, seed, rounds)
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


def _world_rows(sides: dict[str, Path], ruleset: str, hands: int, seed: int,
                rounds: int) -> dict[str, Any]:
    got: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    for r in range(rounds):
        for side in (("before", "after") if r % 2 == 0 else ("after", "before")):
            got[side].append(world_once(sides[side], ruleset, hands, seed))
    rates = {side: [round(g["hands_per_cpu_s"], 2) for g in runs] for side, runs in got.items()}
    return {"hands": hands, "hands_per_cpu_s": rates,
            "ratio_after_over_before": round(statistics.median(rates["after"])
                                             / statistics.median(rates["before"]), 3),
            "same_steps": len({g["steps"] for runs in got.values() for g in runs}) == 1}


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
