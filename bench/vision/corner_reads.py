"""How the text recogniser reads bonus tiles lettered small in a corner, with and without the
corner look (vision/bonus_ocr.py, ``BonusOcr.read``'s ``corners_below``).

    .venv/bin/python bench/vision/corner_reads.py [--sets 6] [--photos 2] [--json out.json]

Photos (64-128 pixels wide at the camera's own pixels, camera effects, as
bench_bonus_ocr.py's part 2 draws them) of drawn sets whose bonus tiles are lettered in a
corner (``procedural_set(cornered=True)``): the calibration group's cornered sets (their own
fonts, photo_abstentions.py's seeds) and further sets whose corner names are lettered in the
held-out fonts and hands. Each bonus photo's name is read by the three regions alone and with
the corners read too: right / wrong / not read at each bar, the number right; every other face
of the same sets, the share named a bonus tile at each bar; and the thread CPU a photo.
Measured only: no bar is chosen here (photo_abstentions.py's calibration group chooses).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bonus_ocr import photo_set  # noqa: E402
from choose_bars import DRAWN_SEEDS  # noqa: E402
from photo_abstentions import CORNERED_FROM, PHOTO_WIDTHS  # noqa: E402
from report_file import write_report  # noqa: E402

from vision.bonus import BONUS_KINDS  # noqa: E402
from vision.bonus_ocr import BonusOcr, OcrReading  # noqa: E402
from vision.synth.bonus_faces import HELD_OUT_FONTS, HELD_OUT_HANDS  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402

BARS = (0.1, 0.5, 0.8)
# Past the calibration group's cornered seeds: sets drawn only for the held-out letterings.
HELD_OUT_FROM = 90


def shots(sets: int, per_face: int, seed: int, font: str) -> list[tuple[np.ndarray, str]]:
    """Photos of ``sets`` cornered sets: the calibration group's (font "") or, lettered in
    ``font``, sets of their own seeds."""
    rng = np.random.default_rng([seed, len(font)])
    start = CORNERED_FROM if not font else HELD_OUT_FROM
    out = []
    for n in range(sets):
        faces = procedural_set(
            DRAWN_SEEDS + seed * 100 + start + n, cornered=True, corner_font=font
        )
        out += photo_set(faces, per_face, rng, PHOTO_WIDTHS)
    return out


def scored(readings: list[OcrReading], truth: list[str]) -> dict[str, Any]:
    """The bonus photos' names right / wrong at each bar and numbers right; the other faces'
    share named a bonus tile at each bar."""
    bonus = [(r, t) for r, t in zip(readings, truth, strict=True) if t in BONUS_KINDS]
    other = [r for r, t in zip(readings, truth, strict=True) if t not in BONUS_KINDS]
    out: dict[str, Any] = {"bonus": len(bonus), "other": len(other)}
    out["number right"] = sum(r.number == int(t[1]) for r, t in bonus)
    for bar in BARS:
        out[f"bar {bar}"] = {
            "right": sum(r.name(bar) == t for r, t in bonus),
            "wrong": sum(r.name(bar) not in (None, t) for r, t in bonus),
            "other named": sum(r.name(bar) is not None for r in other),
        }
    return out


def measured(ocr: BonusOcr, photos: list[tuple[np.ndarray, str]]) -> dict[str, Any]:
    """The regions alone, and the corners read wherever no name is read 0.8 plainly (and 1.0),
    with the thread CPU a photo of each."""
    crops, truth = [c for c, _ in photos], [t for _, t in photos]
    out = {}
    # 1.0: every photo's corners (a name read at 1.0 is read before them).
    for way, below in (("regions", 0.0), ("corners below 0.8", 0.8), ("corners below 1", 1.0)):
        start = time.thread_time()
        readings = ocr.read(crops, corners_below=below)
        ms = 1000 * (time.thread_time() - start) / len(crops)
        out[way] = {"ms a photo": round(ms, 2), **scored(readings, truth)}
        print(way, json.dumps(out[way]), flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=6, help="cornered sets a lettering")
    parser.add_argument("--photos", type=int, default=2, help="photos a face")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    ocr = BonusOcr()
    report: dict[str, Any] = {}
    for font in ("", *HELD_OUT_FONTS, *HELD_OUT_HANDS):
        name = font or "calibration (own fonts)"
        print(name, flush=True)
        report[name] = measured(ocr, shots(args.sets, args.photos, args.seed, font))
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
