"""Whether the crops the bonus gate answers without a reading (vision/bonus_gate.py
``settled``) get the very answer the gate gives them with their reading, replayed on
recorded looks: the calibration group's (choose_bars.py ``--looks``) under the stored bars
and every candidate bar choose_bars.py tries, and the held-out sets' scanned tables (the
benchmark's frames, as part 3 scans them) under the stored bars.

    .venv/bin/python bench/vision/choose_bars.py --dry-run --looks looks.pkl   # the looks
    .venv/bin/python bench/vision/gate_settled.py --looks looks.pkl --frames 6 --json out.json

Per group: the crops, those the gate reads at f7e2bff (gated), those settled among them (no
reading now), and how many settled crops the replayed gate answers otherwise (``differ``,
any field of the answer: it must be 0).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from choose_bars import SEARCH, _with, allowed  # noqa: E402
from gate_looks import Look, looks_of_renders  # noqa: E402
from identity_parts import HELD_OUT  # noqa: E402
from report_file import show_and_write  # noqa: E402
from scan_parts import enrolled_recogniser, frames  # noqa: E402

from vision.bonus_gate import GateBars, default_bars, gate, gated, settled  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.threads import SCAN_THREADS  # noqa: E402


def tally(looks: list[Look], bars: GateBars) -> dict[str, int]:
    """The crops, the gated, the settled among those, and the settled answered otherwise."""
    gated_looks = [look for look in looks if gated(look.first, bars)]
    differ = settled_count = 0
    for look in gated_looks:
        answer = settled(look.first, bars)
        if answer is not None:
            settled_count += 1
            differ += answer != gate(look.first, look.reading, look.threshold, bars)
    return {
        "crops": len(looks),
        "gated": len(gated_looks),
        "settled": settled_count,
        "differ": differ,
    }


def every_candidate(bars: GateBars) -> list[GateBars]:
    """``bars`` and each candidate value choose_bars.py tries of each bar it searches."""
    out = [bars]
    for name, values in SEARCH.items():
        out += [t for t in (_with(bars, name, v) for v in values) if allowed(t)]
    return out


def held_out_tables(count: int, seed: int) -> dict[str, list[Look]]:
    """Each held-out set enrolled as part 3 enrols it, the looks of its ``count`` frames."""
    embedder = Embedder()
    out = {}
    for art in HELD_OUT:
        recogniser = enrolled_recogniser(embedder, art, seed, "new")
        out[f"{art}, enrolled, tables scanned"] = looks_of_renders(
            recogniser, frames(count, art, seed)
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--looks", type=Path, help="choose_bars.py --looks FILE")
    parser.add_argument("--frames", type=int, default=6, help="held-out tables a set (0: none)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    SCAN_THREADS.apply()
    stored = default_bars()
    report: dict[str, Any] = {"command": "bench/vision/gate_settled.py " + " ".join(sys.argv[1:])}
    if args.looks is not None:
        with args.looks.open("rb") as kept:
            groups: dict[str, list[Look]] = pickle.load(kept)
        report["calibration group, stored bars"] = {
            key: tally(looks, stored) for key, looks in groups.items()
        }
        candidates = every_candidate(stored)
        everything = [look for looks in groups.values() for look in looks]
        report["calibration group, every candidate bar"] = {
            "bar sets": len(candidates),
            "differ": sum(tally(everything, bars)["differ"] for bars in candidates),
        }
    if args.frames:
        tables = held_out_tables(args.frames, args.seed)
        report["held-out tables, stored bars"] = {
            key: tally(looks, stored) for key, looks in tables.items()
        }
    show_and_write(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
