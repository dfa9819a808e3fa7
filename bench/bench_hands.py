"""Arranging 14-tile hands: engine.hands against the PyPI `mahjong` package's HandDivider.

Both dividers get the same hands in the same run, interleaved round by round so the noisy
machine treats them alike. Run: `.venv/bin/python bench/bench_hands.py [--hands N] [--rounds R]`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from mahjong.hand_calculating.divider import HandDivider

from engine import hands as hands_module
from engine.hands import arrangements, is_complete, waits


def complete_hands(n: int, seed: int) -> list[list[int]]:
    """Random complete concealed hands (four sets and a pair), no kind more than four times."""
    rng = random.Random(seed)
    hands: list[list[int]] = []
    while len(hands) < n:
        tiles: list[int] = []
        for _ in range(4):
            if rng.random() < 0.6:
                suit, rank = rng.randrange(3), rng.randrange(7)
                tiles += [suit * 9 + rank + i for i in range(3)]
            else:
                tiles += [rng.randrange(34)] * 3
        tiles += [rng.randrange(34)] * 2
        if max(tiles.count(t) for t in set(tiles)) <= 4:
            rng.shuffle(tiles)
            hands.append(tiles)
    return hands


def per_hand_us(fn, items) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    for item in items:
        fn(item)
    return (time.perf_counter() - start) / len(items) * 1e6


def counts34(tiles: list[int]) -> list[int]:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return c


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    hands = complete_hands(args.hands, seed=1924)
    # Same answers first: the comparison is only fair if both find the same arrangements.
    for h in hands[:500]:
        ours = len(arrangements(h))
        theirs = len([d for d in HandDivider.divide_hand(counts34(h)) if len(d) == 5])
        assert ours == theirs, (h, ours, theirs)

    # A cold pass: our per-suit memo emptied, so the first sight of every hand is paid for.
    for memo in (hands_module._suit_divisions, hands_module._honour_division,
                 hands_module._suit_flags, hands_module._honour_flags):
        memo.cache_clear()
    cold_ours = per_hand_us(arrangements, hands)
    cold_theirs = per_hand_us(lambda h: HandDivider.divide_hand(counts34(h)), hands)
    ours_t: list[float] = []
    theirs_t: list[float] = []
    complete_t: list[float] = []
    for r in range(args.rounds):
        batch = hands[r::1] if r % 2 == 0 else list(reversed(hands))
        # Each divider counts its own input: ours takes tiles, theirs a 34-count array.
        theirs_t.append(per_hand_us(lambda h: HandDivider.divide_hand(counts34(h)), batch))
        ours_t.append(per_hand_us(arrangements, batch))
        complete_t.append(per_hand_us(is_complete, batch))
    ours_m, theirs_m = statistics.median(ours_t), statistics.median(theirs_t)
    waiting = [h[:-1] for h in hands[:1000]]
    waits_us = per_hand_us(waits, waiting)
    print(f"hands: {len(hands)} distinct complete 14-tile hands, {args.rounds} rounds")
    print(f"mahjong.HandDivider.divide_hand : {theirs_m:8.2f} us/hand (median of rounds)")
    print(f"engine.hands.arrangements       : {ours_m:8.2f} us/hand")
    print(f"engine.hands.is_complete        : {statistics.median(complete_t):8.2f} us/hand")
    print(f"engine.hands.waits (13 tiles)   : {waits_us:8.2f} us/hand")
    print(f"ratio divide_hand / arrangements: {theirs_m / ours_m:.2f}x")
    print(f"cold first pass: divide_hand {cold_theirs:.2f} us, arrangements {cold_ours:.2f} us"
          f" (ratio {cold_theirs / cold_ours:.2f}x)")


if __name__ == "__main__":
    main()
