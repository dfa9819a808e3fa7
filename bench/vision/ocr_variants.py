"""Where a text look's CPU goes at the scanner's 48 x 64 cuts, and what each cheaper way of
reading would change (vision/bonus_ocr.py).

    .venv/bin/python bench/vision/ocr_variants.py [--crops 24] [--json out.json]

The crops: ``--crops`` a source and width of bench_bonus_ocr.py's held-out sources (fonts,
hands, drawn sets, the three held-out sets' faces, their look-alikes, other faces), cut as the
scanner cuts them (48 x 64) from tiles 18-43, 32 and 40 camera pixels wide. Each is read:

* *as kept*: each region (middle, top, foot) both ways up, a batch of two a region;
* *one batch*: the six lines padded to the widest, one run;
* *squeezed*: every line made narrower than its height asks (fewer time steps);
* *a first region alone when it reads nothing*: the others skipped where the first region's
  best name is under a bar (simulated from each region's own reading);

and the thread CPU a crop of each way, read alternately on the same crops; per region, the
line's width and CPU both ways up and one way. Names read at 0.5 and 0.8 and right, and how
many crops the way names otherwise than as kept.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bonus_ocr import sources
from bonus_data import KINDS
from report_file import show_and_write

from vision.bonus_ocr import (
    DEFAULT_REGIONS,
    LINE_H,
    REGIONS,
    BonusOcr,
    OcrReading,
    _line,
    _reading,
)
from vision.synth.crops import synthetic_crop

Lines = list[list[NDArray[np.float32]]]  # per region: the line, the line turned over


def lines(crop: np.ndarray, regions: tuple[str, ...], squeeze: float = 1.0) -> Lines:
    turned = np.ascontiguousarray(crop[::-1, ::-1])
    h, w = crop.shape[:2]
    out = []
    for name in regions:
        top, bottom, left, right = REGIONS[name](h, w)
        out.append([_line(c[top:bottom, left:right], squeeze) for c in (crop, turned)])
    return out


class Reader:
    """The network, read several ways."""

    def __init__(self) -> None:
        self.session, self.input, self.columns = BonusOcr()._network()

    def run(self, batch: NDArray[np.float32]) -> NDArray[np.float32]:
        return np.asarray(self.session.run(None, {self.input: batch})[0], np.float32)

    def kept(self, crop: np.ndarray, squeeze: float = 1.0) -> OcrReading:
        steps = [self.run(np.stack(pair)) for pair in lines(crop, DEFAULT_REGIONS, squeeze)]
        return _reading(steps, self.columns)

    def one_batch(self, crop: np.ndarray) -> OcrReading:
        flat = [x for pair in lines(crop, DEFAULT_REGIONS) for x in pair]
        batch = np.zeros((len(flat), 3, LINE_H, max(x.shape[2] for x in flat)), np.float32)
        for n, x in enumerate(flat):
            batch[n, :, :, : x.shape[2]] = x
        probs = self.run(batch)
        return _reading([probs[2 * k : 2 * k + 2] for k in range(len(flat) // 2)], self.columns)

    def region(self, crop: np.ndarray, name: str) -> OcrReading:
        return _reading([self.run(np.stack(lines(crop, (name,))[0]))], self.columns)


def crops_of(count: int, seed: int) -> tuple[list[np.ndarray], list[str]]:
    rng = np.random.default_rng(seed)
    crops, truth = [], []
    for faces in sources(256, 30).values():
        for width in (None, 32, 40):
            for k in rng.integers(len(faces), size=count):
                crops.append(synthetic_crop(faces[int(k)][1], rng, camera_width=width))
                truth.append(KINDS[faces[int(k)][0]])
    return crops, truth


def scored(readings: list[OcrReading], truth: list[str], kept: list[OcrReading]) -> dict[str, int]:
    return {
        "named_0.5": sum(r.name(0.5) is not None for r in readings),
        "right_0.5": sum(r.name(0.5) == t for r, t in zip(readings, truth, strict=True)),
        "named_0.8": sum(r.name(0.8) is not None for r in readings),
        "named_otherwise_0.5": sum(
            r.name(0.5) != k.name(0.5) for r, k in zip(readings, kept, strict=True)
        ),
    }


def alternately(
    ways: dict[str, Callable[[np.ndarray], OcrReading]], crops: list[np.ndarray]
) -> tuple[dict[str, list[OcrReading]], dict[str, float]]:
    """Every way's readings and thread CPU a crop (ms), the ways' order turned each crop."""
    readings: dict[str, list[OcrReading]] = {w: [] for w in ways}
    cpu = dict.fromkeys(ways, 0.0)
    names = list(ways)
    for n, crop in enumerate(crops):
        for way in names[n % len(names) :] + names[: n % len(names)]:
            start = time.thread_time()
            readings[way].append(ways[way](crop))
            cpu[way] += time.thread_time() - start
    return readings, {w: round(1000 * c / len(crops), 2) for w, c in cpu.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crops", type=int, default=24, help="crops a source and width")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    reader = Reader()
    crops, truth = crops_of(args.crops, args.seed)
    ways: dict[str, Callable[[np.ndarray], OcrReading]] = {
        "as kept": reader.kept,
        "one batch": reader.one_batch,
        "squeezed 0.75": lambda c: reader.kept(c, 0.75),
        "squeezed 0.6": lambda c: reader.kept(c, 0.6),
    }
    readings, cpu = alternately(ways, crops)
    kept = readings["as kept"]
    report: dict[str, Any] = {"crops": len(crops), "ways": {}}
    for way in ways:
        report["ways"][way] = {"ms_a_crop": cpu[way], **scored(readings[way], truth, kept)}
    regions = ("middle", "top", "foot", "whole")
    alone, region_cpu = alternately(
        {r: (lambda c, r=r: reader.region(c, r)) for r in regions}, crops
    )
    report["regions"] = {
        r: {"line_width": lines(crops[0], (r,))[0][0].shape[2], "ms_both_ways": region_cpu[r]}
        for r in regions
    }
    for first in regions:
        for bar in (0.005, 0.02, 0.1):
            skipped = [a.confidence < bar for a in alone[first]]
            lost = [s and k.name(0.5) is not None for s, k in zip(skipped, kept, strict=True)]
            report["ways"][f"{first} first, the rest skipped under {bar}"] = {
                "skipped": sum(skipped),
                "names_lost_0.5": sum(lost),
            }
    show_and_write(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
