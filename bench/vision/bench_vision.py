"""Vision benchmarks: identity accuracy across tile sets, full-table scan time, and the PyPI
`mahjong-detector` model side by side on the same frames.

    .venv/bin/python bench/vision/bench_vision.py [--frames 10] [--per-kind 10] [--json out.json]

1. *Held-out set, enrolled*: for each art set held out of training (vision/models/tile_embed.json),
   enrol 3 camera-like crops per kind of that set, then classify ``--per-kind`` fresh crops
   per kind. Top-1 counts an abstention as wrong; abstention rate and accuracy on the answered
   crops are given too.
2. *Mixed sets, mostly never enrolled*: 3 enrolment crops per kind, each from a randomly chosen
   set; test crops come from every set, split into sets that were enrolled for that kind and
   sets that were not (and, of those, sets the network never saw in training).
3. *Full-table scan*: ``--frames`` rendered 1920x1080 frames with about 60 tiles (held-out art,
   the model enrolled on crops cut from a separate frame of the same set): median scan time,
   time per tile, tiles found, identity accuracy of found tiles.
4. *mahjong-detector 0.0.6* (YOLO11n, 34 riichi classes) on the same frames through its own
   pre- and post-processing and onnxruntime; scored on the 34 kinds it knows.

Every number comes from one run on this machine; the machine is shared, so compare ratios.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.artwork import ART_SETS, BACK, CHINESE_LABELS, LABELS, load_set  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.crops import synthetic_crop  # noqa: E402
from vision.finder import find, tile_crop  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, MODELS_DIR, Embedder, Recogniser  # noqa: E402
from vision.procedural import procedural_set  # noqa: E402
from vision.render import Style, random_layout, render  # noqa: E402
from vision.scan import Scanner  # noqa: E402

META = json.loads((MODELS_DIR / "tile_embed.json").read_text())
HELD_OUT: list[str] = META["held_out_sets"]


def _score(recogniser: Recogniser, crops: list[np.ndarray], truth: list[str]) -> dict[str, float]:
    ids = recogniser.identify(crops)
    answered = [(i.label, t) for i, t in zip(ids, truth, strict=True) if i.label is not None]
    correct = sum(1 for lab, t in answered if lab == t)
    best_correct = sum(1 for i, t in zip(ids, truth, strict=True) if i.best == t)
    return {
        "n": len(truth),
        "top1": correct / len(truth),
        "top1_no_abstain": best_correct / len(truth),
        "abstain": 1 - len(answered) / len(truth),
        "acc_answered": correct / max(1, len(answered)),
    }


def recognisers(embedder: Embedder, samples: list[tuple[str, np.ndarray]]) -> dict[str, Any]:
    """The enrolment methods compared side by side on the same crops:
    ``old``: one prototype per photo, leave-one-out fit (the method before 2026-12);
    ``new``: each photo augmented into 12 prototypes, leave-one-photo-out fit, the bundled
    prototypes kept behind the enrolled ones (what ``mjtable vision enroll`` now does);
    ``new+tta``: ``new`` with test crops averaged over four 3-px shifts (5x the embedding)."""
    old = Recogniser.enrol(embedder, samples, augment=False)
    new = Recogniser.enrol(embedder, samples)
    new.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    tta = copy.copy(new)
    tta.shift_px = 3
    return {"old": old, "new": new, "new+tta": tta}


def held_out_enrolled(
    embedder: Embedder, per_kind: int, rng: np.random.Generator
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    unseen: dict[str, dict[str, np.ndarray]] = {name: load_set(name) for name in HELD_OUT}
    for seed in range(3):  # procedural sets drawn with seeds training never used
        unseen[f"procedural#{90_000 + seed}"] = procedural_set(90_000 + seed)
    for name, faces in unseen.items():
        enrol = [(lab, synthetic_crop(f, rng)) for lab, f in faces.items() for _ in range(3)]
        tests = [(lab, synthetic_crop(f, rng)) for lab, f in faces.items() for _ in range(per_kind)]
        out[name] = {
            method: _score(recogniser, [c for _, c in tests], [lab for lab, _ in tests])
            for method, recogniser in recognisers(embedder, enrol).items()
        }
        # The same set without enrolment: only the bundled prototypes of other sets.
        default = Recogniser.load(DEFAULT_MODEL_DIR)
        out[name + " (not enrolled)"] = _score(
            default, [c for _, c in tests], [lab for lab, _ in tests]
        )
    return out


def mixed_sets(embedder: Embedder, per_kind: int, rng: np.random.Generator) -> dict[str, Any]:
    sets = {name: load_set(name) for name in ART_SETS}
    enrolled: dict[str, set[str]] = {}
    samples = []
    for label in LABELS:
        having = [n for n, f in sets.items() if label in f]
        for _ in range(3):
            name = having[int(rng.integers(len(having)))]
            enrolled.setdefault(label, set()).add(name)
            samples.append((label, synthetic_crop(sets[name][label], rng)))
    methods = recognisers(embedder, samples)
    groups: dict[str, tuple[list[np.ndarray], list[str]]] = {
        "enrolled set": ([], []),
        "never enrolled": ([], []),
        "never enrolled, never trained": ([], []),
    }
    for name, faces in sets.items():
        for label, face in faces.items():
            for _ in range(max(1, per_kind // 2)):
                crop = synthetic_crop(face, rng)
                if name in enrolled[label]:
                    key = "enrolled set"
                elif name in HELD_OUT:
                    key = "never enrolled, never trained"
                else:
                    key = "never enrolled"
                groups[key][0].append(crop)
                groups[key][1].append(label)
                if key == "never enrolled, never trained":
                    groups["never enrolled"][0].append(crop)
                    groups["never enrolled"][1].append(label)
    return {
        k: {method: _score(r, c, t) for method, r in methods.items()}
        for k, (c, t) in groups.items()
        if t
    }


def frames(count: int, art: str, seed: int) -> list[Any]:
    g = TableGeometry()
    out = []
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        style = Style.random(rng, art)
        layout = random_layout(rng, LABELS, g, discards=44, exposures=4, walls=False)
        out.append(render(layout, style, rng, g))
    return out


def _match(truth_xy: np.ndarray, x: float, y: float, tol: float = 10.0) -> int | None:
    d = np.linalg.norm(truth_xy - np.array([x, y]), axis=1)
    k = int(d.argmin())
    return k if d[k] < tol else None


def scan_bench(
    embedder: Embedder, art: str, count: int, seed: int, method: str = "new"
) -> dict[str, Any]:
    # Enrol from a separate frame of the same set: crops cut by our own finder, labelled by
    # the renderer's truth — what a user's enrolment photos look like.
    enrol_frames = frames(3, art, seed + 1000)
    samples = []
    for r in enrol_frames:
        cal = calibrate(r.image, r.geometry)
        truth_xy = np.array([[t.x, t.y] for t in r.layout.tiles])
        for f in find(r.image, cal):
            k = _match(truth_xy, f.x, f.y) if f.kind == "tile" else None
            if k is not None:
                samples.append((r.layout.tiles[k].label, tile_crop(r.image, cal, f)))
    faces = load_set(art)
    rng = np.random.default_rng(seed)
    have = {lab for lab, _ in samples}
    samples += [
        (lab, synthetic_crop(f, rng))
        for lab, f in faces.items()
        if lab not in have
        for _ in range(3)
    ]
    recogniser = recognisers(embedder, samples)[method]
    times, per_tile, found_n, truth_n, correct, abstained, best = [], [], 0, 0, 0, 0, 0
    for r in frames(count, art, seed):
        cal = calibrate(r.image, r.geometry)
        scanner = Scanner(cal, recogniser)
        start = time.perf_counter()
        result = scanner.scan(r.image)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        per_tile.append(elapsed / max(1, len(result.tiles)))
        truth_xy = np.array([[t.x, t.y] for t in r.layout.tiles])
        truth_n += len(truth_xy)
        for t in result.tiles:
            k = _match(truth_xy, t.x, t.y)
            if k is None:
                continue
            found_n += 1
            label = r.layout.tiles[k].label
            seen = t.tile if t.tile is not None else (BACK if t.face_down else None)
            correct += seen == label
            best += t.best == label
            abstained += t.tile is None and not t.face_down
    return {
        "art": art,
        "method": method,
        "frames": count,
        "tiles_per_frame": truth_n / count,
        "median_scan_s": statistics.median(times),
        "median_per_tile_ms": 1000 * statistics.median(per_tile),
        "found": found_n / truth_n,
        "identity_of_found": correct / max(1, found_n),
        "identity_of_found_no_abstain": best / max(1, found_n),
        "abstained_of_found": abstained / max(1, found_n),
    }


_DETECTOR_TO_TOKEN = {
    **{f"{r}m": f"{r}C" for r in range(1, 10)},
    **{f"{r}p": f"{r}D" for r in range(1, 10)},
    **{f"{r}s": f"{r}B" for r in range(1, 10)},
    "tou": "EW",
    "nan": "SW",
    "sha": "WW",
    "pe": "NW",
    "chun": "RD",
    "hatsu": "GD",
    "haku": "WD",
}


def _score_detections(
    found: list[tuple[Any, tuple[int, int]]], centres: np.ndarray, tiles: list[Any], names: Any
) -> int:
    """Detections (with their window offsets) that name a true tile within 15 px of it."""
    used: set[int] = set()
    for d, (ox, oy) in found:
        cx, cy = (d.x1 + d.x2) / 2 + ox, (d.y1 + d.y2) / 2 + oy
        dist = np.linalg.norm(centres - [cx, cy], axis=1)
        k = int(dist.argmin())
        token = _DETECTOR_TO_TOKEN.get(names[d.class_id])
        if dist[k] < 15 and k not in used and token == tiles[k].label:
            used.add(k)
    return len(used)


def detector_bench(embedder: Embedder, art: str, count: int, seed: int) -> dict[str, Any]:
    """mahjong-detector and our scan on the same frames, scored on its 34 kinds."""
    try:
        from mahjong_detector.predict import CLASS_NAMES, predict
        from mahjong_detector.preprocess import preprocess_image
        from PIL import Image as PILImage
    except ImportError as exc:
        return {"error": f"mahjong-detector not importable: {exc}"}
    known = set(CHINESE_LABELS[:34])
    correct = {"detector": 0, "detector_sahi": 0, "ours_default": 0, "ours_enrolled": 0}
    times: dict[str, list[float]] = {k: [] for k in correct}
    total = 0
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    rng = np.random.default_rng(seed)
    faces = load_set(art)
    enrolled = recognisers(
        embedder, [(lab, synthetic_crop(f, rng)) for lab, f in faces.items() for _ in range(3)]
    )["new"]
    for r in frames(count, art, seed):
        cal = calibrate(r.image, r.geometry)
        tiles = [t for t in r.layout.tiles if t.label in known]
        total += len(tiles)
        centres = cal.to_frame(np.array([[t.x, t.y] for t in tiles]))
        # Theirs: the package's own pipeline (grey, autocontrast, letterbox 640, ORT, NMS).
        start = time.perf_counter()
        pil = PILImage.fromarray(cv2.cvtColor(r.image, cv2.COLOR_BGR2RGB))
        img, padding = preprocess_image(pil)
        found = [(d, (0, 0)) for d in predict(img, padding)]
        times["detector"].append(time.perf_counter() - start)
        correct["detector"] += _score_detections(found, centres, tiles, CLASS_NAMES)
        # Theirs given a fair chance: six 640-px windows (SAHI-style), tiles at native size.
        start = time.perf_counter()
        found = []
        for x0 in (0, 640, 1280):
            for y0 in (0, 440):
                img, padding = preprocess_image(pil.crop((x0, y0, x0 + 640, y0 + 640)))
                found += [(d, (x0, y0)) for d in predict(img, padding)]
        times["detector_sahi"].append(time.perf_counter() - start)
        correct["detector_sahi"] += _score_detections(found, centres, tiles, CLASS_NAMES)
        # Ours: the whole scan, with the bundled prototypes (this set never enrolled, never
        # trained) and with this set enrolled (3 crops per kind).
        truth_xy = np.array([[t.x, t.y] for t in tiles])
        for key, recogniser in (("ours_default", default), ("ours_enrolled", enrolled)):
            start = time.perf_counter()
            result = Scanner(cal, recogniser).scan(r.image)
            times[key].append(time.perf_counter() - start)
            used: set[int] = set()
            for t in result.tiles:
                k = _match(truth_xy, t.x, t.y)
                if k is not None and k not in used and t.tile == tiles[k].label:
                    used.add(k)
            correct[key] += len(used)
    out: dict[str, Any] = {"art": art, "frames": count, "tiles_34_kinds": total}
    for key in correct:
        out[key] = {"accuracy": correct[key] / total, "median_s": statistics.median(times[key])}
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=10)
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--identity-only", action="store_true", help="parts 1 and 2 only (no frames)"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    embedder = Embedder()
    rng = np.random.default_rng(args.seed)
    report: dict[str, Any] = {"model": META}
    report["held_out_enrolled"] = held_out_enrolled(embedder, args.per_kind, rng)
    print(json.dumps(report["held_out_enrolled"], indent=1), flush=True)
    report["mixed_sets"] = mixed_sets(embedder, args.per_kind, rng)
    print(json.dumps(report["mixed_sets"], indent=1), flush=True)
    if args.identity_only:
        if args.json:
            args.json.write_text(json.dumps(report, indent=1) + "\n")
        return 0
    report["scan"] = [
        scan_bench(embedder, art, args.frames, args.seed, method)
        for art in HELD_OUT
        for method in ("old", "new")
    ]
    print(json.dumps(report["scan"], indent=1), flush=True)
    report["detector"] = [
        detector_bench(embedder, art, args.frames, args.seed + 7) for art in HELD_OUT
    ]
    print(json.dumps(report["detector"], indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
