"""The text recogniser's look at bonus tiles (vision/bonus_ocr.py), on what no training here saw.

    .venv/bin/python bench/vision/bench_bonus_ocr.py [--widths 24 32 48 64 96 128]
        [--crops 64] [--photos 4] [--json out.json]     # width 0: the camera's 18-43

1. *Alone*: crops of the sources of bench_bonus.py (faces in the five held-out fonts and the
   two held-out hands, drawn sets lettered in those fonts, the three held-out packaged sets'
   bonus tiles, their look-alikes and every other face) at each tile width in the camera's own
   pixels (``synthetic_crop(native=True)``: not brought to the recogniser's 48 x 64 input),
   read by the text recogniser: the name right / wrong / not read at each bar, the number
   right, the share of other faces whose reading names a bonus tile at the bars, and the
   thread CPU a crop costs.
2. *Photos of sets never enrolled*: a table enrolled from a mix of sets (part 2 of
   bench_vision.py, at the table camera's widths), then every face of the held-out sets seen
   as a single-tile photo, ``--photos`` crops a face at 64-128 pixels wide with the camera
   effects of camera_effects.py, named by the recogniser without the text recogniser's look
   (the gate as it was), with it, and with it renaming the gate's bonus tiles too
   (``OcrBars.rename``): right / wrong / abstained, bonus tiles, crossings.
3. *Photos of an enrolled set*: the same photos, each held-out set's table enrolled from that
   set alone (3 crops a kind at the camera's widths), named the same three ways.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bonus_data import HELD_OUT_SETS, KINDS, Faces, art_faces, hard_faces, held_out_pools
from camera_effects import camera_extra
from identity_parts import enrol_and_test, mixed_enrolment, recognisers, score_identities
from report_file import write_report

from vision.bonus import NOT_BONUS
from vision.bonus_ocr import DEFAULT_REGIONS, REGIONS, BonusOcr, OcrBars
from vision.embedder import Embedder
from vision.identify import Recogniser
from vision.synth.artwork import ART_SETS, load_set
from vision.synth.crops import synthetic_crop

BARS = (0.3, 0.5, 0.8)


def alone(ocr: BonusOcr, faces: Faces, count: int, width: int, seed: int) -> dict[str, Any]:
    """The text recogniser's readings of ``count`` crops of ``faces`` at ``width`` pixels (0:
    the table camera's 18-43, as bench_bonus.py draws them)."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(len(faces), size=count)
    crops = [
        synthetic_crop(faces[int(k)][1], rng, camera_width=width or None, native=True) for k in pick
    ]
    truth = [KINDS[faces[int(k)][0]] for k in pick]
    start = time.thread_time()
    readings = ocr.read(crops)
    out: dict[str, Any] = {"n": count, "ms_a_crop": 1000 * (time.thread_time() - start) / count}
    bonus = [(r, t) for r, t in zip(readings, truth, strict=True) if t != NOT_BONUS]
    other = [r for r, t in zip(readings, truth, strict=True) if t == NOT_BONUS]
    if bonus:
        out["name_right_no_bar"] = _share(r.kind == t for r, t in bonus)
        out["number_right"] = _share(r.number == int(t[1]) for r, t in bonus)
    for bar in BARS:
        row: dict[str, float] = {}
        if bonus:
            row["right"] = _share(r.name(bar) == t for r, t in bonus)
            row["wrong"] = _share(r.name(bar) not in (None, t) for r, t in bonus)
        if other:
            row["other_named_bonus"] = _share(r.name(bar) is not None for r in other)
        out[f"bar {bar}"] = row
    return out


def _share(hits: Any) -> float:
    values = list(hits)
    return round(float(np.mean(values)), 4) if values else 0.0


def sources(font_faces: int, drawn: int) -> dict[str, Faces]:
    pools = held_out_pools(font_faces, drawn)
    pools.pop("sets_bonus")  # set by set below
    out = {name: pools[name] for name in ("fonts", "hands", "drawn_bonus")}
    for name in HELD_OUT_SETS:
        out[name] = art_faces([name])[0]
    for name in HELD_OUT_SETS:
        out[f"look-alikes {name}"] = hard_faces([name])
    out["other faces"] = pools["other"]
    return out


def photos(
    ocr: BonusOcr, per_face: int, seed: int, widths: tuple[int, int] = (64, 128)
) -> dict[str, Any]:
    """Part 2: single-tile photos of the held-out sets, a table enrolled from a mix of sets;
    part 3: the same photos, each set's table enrolled from that set (3 crops a kind)."""
    rng, sets, mixed = mixed_table(seed)
    shots = {name: photo_set(sets[name], per_face, rng, widths) for name in HELD_OUT_SETS}
    out: dict[str, Any] = {"widths": list(widths), "never enrolled": {}, "enrolled": {}}
    crops = [c for name in HELD_OUT_SETS for c, _ in shots[name]]
    truth = [t for name in HELD_OUT_SETS for _, t in shots[name]]
    owner = [name for name in HELD_OUT_SETS for _ in shots[name]]
    for method, named in side_by_side(mixed, ocr, crops).items():
        row: dict[str, Any] = {"all": score_identities(named, truth)}
        for name in HELD_OUT_SETS:
            mine = [n for n, o in enumerate(owner) if o == name]
            row[name] = score_identities([named[n] for n in mine], [truth[n] for n in mine])
        out["never enrolled"][method] = row
    for name in HELD_OUT_SETS:
        own, _ = enrol_and_test(sets[name], rng, 0)
        enrolled = recognisers(Embedder(), own)["new"]
        set_crops = [c for c, _ in shots[name]]
        set_truth = [t for _, t in shots[name]]
        for method, named in side_by_side(enrolled, ocr, set_crops).items():
            out["enrolled"].setdefault(method, {})[name] = score_identities(named, set_truth)
    return out


def mixed_table(seed: int) -> tuple[np.random.Generator, dict[str, Faces], Recogniser]:
    """The photos' draws from ``seed``, every art set, and the table enrolled from a mix of
    sets that names the held-out sets' photos (3 crops a kind), drawn in that order."""
    rng = np.random.default_rng(seed)
    sets = {name: load_set(name) for name in ART_SETS}
    samples, _ = mixed_enrolment(sets, rng)
    return rng, sets, recognisers(Embedder(), samples)["new"]


def photo_set(
    faces: dict[str, np.ndarray], per_face: int, rng: np.random.Generator, widths: tuple[int, int]
) -> list[tuple[np.ndarray, str]]:
    """``per_face`` photos of each face, ``widths`` pixels wide, with the camera's effects."""
    shots = []
    for label, face in faces.items():
        for _ in range(per_face):
            width = int(rng.integers(widths[0], widths[1] + 1))
            crop = synthetic_crop(face, rng, camera_width=width, native=True)
            shots.append((camera_extra(crop, rng), label))
    return shots


def side_by_side(recogniser: Recogniser, ocr: BonusOcr, crops: list[np.ndarray]) -> dict[str, Any]:
    """The crops named without the text recogniser (the gate as it was), with it, and with it
    renaming the gate's bonus tiles too; and each way's thread CPU a crop."""
    without = copy.copy(recogniser)
    without.bonus_ocr = None
    with_text = copy.copy(recogniser)
    with_text.bonus_ocr = ocr
    renaming = copy.copy(with_text)
    renaming.ocr_bars = OcrBars(rename=True)
    methods = {
        "gate as it was": without,
        "with the text look": with_text,
        "with the text look, renaming": renaming,
    }
    out: dict[str, Any] = {}
    for method, each in methods.items():
        start = time.thread_time()
        out[method] = each.identify(crops)
        print(method, f"{1000 * (time.thread_time() - start) / len(crops):.1f} ms a crop")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[0, 24, 32, 48, 64, 96, 128])
    parser.add_argument("--crops", type=int, default=64, help="crops a source and width")
    parser.add_argument("--font-faces", type=int, default=256)
    parser.add_argument("--drawn", type=int, default=30)
    parser.add_argument("--photos", type=int, default=4, help="photos a face (0: no part 2)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--skip-alone", action="store_true", help="part 2 only")
    parser.add_argument(
        "--regions", nargs="+", default=list(DEFAULT_REGIONS), help=f"of {sorted(REGIONS)}"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    ocr = BonusOcr(regions=args.regions)
    report: dict[str, Any] = {"regions": list(ocr.regions)}
    if not args.skip_alone:
        results: dict[str, Any] = {}
        for n, (name, faces) in enumerate(sources(args.font_faces, args.drawn).items()):
            for width in args.widths:
                row = alone(ocr, faces, args.crops, width, 7 + n)
                results.setdefault(name, {})[str(width)] = row
                print(name, width, json.dumps(row), flush=True)
        report["alone"] = results
    if args.photos:
        report["photos"] = photos(ocr, args.photos, args.seed)
        print("photos", json.dumps(report["photos"]), flush=True)
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
