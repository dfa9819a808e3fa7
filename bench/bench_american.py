"""Benchmarks for American card matching (targets from issue 4).

    .venv/bin/python bench/bench_american.py [--hands 300]

Measures, on a 60-line card made of the sample card and generated lines:
* compiling the card cold (parse, lint, expand) and loading it from the hash-keyed cache
  (target: load <= 200 ms);
* checking one hand against the whole card (target: median <= 2 ms);
* tiles-away for every line (target: median <= 20 ms);
* a whole `mjtable card check` process, start to answer (target: <= 0.3 s);
* whole simulated hands on the sample card (bots, invariants and the mirror cross-check).
Prints one JSON object. Medians, never single runs: the machine is shared and noisy.

    .venv/bin/python bench/bench_american.py --against REV [--hands 20]

instead times the engine's ``apply()``, each call alone, as the bots play whole hands on the
sample card (full mode, and the mirror each hand is cross-checked with), with this tree's engine
and with the engine of git revision REV side by side: the two alternate in fresh processes,
three rounds, the best median of each kept; the ratios are what to quote.
"""

from __future__ import annotations

import argparse
import io
import json
import os
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

from config.cards import SAMPLE_CARD, load_card  # noqa: E402
from engine.american.card import CompiledCard, compile_card  # noqa: E402
from engine.american.match import Hand, make_hand, matches, tiles_away  # noqa: E402
from engine.tiles import FLOWER, JOKER, tile_name  # noqa: E402


def sixty_line_card() -> str:
    """The sample card's lines plus generated ones, 60 in all."""
    text = SAMPLE_CARD.read_text()
    rng = random.Random(7)
    extra: list[str] = ["section GN \"Generated\""]
    shapes = [
        "{n}{n}{n}{n}a {m}{m}{m}b {p}{p}{p}{p}c FFF",
        "XXXX0a YYYY0b {n}{n}{n}c NNN",
        "FF XXX0a XXX1a XXXX2b YY0c ; X~Y",
        "ZZZZ UUU XXXX0a {n}{n}{n}b",
        "DDD* XXXX0a XXXX1b XXX2c",
        "NEWS XXX0a XXX0b XXXX0c",
        "{n}{n}a {m}{m}{m}a {p}{p}{p}{p}a DDDa DDb",
        "X0X1X2X3a YYYY0b YYYY0c FF",
    ]
    count = 0
    while len([line for line in text.splitlines() + extra if "-" in line[:6]]) < 60:
        count += 1
        n, m, p = rng.sample(range(1, 10), 3)
        shape = shapes[count % len(shapes)].format(n=n, m=m, p=p)
        extra.append(f"GN-{count} X {25 + 5 * (count % 4)} : {shape}")
    return text + "\n".join(extra) + "\n"


def random_hand(rng: random.Random, card_tiles: list[list[int]], size: int) -> Hand:
    while True:
        tiles = list(rng.choice(card_tiles))
        for _ in range(rng.randrange(0, 5)):
            tiles[rng.randrange(14)] = rng.choice([*range(34), FLOWER, JOKER])
        rng.shuffle(tiles)
        try:
            return make_hand(tiles[:size])
        except ValueError:
            continue


def exposed_hand(rng: random.Random, card: CompiledCard) -> Hand:
    """A hand near some line with one of its sets exposed (sometimes with a Joker)."""
    while True:
        exp = rng.choice(card.expansions)
        if not exp.groups:
            continue
        tile, size, jokers = rng.choice(exp.groups)
        tiles = exp.tiles()
        for _ in range(size):
            tiles.remove(tile)
        shown = [tile] * size
        if jokers and rng.random() < 0.5:
            shown[-1] = JOKER
        for _ in range(rng.randrange(0, 3)):
            tiles[rng.randrange(len(tiles))] = rng.randrange(34)
        try:
            return make_hand(tiles, [shown])
        except ValueError:
            continue


# Run in a fresh process with the engine to measure first on the path. The bots' own ``apply``
# is wrapped, so the same code times an engine from before ``apply`` returned the hand after.
_APPLY_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from config.cards import SAMPLE_CARD, load_card
import engine.american.bots as bots
samples = []
inner, clock = bots.apply, time.perf_counter_ns
def timed(state, command):
    t0 = clock()
    try:
        return inner(state, command)
    finally:
        samples.append(clock() - t0)
bots.apply = timed
card, hands = load_card(SAMPLE_CARD), int(sys.argv[2])
c0 = time.process_time()
summary = bots.play_hands(card, hands, seed=1)
cpu = time.process_time() - c0
samples.sort()
print(json.dumps({"calls": len(samples), "median_us": samples[len(samples) // 2] / 1000,
                  "p99_us": samples[int(len(samples) * 0.99)] / 1000,
                  "hands_per_cpu_s": hands / cpu, "violations": summary["violations"]}))
"""


def compare_apply(rev: str, hands: int, rounds: int = 3) -> dict[str, object]:
    """``apply()`` per call and hands per CPU-second, best of ``rounds``, at REV and here."""
    best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", "--format=tar", rev, "engine"], cwd=ROOT,
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        for _ in range(rounds):
            for side, root in (("before", tmp), ("after", str(ROOT))):
                run = subprocess.run([sys.executable, "-c", _APPLY_CHILD, root, str(hands)],
                                     cwd=ROOT, check=True, capture_output=True, text=True)
                got = json.loads(run.stdout)
                assert got["violations"] == 0, got
                row = best[side]
                for key in ("median_us", "p99_us"):
                    row[key] = min(row.get(key, float("inf")), got[key])
                row["hands_per_cpu_s"] = max(row.get("hands_per_cpu_s", 0.0),
                                             got["hands_per_cpu_s"])
                row["calls"] = got["calls"]
    ratios = {key: round(best["after"][key] / best["before"][key], 2)
              for key in ("median_us", "p99_us", "hands_per_cpu_s")}
    return {"against": rev, "load_average": list(os.getloadavg()), "hands": hands,
            "before": {k: round(v, 2) for k, v in best["before"].items()},
            "after": {k: round(v, 2) for k, v in best["after"].items()},
            "ratio_after_over_before": ratios}


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def _p95_ms(times: list[float]) -> float:
    return round(sorted(times)[int(0.95 * len(times))] * 1000, 3)


def _card_times(text: str, path: Path) -> tuple[CompiledCard, dict[str, object]]:
    """The sixty-line card compiled cold and loaded from the cache."""
    cold = []
    for _ in range(3):
        t = time.perf_counter()
        compiled, problems = compile_card(text)
        cold.append(time.perf_counter() - t)
    assert compiled is not None, [str(p) for p in problems if p.severity == "error"]
    load_card(path)  # fills the cache
    warm = []
    for _ in range(20):
        t = time.perf_counter()
        card = load_card(path)
        warm.append(time.perf_counter() - t)
    return card, {"lines": len(card.lines), "expansions": len(card.expansions),
                  "compile_cold_ms": median_ms(cold), "load_cached_ms": median_ms(warm)}


def _check_times(card: CompiledCard, hands: list[Hand]) -> tuple[list[float], list[float], int]:
    """Each hand checked against the card and its tiles away; how many were complete."""
    check_times, away_times = [], []
    complete = 0
    for hand in hands:
        t = time.perf_counter()
        found = matches(card, hand)
        check_times.append(time.perf_counter() - t)
        complete += bool(found)
        t = time.perf_counter()
        tiles_away(card, hand)
        away_times.append(time.perf_counter() - t)
    return check_times, away_times, complete


def _hand_reports(card: CompiledCard, rng: random.Random, count: int) -> dict[str, object]:
    report: dict[str, object] = {}
    realisations = [e.tiles() for e in card.expansions]
    for size in (14, 13):
        hands = [random_hand(rng, realisations, size) for _ in range(count)]
        check_times, away_times, complete = _check_times(card, hands)
        report[f"hands_{size}"] = {
            "hands": len(hands), "complete": complete,
            "check_median_ms": median_ms(check_times),
            "check_p95_ms": _p95_ms(check_times),
            "tiles_away_median_ms": median_ms(away_times),
            "tiles_away_p95_ms": _p95_ms(away_times),
        }
    exposed = [exposed_hand(rng, card) for _ in range(count)]
    check_times, away_times, _ = _check_times(card, exposed)
    report["hands_with_an_exposure"] = {
        "hands": len(exposed), "check_median_ms": median_ms(check_times),
        "tiles_away_median_ms": median_ms(away_times),
        "tiles_away_p95_ms": _p95_ms(away_times),
    }
    return report


def _process_times(card: CompiledCard, path: Path) -> dict[str, object]:
    """`mjtable card check` as its own process, beside a bare Python's start."""
    realisations = [e.tiles() for e in card.expansions]
    hand = [tile_name(t) for t in realisations[len(realisations) // 2]]
    mjtable = [sys.executable, "-c", "import sys; from controller.cli import main; "
               "sys.exit(main())"]
    command = [*mjtable, "card", "check", "--card", str(path), *hand]
    bare = [sys.executable, "-c", "pass"]
    runs, baseline = [], []
    for _ in range(10):
        t = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        runs.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run(bare, check=True, capture_output=True)
        baseline.append(time.perf_counter() - t)
    return {"card_check_median_s": round(statistics.median(runs), 3),
            "python_startup_median_s": round(statistics.median(baseline), 3)}


def _play_times() -> dict[str, object]:
    from engine.american.family import play

    t = time.perf_counter()
    summary = play("american", 20, seed=1, card=load_card(SAMPLE_CARD))  # no log
    elapsed = time.perf_counter() - t
    return {"hands": summary["hands"], "violations": summary["violations"],
            "seconds_per_hand": round(elapsed / summary["hands"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--against", metavar="REV",
                        help="time apply() with this tree's engine beside the engine at git REV")
    args = parser.parse_args()
    if args.against:
        print(json.dumps(compare_apply(args.against, min(args.hands, 20)), indent=2))
        return
    text = sixty_line_card()
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp
        path = Path(tmp) / "sixty.card"
        path.write_text(text)
        card, report["card"] = _card_times(text, path)
        report.update(_hand_reports(card, random.Random(2026), args.hands))
        report["process"] = _process_times(card, path)
        report["play"] = _play_times()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
