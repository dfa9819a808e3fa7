"""Scoring one finished hand in-process (best arrangement, items, settlement of all four seats),
the table service scoring the won hands it mirrored, and the wall time of a whole `mjtable
score` process.

Run: `.venv/bin/python bench/bench_score.py [--hands N] [--procs N]`. Targets (issue 3): median
<= 1 ms per hand in-process; `mjtable score` <= 0.3 s per process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from engine.scoring import RULESETS, score_hand

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "scoring"))
from test_settlement_properties import _deal  # noqa: E402  (the same random hands the tests use)


def hands(n: int) -> list[dict[str, Any]]:
    rng = random.Random(1924)
    names = sorted(RULESETS)
    return [_deal(rng, names[i % len(names)]) for i in range(n)]


def in_process(docs: list[dict[str, Any]]) -> list[float]:
    times = []
    for doc in docs:
        start = time.perf_counter()
        score_hand(doc)
        times.append(time.perf_counter() - start)
    return times


def mirrored_wins(n: int) -> list[Any]:
    """Won hands as the service's mirror holds them at their end: bots play whole hands and
    a mirror is fed only what the table shows (engine.simulate.mirror_of)."""
    from engine.rules import RULESETS as PLAYABLE
    from engine.simulate import default_bots, mirror_of, play_hand

    rng = random.Random(82)
    names = sorted(PLAYABLE)
    wins: list[Any] = []
    while len(wins) < n:
        outcome = play_hand(PLAYABLE[names[len(wins) % len(names)]], rng, default_bots(rng),
                            checks=False, cross_check=False)
        if outcome.state.result == "mahjong":
            wins.append(mirror_of(outcome.state))
    return wins


def in_service(states: list[Any]) -> list[float]:
    """What the table does with a won hand: its scoring document, scored in process."""
    from controller.scoresheet import engine_scorer, hand_document

    times = []
    for state in states:
        start = time.perf_counter()
        doc = hand_document(state, {})
        assert doc is not None
        result = engine_scorer(doc)
        times.append(time.perf_counter() - start)
        assert "net" in result, result
    return times


def american(n: int) -> list[float]:
    """score_american on complete hands: natural realisations of random lines of the sample
    card, some with a Joker in place of a natural in a set, won on a discard."""
    from config.cards import SAMPLE_CARD, load_card
    from engine.american.scoring import score_american
    from engine.tiles import tile_name

    card = load_card(SAMPLE_CARD)
    rng = random.Random(2026)
    docs = []
    for _ in range(n):
        exp = card.expansions[rng.randrange(len(card.expansions))]
        tiles = [tile_name(t) for t in exp.tiles()]
        jokerable = [tile_name(t) for t, _ in exp.jok]
        for name in set(tiles) - {"F"}:  # a quint or sextet needs Jokers (S-5)
            while tiles.count(name) > 4:
                tiles[tiles.index(name)] = "J"
        if jokerable and rng.random() < 0.5 and set(jokerable) & set(tiles):
            tiles[tiles.index(rng.choice(sorted(set(jokerable) & set(tiles))))] = "J"
        docs.append({"ruleset": "american", "hands": {"S": {"tiles": tiles}}, "winner": "S",
                     "win": {"by": "discard", "from": "W"}})
    times = []
    for doc in docs:
        start = time.perf_counter()
        score_american(doc, card)
        times.append(time.perf_counter() - start)
    return times


def processes(doc: dict[str, Any], n: int) -> list[float]:
    mjtable = Path(sys.executable).parent / "mjtable"
    text = json.dumps(doc)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([str(mjtable), "score"], input=text, capture_output=True, text=True,
                       check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--procs", type=int, default=20)
    parser.add_argument("--wins", type=int, default=300)
    args = parser.parse_args()
    docs = hands(args.hands)
    in_process(docs[:200])  # warm the divider's memo as a running service would have it
    times = sorted(in_process(docs))
    median = statistics.median(times) * 1e3
    p99 = times[int(len(times) * 0.99) - 1] * 1e3
    print(f"score_hand, {len(docs)} random four-seat hands of all rulesets:")
    print(f"  median {median:.3f} ms   p99 {p99:.3f} ms   max {times[-1] * 1e3:.3f} ms")
    wins = mirrored_wins(args.wins)
    in_service(wins[:20])
    served = sorted(in_service(wins))
    print(f"the table service scoring {len(wins)} won hands it mirrored (document + score):")
    print(f"  median {statistics.median(served) * 1e3:.3f} ms   "
          f"p99 {served[int(len(served) * 0.99) - 1] * 1e3:.3f} ms   max {served[-1] * 1e3:.3f} ms")
    times = sorted(american(500))
    print("score_american, 500 complete hands of the sample card:")
    print(f"  median {statistics.median(times) * 1e3:.3f} ms   "
          f"p99 {times[int(len(times) * 0.99) - 1] * 1e3:.3f} ms")
    wall = processes(docs[0], args.procs)
    print(f"mjtable score process wall time, {args.procs} runs:")
    print(f"  median {statistics.median(wall) * 1e3:.0f} ms   max {max(wall) * 1e3:.0f} ms")
    python = [time.perf_counter()]
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    python.append(time.perf_counter())
    print(f"  (a bare `python -c pass` on this machine: {(python[1] - python[0]) * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
