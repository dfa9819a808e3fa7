"""The bonus-tile reader alone, on what its training never saw.

    .venv/bin/python bench/vision/bench_bonus.py [--onnx PATH] [--json out.json] [--raw]

Camera-like crops (vision/synth/crops.py) of: bonus faces drawn in the five held-out fonts,
and in the two held-out hands (``HELD_OUT_HANDS``: a brush and a handwritten font);
the bonus tiles of drawn sets lettered in those fonts; the bonus tiles of the three held-out
packaged sets (``xmj-real``, scans of a real set, ``kde-traditional``, ``gnome-smooth``); and
every other face of those sets, which the reader must never name as a bonus tile, and apart
the faces of those sets most like a bonus tile (dragons, winds, the one bamboo, the seven to
nine of dots: "look-alikes"). For each
source and each bar of sureness: named right, named wrong (another bonus tile), abstained;
for the other faces, the share named as a bonus tile. The number head alone is scored too, and
the reader's probability that a crop is some bonus tile (what the bonus gate weighs), on bonus
tiles and on the other faces, and the reading by parts (``BonusReading.fused``: the kind the
name and the number give together; the group alone). The reader reads at the temperatures
stored with it (vision/bonus.py ``Temperatures``); ``--raw``: at the network's own
probabilities.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bonus_data import (
    HELD_OUT_SETS,
    KINDS,
    Faces,
    art_faces,
    crops_of,
    hard_faces,
    held_out_pools,
)
from report_file import write_report

from vision.bonus import BONUS_FILE, NOT_BONUS, BonusReader, Temperatures
from vision.embedder import MODELS_DIR

BARS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9)


def score(reader: BonusReader, faces: Faces, count: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    xs, ys = crops_of(faces, rng, count, colour=False)
    crops = [np.ascontiguousarray(x.transpose(1, 2, 0)).astype(np.uint8) for x in xs]
    readings = reader.read(crops)
    truth = [KINDS[int(y)] for y in ys]
    out: dict[str, Any] = {"n": count}
    bonus = [(r, t) for r, t in zip(readings, truth, strict=True) if t != NOT_BONUS]
    other = [r for r, t in zip(readings, truth, strict=True) if t == NOT_BONUS]
    # What the bonus gate (vision/identify.py) takes from the reader: how sure it is that a
    # crop is some bonus tile, on bonus tiles and on every other face.
    for name, group in (("bonus", [r for r, _ in bonus]), ("other", other)):
        if group:
            p = np.array([r.bonus_probability for r in group])
            out[f"{name}_bonus_probability_quartiles"] = np.round(
                np.quantile(p, [0.1, 0.25, 0.5, 0.75, 0.9]), 3
            ).tolist()
            out[f"{name}_bonus_probability_over_half"] = float(np.mean(p > 0.5))
    if bonus:
        out["number_right"] = float(np.mean([r.number == int(t[1]) for r, t in bonus]))
        out["kind_right_no_bar"] = float(np.mean([r.kind == t for r, t in bonus]))
        # Read by parts: the group alone, and the kind name and number give together.
        out["group_right"] = float(np.mean([r.group == t[0] for r, t in bonus]))
        out["fused_right_no_bar"] = float(np.mean([r.fused == t for r, t in bonus]))
    for bar in BARS:
        row: dict[str, float] = {}
        if bonus:
            named = [(r.label(bar), t) for r, t in bonus]
            row["right"] = float(np.mean([lab == t for lab, t in named]))
            row["wrong"] = float(np.mean([lab is not None and lab != t for lab, t in named]))
            row["abstained"] = float(np.mean([lab is None for lab, _ in named]))
            # The name alone, the number not asked to agree: what the number adds.
            alone = [(r.kind if r.confidence >= bar else None, t) for r, t in bonus]
            row["right_name_alone"] = float(np.mean([lab == t for lab, t in alone]))
            row["wrong_name_alone"] = float(
                np.mean([lab not in (None, NOT_BONUS, t) for lab, t in alone])
            )
            fused = [(r.fused_label(bar), t) for r, t in bonus]
            row["right_fused"] = float(np.mean([lab == t for lab, t in fused]))
            row["wrong_fused"] = float(np.mean([lab not in (None, t) for lab, t in fused]))
        if other:
            row["other_named_bonus"] = float(np.mean([r.label(bar) is not None for r in other]))
            row["other_named_bonus_fused"] = float(
                np.mean([r.fused_label(bar) is not None for r in other])
            )
        out[f"bar {bar}"] = row
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, default=MODELS_DIR / BONUS_FILE)
    parser.add_argument("--crops", type=int, default=800, help="crops per source")
    parser.add_argument("--font-faces", type=int, default=512)
    parser.add_argument("--drawn", type=int, default=40)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--raw", action="store_true", help="the network's own probabilities: no temperature"
    )
    parser.add_argument(
        "--float", action="store_true", help="the float network, not its 8-bit copy beside it"
    )
    args = parser.parse_args()
    reader = BonusReader(args.onnx, Temperatures() if args.raw else None, not args.float)
    pools = held_out_pools(args.font_faces, args.drawn)
    pools.pop("sets_bonus")  # measured set by set below
    report: dict[str, Any] = {"model": json.loads(args.onnx.with_suffix(".json").read_text())}
    report["sources"] = {name: len(faces) for name, faces in pools.items()}
    report["temperatures read at"] = asdict(reader.temperatures)
    report["8 bits"] = reader.quantised
    results: dict[str, Any] = {}
    for n, (name, faces) in enumerate(pools.items()):
        results[name] = score(reader, faces, args.crops, 7 + n)
        print(name, json.dumps(results[name]), flush=True)
    # The held-out packaged sets one by one (8 bonus faces each; xmj-real's are photographs).
    by_set = {name: art_faces([name])[0] for name in HELD_OUT_SETS}
    for n, (name, faces) in enumerate(by_set.items()):
        results[f"set {name}"] = score(reader, faces, args.crops // 2, 70 + n)
        print(name, json.dumps(results[f"set {name}"]), flush=True)
    # The held-out sets' faces most like a bonus tile (bonus_data.HARD_KINDS: dragons, winds,
    # the one bamboo, seven to nine of dots), which the reader must call none with confidence.
    for n, name in enumerate(HELD_OUT_SETS):
        results[f"look-alikes {name}"] = score(reader, hard_faces([name]), args.crops // 2, 80 + n)
        print(f"look-alikes {name}", json.dumps(results[f"look-alikes {name}"]), flush=True)
    report["results"] = results
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
