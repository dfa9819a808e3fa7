"""The frame-size row's enrolled scans (``bench_vision.py --compare-frame-size 2304x1296
--frames 12 --hands 24``: each held-out set enrolled from 3 frames the finder cut, 12 more
frames and 24 hands laid out), each crop looked at once and named under the stored bars and
under others given here: what a change of bars would do to an enrolled table, measured on the
sets the bars are never chosen on (choose_bars.py never sees them).

    .venv/bin/python bench/vision/scan_replay.py --bars gate_share=0.02,near_share=0.02 \\
        --json bench/vision/results-scan-replay.json

The stored bars' counts are the row's own, crop for crop (the same seeds draw the same
frames). The hand-set defaults (``GateBars()``) are always measured beside them."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gate_looks import Look, decided, looks_of_renders  # noqa: E402
from identity_parts import HELD_OUT  # noqa: E402
from report_file import write_report  # noqa: E402
from scan_parts import enrolled_recogniser, frame_size, frames, hand_laid_out  # noqa: E402

from vision.bonus import BONUS_KINDS  # noqa: E402
from vision.bonus_gate import GateBars, default_bars  # noqa: E402
from vision.capture import DEFAULT_FRAME_SIZE  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.threads import SCAN_THREADS  # noqa: E402

SEED = 2024  # bench_vision.py's; its hands are drawn from SEED + 300


def row_looks(
    embedder: Embedder, art: str, size: tuple[int, int], tables: int, hands: int
) -> tuple[list[Look], list[list[Look]]]:
    """The row's tables' crops, and each hand's, as the gate sees them."""
    recogniser = enrolled_recogniser(embedder, art, SEED, "new", size)
    table = looks_of_renders(recogniser, frames(tables, art, SEED, size))
    recogniser = enrolled_recogniser(embedder, art, SEED + 300, "new", size)
    laid = [
        looks_of_renders(recogniser, [hand_laid_out(art, SEED + 300 + i, 1.5 * (i % 2), size)])
        for i in range(hands)
    ]
    return table, laid


def tally(table: list[Look], laid: list[list[Look]], bars: GateBars) -> dict[str, Any]:
    """Found tiles named right / wrong / abstained on, crossings, and hands read whole (all 14
    found and named right)."""
    named = [(decided(look, bars).label, look.truth) for look in table]
    right = sum(n == t for n, t in named)
    abstained = sum(n is None for n, _ in named)
    crossed = sum(n is not None and (n in BONUS_KINDS) != (t in BONUS_KINDS) for n, t in named)
    whole = sum(
        len(hand) == 14 and all(decided(look, bars).label == look.truth for look in hand)
        for hand in laid
    )
    return {
        "found": len(named),
        "right": right,
        "wrong": len(named) - right - abstained,
        "abstained": abstained,
        "crossings": crossed,
        "hands read whole": whole,
        "hands": len(laid),
    }


def bars_given(text: str) -> GateBars:
    """The stored bars with ``NAME=VALUE,...`` changed."""
    pairs = [item.partition("=") for item in text.split(",") if item]
    if any(not sep for _, sep, _ in pairs):
        raise SystemExit(f"--bars {text!r}: give NAME=VALUE pairs, separated by commas")
    return dataclasses.replace(default_bars(), **{k: float(v) for k, _, v in pairs})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bars", nargs="*", default=[], help="NAME=VALUE,... one set each")
    parser.add_argument(
        "--size", type=frame_size, default="2304x1296", help="the second camera, WxH"
    )
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--hands", type=int, default=24)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    SCAN_THREADS.apply()
    embedder = Embedder()
    candidates = {
        "stored": default_bars(),
        "defaults (set by hand)": GateBars(),
        **{text: bars_given(text) for text in args.bars},
    }
    report: dict[str, Any] = {}
    for art in HELD_OUT:
        for size in (DEFAULT_FRAME_SIZE, args.size):
            table, laid = row_looks(embedder, art, size, args.frames, args.hands)
            key = f"{art}, {size[0]}x{size[1]}"
            report[key] = {name: tally(table, laid, bars) for name, bars in candidates.items()}
            print(key, json.dumps(report[key]), flush=True)
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
