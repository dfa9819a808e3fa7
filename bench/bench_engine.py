"""Engine benchmarks (issue 2): run `python bench/bench_engine.py [--hands N]`.

1. One `apply()` in mirror mode: the commands of real bot hands replayed into mirror hands,
   each call timed alone; median and p99 (targets: 50 us and 500 us).
2. Whole bot hands per second per ruleset (target >= 300), with the per-command invariant
   checks off (as a table service's simulator runs them) and on (as `mjtable play` does,
   which also rebuilds and mirrors every hand).
3. `mjtable play --hands 1` wall time, start-up included (target < 0.5 s).

The machine is shared and noisy: numbers are medians, and the JSON line at the end is what to
quote. `--against REV` instead compares whole bot hands per CPU-second of this tree's engine
with the engine of git revision REV side by side: the two run alternately in fresh processes,
three rounds, best of each kept, and the ratios are what to quote.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import commands as cm  # noqa: E402
from engine import events as ev  # noqa: E402
from engine.game import apply, commands_of, new_hand  # noqa: E402
from engine.rules import RULESETS, get_ruleset  # noqa: E402
from engine.simulate import default_bots, play_hand  # noqa: E402


def mirror_commands(state: object) -> list[cm.Command]:
    """The commands a table would send for this hand (no hidden tiles)."""
    out: list[cm.Command] = []
    standing = state.standing  # type: ignore[attr-defined]
    for _, command in commands_of(standing):
        if isinstance(command, cm.Draw):
            command = cm.Draw(seat=command.seat)
        elif isinstance(command, cm.Claim):
            command = cm.Claim(seat=command.seat, kind=command.kind, time_us=1,
                               into_sequence=command.into_sequence)  # "Chow" (Harr F 4)
        elif isinstance(command, cm.WashTiles):
            washed = next(e for e in standing if isinstance(e, ev.TilesWashed))
            command = cm.WashTiles(seat=command.seat, concealed=washed.concealed)
        elif isinstance(command, cm.DeclareMahjong):
            shown = next(e for e in standing
                         if isinstance(e, ev.MahjongDeclared | ev.FalseMahjong))
            tile = shown.win_tile if isinstance(shown, ev.MahjongDeclared) else shown.tile
            command = cm.DeclareMahjong(seat=command.seat, concealed=shown.concealed, tile=tile)
        out.append(command)
    return out


def bench_apply(hands: int) -> dict[str, float]:
    samples: list[int] = []
    for name in RULESETS:
        rules = get_ruleset(name)
        rng = random.Random(99)
        bots = default_bots(rng)
        for _ in range(hands):
            full = play_hand(rules, rng, bots, checks=False, cross_check=False).state
            commands = mirror_commands(full)
            state, _ = new_hand(rules, "mirror", prevailing=full.prevailing)
            clock = time.perf_counter_ns
            for command in commands:
                t0 = clock()
                apply(state, command)
                samples.append(clock() - t0)
    samples.sort()
    return {
        "calls": len(samples),
        "median_us": round(samples[len(samples) // 2] / 1000, 2),
        "p99_us": round(samples[int(len(samples) * 0.99)] / 1000, 2),
        "max_us": round(samples[-1] / 1000, 1),
    }


def bench_hands(hands: int, checks: bool) -> dict[str, dict[str, float]]:
    """Hands per second of wall time and of this process's CPU time (on a shared machine the
    CPU-time rate is what an idle Pi core would see)."""
    out = {}
    for name in RULESETS:
        rules = get_ruleset(name)
        rng = random.Random(5)
        bots = default_bots(rng)
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(hands):
            play_hand(rules, rng, bots, checks=checks, cross_check=checks)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[name] = {"wall": round(hands / wall, 1), "cpu": round(hands / cpu, 1)}
    return out


def bench_cli(runs: int) -> dict[str, float]:
    exe = [sys.executable, "-m", "controller.cli", "play", "--hands", "1"]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(exe, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return {"median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3)}


# Run in a fresh process with the engine to measure first on the path.
_CHILD = """
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from engine.rules import RULESETS, get_ruleset
from engine.simulate import default_bots, play_hand
hands, checks = int(sys.argv[2]), sys.argv[3] == "1"
out = {}
for name in RULESETS:
    rules = get_ruleset(name)
    rng = random.Random(5)
    bots = default_bots(rng)
    c0 = time.process_time()
    for _ in range(hands):
        play_hand(rules, rng, bots, checks=checks, cross_check=checks)
    out[name] = hands / (time.process_time() - c0)
print(json.dumps(out))
"""


def _engine_at(rev: str, into: Path) -> None:
    """Unpack ``engine/`` as of git revision ``rev`` into ``into``."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "engine"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def compare(rev: str, hands: int, checks: bool, rounds: int = 3) -> dict[str, dict[str, float]]:
    """Hands per CPU-second, best of ``rounds``, for REV's engine and this tree's."""
    best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
    with tempfile.TemporaryDirectory() as tmp:
        _engine_at(rev, Path(tmp))
        for _ in range(rounds):
            for side, root in (("before", tmp), ("after", str(ROOT))):
                run = subprocess.run(
                    [sys.executable, "-c", _CHILD, root, str(hands), "1" if checks else "0"],
                    check=True, capture_output=True, text=True)
                for name, rate in json.loads(run.stdout).items():
                    best[side][name] = max(best[side].get(name, 0.0), rate)
    return best


def main_compare(rev: str, hands: int) -> None:
    result: dict[str, object] = {"load_average": list(__import__("os").getloadavg()),
                                 "against": rev}
    for label, checks, n in (("hands_per_cpu_s", False, hands),
                             ("hands_per_cpu_s_checked", True, max(1, hands // 4))):
        best = compare(rev, n, checks)
        rows = {name: {"before": round(best["before"][name], 1),
                       "after": round(best["after"][name], 1),
                       "ratio": round(best["after"][name] / best["before"][name], 2)}
                for name in best["after"]}
        result[label] = rows
        print(label + (" (every check)" if checks else ""))
        for name, row in rows.items():
            print(f"  {name:22s} {row['before']:7.1f} -> {row['after']:7.1f}  x{row['ratio']}")
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per ruleset")
    parser.add_argument("--against", metavar="REV",
                        help="compare hands per CPU-second with the engine at git REV")
    args = parser.parse_args()
    if args.against:
        main_compare(args.against, args.hands)
        return
    apply_mirror = bench_apply(max(1, args.hands // 10))
    hands_per_s = bench_hands(args.hands, checks=False)
    hands_per_s_checked = bench_hands(max(1, args.hands // 4), checks=True)
    play_1_hand = bench_cli(5)
    result: dict[str, object] = {
        "load_average": list(__import__("os").getloadavg()),
        "apply_mirror": apply_mirror,
        "hands_per_s": hands_per_s,
        "hands_per_s_checked": hands_per_s_checked,
        "play_1_hand": play_1_hand,
    }
    a = apply_mirror
    print(f"apply() mirror: median {a['median_us']} us, p99 {a['p99_us']} us "
          f"over {a['calls']} calls (targets 50 / 500)")
    for name, rate in hands_per_s.items():
        checked = hands_per_s_checked[name]
        print(f"{name:22s} {rate['wall']:7.1f} hands/s wall, {rate['cpu']:7.1f} per CPU-s"
              f"   (every check: {checked['wall']} wall, {checked['cpu']} per CPU-s)")
    print(f"mjtable play --hands 1: median {play_1_hand['median_s']} s")
    print(json.dumps(result))

if __name__ == "__main__":
    main()
