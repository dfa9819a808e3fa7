"""Soak: N bot hands per ruleset (default 10,000) with the invariants checked after every
command, and every `--cross-every`th hand also rebuilt from its log and mirrored.

    python bench/engine_soak.py [--hands 10000] [--cross-every 10] [--ruleset R ...]

Prints one JSON line per ruleset: hands, wins, draws, violations, seconds. Exit 1 on any
violation. `tests/engine/test_soak.py` (marked slow) runs it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.rounds import next_hand, start
from engine.rules import RULESETS, get_ruleset
from engine.simulate import default_bots, play_hand


def soak(name: str, hands: int, cross_every: int, seed: int) -> dict[str, object]:
    rules = get_ruleset(name)
    rng = random.Random(seed)
    bots = default_bots(rng)
    match = start(rules)
    results = {"mahjong": 0, "drawn": 0, "false_mahjong": 0, "washed": 0}
    violations: list[object] = []
    t0 = time.perf_counter()
    for hand in range(hands):
        cross = cross_every > 0 and hand % cross_every == 0
        out = play_hand(rules, rng, bots, prevailing=match.prevailing, hand=hand,
                        checks=True, cross_check=cross)
        if out.violations or out.state.phase != "ended":
            violations.append({"hand": hand, "violations": out.violations[:2]})
        else:
            results[str(out.state.result)] += 1
        match = next_hand(rules, match, bool(out.state.east_stays))
    return {"ruleset": name, "hands": hands, "wins": results["mahjong"],
            "draws": results["drawn"], "false_mahjong": results["false_mahjong"],
            "washed": results["washed"],
            "violations": len(violations), "first": violations[:3],
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--cross-every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--ruleset", action="append", choices=sorted(RULESETS))
    args = parser.parse_args()
    bad = 0
    for name in args.ruleset or list(RULESETS):
        result = soak(name, args.hands, args.cross_every, args.seed)
        bad += int(result["violations"])  # type: ignore[call-overload]
        print(json.dumps(result), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
