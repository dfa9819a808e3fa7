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
5. *Hands laid out*: ``--hands`` winning hands per held-out set, 14 tiles on a seat's rack
   strip, touching or up to 1.5 mm apart, as they are shown to be scored: identity of the
   tiles, and hands read whole (every tile named right, nothing more), each scanned once.
   ``--hands-only`` runs only this part.

Every number comes from one run on this machine; the machine is shared, so compare ratios.
"""

from __future__ import annotations

import argparse
import collections
import copy
import importlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from identity_parts import (  # noqa: E402
    HELD_OUT,
    held_out_enrolled,
    identity_by_width,
    mixed_sets,
    recognisers,
)
from other_revision import OtherRevision  # noqa: E402
from scan_worker import scan_once, stage_times  # noqa: E402

from controller.scene import shown_hand_layout  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.capture import DEFAULT_FRAME_SIZE  # noqa: E402
from vision.embedder import MODELS_DIR, Embedder  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Recogniser  # noqa: E402
from vision.labels import BACK, BLANK, CHINESE_LABELS, LABELS  # noqa: E402
from vision.scan import Scanner  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.layout import TilePlacement, random_layout  # noqa: E402
from vision.synth.render import CameraPose, Rendered, Style, render, render_still  # noqa: E402
from vision.synth.table_enrol import labelled_crops  # noqa: E402

META = json.loads((MODELS_DIR / "tile_embed.json").read_text())


def frames(
    count: int, art: str, seed: int, size: tuple[int, int] = DEFAULT_FRAME_SIZE
) -> list[Any]:
    """Rendered tables of ``art``, ~69 tiles each, seen by a camera of ``size`` pixels whose
    frame's height the table fills (1920x1080: a tile's face 24 px wide)."""
    g = TableGeometry()
    out = []
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        style = Style.random(rng, art)
        layout = random_layout(rng, LABELS, g, discards=44, exposures=4, walls=False)
        out.append(render(layout, style, rng, g, CameraPose.overhead(rng, *size)))
    return out


def hand_laid_out(
    art: str, seed: int, apart: float, size: tuple[int, int] = DEFAULT_FRAME_SIZE
) -> Rendered:
    """A winning hand shown to be scored: 14 tiles in a row on a seat's rack strip (which
    seat's, by the seed), up to ``apart`` mm between them."""
    rng = np.random.default_rng(seed)
    gaps = rng.uniform(0, apart, size=13)
    labels = [CHINESE_LABELS[int(k)] for k in rng.integers(0, 34, size=14)]
    seat = "ESWN"[int(rng.integers(4))]
    style = Style.random(rng, art)
    geometry = TableGeometry()
    layout = shown_hand_layout(labels, seat, gaps, geometry)
    return render(layout, style, rng, geometry, CameraPose.overhead(rng, *size))


def _match(truth_xy: np.ndarray, x: float, y: float, tol: float = 10.0) -> int | None:
    d = np.linalg.norm(truth_xy - np.array([x, y]), axis=1)
    k = int(d.argmin())
    return k if d[k] < tol else None


def _side_metrics(
    times: list[float], per_tile: list[float], counts: dict[str, int]
) -> dict[str, Any]:
    found_n, truth_n = counts["found"], counts["truth"]
    return {
        "median_scan_s": statistics.median(times),
        "median_per_tile_ms": 1000 * statistics.median(per_tile),
        "found": found_n / truth_n,
        "identity_of_found": counts["correct"] / max(1, found_n),
        "identity_of_found_no_abstain": counts["best"] / max(1, found_n),
        "abstained_of_found": counts["abstained"] / max(1, found_n),
        "bonus_found": counts.get("bonus_found", 0),
        "bonus_identity_of_found": counts.get("bonus_correct", 0)
        / max(1, counts.get("bonus_found", 0)),
        "bonus_suit_crossings": counts.get("crossed", 0),
    }


def _count_scan(
    tiles: list[list[Any]],
    layout: Any,
    counts: dict[str, int],
    misses: collections.Counter[str] | None = None,
) -> None:
    """Add one scan's tiles ([x, y, tile, best, face_down, blank]) to the running counts, and
    each tile found but not named right to ``misses`` ("5C->3C", "S1->None"). A face-down
    tile and a blank one are named as such (``tile`` is None for both)."""
    truth_xy = np.array([[t.x, t.y] for t in layout.tiles])
    counts["truth"] += len(truth_xy)
    for x, y, tile, best_label, face_down, blank in tiles:
        k = _match(truth_xy, x, y)
        if k is None:
            continue
        counts["found"] += 1
        label = layout.tiles[k].label
        seen = tile if tile is not None else (BACK if face_down else BLANK if blank else None)
        counts["correct"] += seen == label
        if misses is not None and seen != label:
            misses[f"{label}->{seen}"] += 1
        counts["best"] += best_label == label
        counts["abstained"] += seen is None
        bonus = label in _BONUS_KINDS
        counts["bonus_found"] = counts.get("bonus_found", 0) + bonus
        counts["bonus_correct"] = counts.get("bonus_correct", 0) + (bonus and seen == label)
        crossed = seen is not None and (seen in _BONUS_KINDS) != bonus
        counts["crossed"] = counts.get("crossed", 0) + crossed


_BONUS_KINDS = frozenset(CHINESE_LABELS[34:42])


def _stage_summary(runs: list[dict[str, float]]) -> dict[str, float]:
    """Median milliseconds per stage over the frames, and their sum."""
    out = {k: round(1000 * statistics.median(r[k] for r in runs), 2) for k in runs[0]}
    out["sum"] = round(sum(out.values()), 2)
    return out


def enrolled_recogniser(
    embedder: Embedder, art: str, seed: int, method: str, size: tuple[int, int] = DEFAULT_FRAME_SIZE
) -> Recogniser:
    """The set enrolled from 3 separate frames of it: crops cut by our own finder, labelled
    by the renderer's truth — what a user's enrolment photos look like."""
    samples = [named for r in frames(3, art, seed + 1000, size) for named in labelled_crops(r)]
    faces = load_set(art)
    rng = np.random.default_rng(seed)
    have = {lab for lab, _ in samples}
    samples += [
        (lab, synthetic_crop(f, rng))
        for lab, f in faces.items()
        if lab not in have
        for _ in range(3)
    ]
    recogniser: Recogniser = recognisers(embedder, samples)[method]
    return recogniser


def scan_bench(
    embedder: Embedder,
    art: str,
    count: int,
    seed: int,
    method: str = "new",
    other: OtherRevision | None = None,
    repeat: int = 1,
    size: tuple[int, int] = DEFAULT_FRAME_SIZE,
) -> dict[str, Any]:
    recogniser = enrolled_recogniser(embedder, art, seed, method, size)
    model = None
    if other is not None:
        recogniser, model = other.shared_model(recogniser)
    sides = ["this"] + ([other.rev] if other is not None else [])
    times: dict[str, list[float]] = {s: [] for s in sides}
    per_tile: dict[str, list[float]] = {s: [] for s in sides}
    stages: dict[str, list[dict[str, float]]] = {s: [] for s in sides}
    counts = {
        s: dict.fromkeys(("truth", "found", "correct", "best", "abstained"), 0) for s in sides
    }
    misses: collections.Counter[str] = collections.Counter()
    layouts = []
    for i, r in enumerate(frames(count, art, seed, size)):
        cal = calibrate(r.image, r.geometry)
        scanner = Scanner(cal, recogniser)
        layouts.append(r.layout)
        for rep in range(repeat):
            # Alternate which side goes first, so neither always runs on a warm cache.
            for side in sides if (i + rep) % 2 == 0 else sides[::-1]:
                if side == "this":
                    elapsed, _, tiles = scan_once(scanner, r.image)
                else:
                    assert other is not None and model is not None
                    reply = other.scan(r.image, cal, model)
                    elapsed, tiles = reply["s"], reply["tiles"]
                times[side].append(elapsed)
                per_tile[side].append(elapsed / max(1, len(tiles)))
                if rep == 0:
                    _count_scan(tiles, r.layout, counts[side], misses if side == "this" else None)
        stages["this"].append(stage_times(r.image, cal, recogniser))
        if other is not None and model is not None:
            stages[other.rev].append(other.scan(r.image, cal, model, stages=True)["stages"])
    out: dict[str, Any] = {
        "art": art,
        "method": method,
        "frames": count,
        "tiles_per_frame": counts["this"]["truth"] / count,
        **_side_metrics(times["this"], per_tile["this"], counts["this"]),
        "stages_ms": _stage_summary(stages["this"]),
        # What the tiles found but not named right were, the commonest first.
        "misses": dict(misses.most_common()),
    }
    if other is not None:
        theirs = times[other.rev]
        out["against"] = {
            "rev": other.rev,
            **_side_metrics(theirs, per_tile[other.rev], counts[other.rev]),
            "stages_ms": _stage_summary(stages[other.rev]),
            # Each scan of a frame against the other revision's scan of the same frame.
            "speedup_median_of_pairs": statistics.median(
                b / a for a, b in zip(times["this"], theirs, strict=True)
            ),
            "speedup_of_medians": statistics.median(theirs) / statistics.median(times["this"]),
        }
    return out


def hands_bench(
    embedder: Embedder,
    art: str,
    count: int,
    seed: int,
    other: OtherRevision | None = None,
    size: tuple[int, int] = DEFAULT_FRAME_SIZE,
) -> dict[str, Any]:
    """Hands laid out to be scored (``count`` of them, touching and up to 1.5 mm apart by
    turns), each scanned once: identity of the tiles, and hands read whole (all 14 named
    right, nothing else taken for a tile), the score's input."""
    recogniser = enrolled_recogniser(embedder, art, seed, "new", size)
    model = None
    if other is not None:
        recogniser, model = other.shared_model(recogniser)
    sides = ["this"] + ([other.rev] if other is not None else [])
    counts = {
        s: dict.fromkeys(("truth", "found", "correct", "best", "abstained"), 0) for s in sides
    }
    whole = dict.fromkeys(sides, 0)
    misses: collections.Counter[str] = collections.Counter()
    for i in range(count):
        r = hand_laid_out(art, seed + i, 1.5 if i % 2 else 0.0, size)
        cal = calibrate(r.image, r.geometry)
        for side in sides:
            if side == "this":
                _, _, tiles = scan_once(Scanner(cal, recogniser), r.image)
            else:
                assert other is not None and model is not None
                tiles = other.scan(r.image, cal, model)["tiles"]
            right_before = counts[side]["correct"]
            _count_scan(tiles, r.layout, counts[side], misses if side == "this" else None)
            named = counts[side]["correct"] - right_before
            whole[side] += named == len(r.layout.tiles) == len(tiles)

    def side(name: str) -> dict[str, float]:
        c = counts[name]
        return {
            "found": c["found"] / c["truth"],
            "identity_of_found": c["correct"] / max(1, c["found"]),
            "named_right_of_all": c["correct"] / c["truth"],
            "hands_read_whole": whole[name] / count,
        }

    out: dict[str, Any] = {
        "art": art,
        "hands": count,
        **side("this"),
        # Tiles found but not named right ("truth->named"), the commonest first; a hand's
        # tiles not found at all are in ``found``.
        "misses": dict(misses.most_common()),
    }
    if other is not None:
        out["against"] = {"rev": other.rev, **side(other.rev)}
    return out


def free_spot(
    layout: Any,
    geometry: TableGeometry,
    rng: np.random.Generator,
    draw: Callable[[], tuple[float, float]] | None = None,
    tries: int = 1000,
) -> tuple[float, float]:
    """A place in the discard area at least 34 mm from every tile and die: where a new
    discard lands. ``draw``: where to look (a place each call; default anywhere in the
    middle of the table)."""
    taken = np.array([[t.x, t.y] for t in layout.tiles] + [[d.x, d.y] for d in layout.dice])
    for _ in range(tries):
        x, y = draw() if draw is not None else rng.uniform(200, 700, size=2)
        zone = geometry.zone_at(x, y)
        in_discards = zone is not None and zone.name == "discards"
        if in_discards and np.hypot(*(taken - [x, y]).T).min() > 34:
            return float(x), float(y)
    raise RuntimeError("no free place for a new discard")


def cache_bench(
    embedder: Embedder, art: str, count: int, seed: int, repeat: int = 1
) -> dict[str, Any]:
    """Part 3b, the live-table cache (``Scanner(cache=True)``, what the camera loop runs).
    Per frame, a table that holds still (``render_still``: same scene and light, new sensor
    noise each frame); a cached scanner warmed on three frames of it (not timed: a tile is
    recalled once named alike three times), then timed on
    the next frame: (a) the same table, (b) the exposure 5 % lower (every pixel changed, no
    tile: the frame is scanned, the tiles are not named), (c) one new discard landed on the
    cloth; the uncached scan of the same frame alternately before and after."""
    recogniser = enrolled_recogniser(embedder, art, seed, "new")
    g = TableGeometry()
    cases = ("unchanged", "exposure", "new_discard")
    times: dict[str, dict[str, list[float]]] = {c: {"cached": [], "plain": []} for c in cases}
    named: dict[str, list[int]] = {c: [] for c in cases}
    agree = {"same": 0, "tiles": 0}
    keys = ("truth", "found", "correct", "best", "abstained")
    counts = {side: dict.fromkeys(keys, 0) for side in ("cached", "plain")}
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        style = Style.random(rng, art)
        layout = random_layout(rng, LABELS, g, discards=44, exposures=4, walls=False)
        look = seed + 500 + i
        base = render_still(layout, style, look, 1, g).image
        # Three looks at the still table: the cache recalls a tile once named alike 3 times.
        warm = [base] + [render_still(layout, style, look, k, g).image for k in (5, 6)]
        x, y = free_spot(layout, g, rng)
        landed = copy.deepcopy(layout)
        landed.tiles.append(TilePlacement(LABELS[int(rng.integers(34))], x, y, 0.0))
        shown = {
            "unchanged": render_still(layout, style, look, 2, g).image,
            "exposure": render_still(layout, style, look, 3, g, gain=0.95).image,
            "new_discard": render_still(landed, style, look, 4, g).image,
        }
        truth = {"unchanged": layout, "exposure": layout, "new_discard": landed}
        cal = calibrate(base, g)
        plain = Scanner(cal, recogniser)
        for case, frame in shown.items():
            for rep in range(repeat):
                cached = Scanner(cal, recogniser, cache=True)
                for frame_before in warm:
                    cached.scan(frame_before)
                assert cached.memory is not None
                before = cached.memory.stats.tiles_named
                order = ("cached", "plain") if (i + rep) % 2 == 0 else ("plain", "cached")
                for side in order:
                    scanner = cached if side == "cached" else plain
                    start = time.perf_counter()
                    result = scanner.scan(frame)
                    times[case][side].append(time.perf_counter() - start)
                    if side == "cached":
                        seen = result
                    else:
                        uncached = result
                    if rep == 0:
                        rows = [
                            [t.x, t.y, t.tile, t.best, t.face_down, t.blank] for t in result.tiles
                        ]
                        _count_scan(rows, truth[case], counts[side])
                if rep == 0:
                    named[case].append(cached.memory.stats.tiles_named - before)
                    agree["tiles"] += len(uncached.tiles)
                    agree["same"] += _same_names(seen, uncached)
    out: dict[str, Any] = {"art": art, "frames": count, "repeat": repeat}
    for case in cases:
        cached_s, plain_s = times[case]["cached"], times[case]["plain"]
        out[case] = {
            "cached_median_ms": 1000 * statistics.median(cached_s),
            "plain_median_ms": 1000 * statistics.median(plain_s),
            "plain_over_cached_median_of_pairs": statistics.median(
                p / c for c, p in zip(cached_s, plain_s, strict=True)
            ),
            "tiles_named_median": statistics.median(named[case]),
        }
    # Cached and uncached scans of the same frames: the same tiles at the same places, and
    # the same names but where the frame before named a tile differently than this one does.
    out["same_tile_and_name_as_uncached"] = agree["same"] / max(1, agree["tiles"])
    # Against the renderer's truth, over the three cases: the cache must not name worse.
    for side, c in counts.items():
        out[f"{side}_found"] = c["found"] / c["truth"]
        out[f"{side}_identity_of_found"] = c["correct"] / max(1, c["found"])
    return out


def _same_names(seen: Any, truth: Any) -> int:
    """Tiles of ``truth`` that ``seen`` has within 3 mm under the same name."""
    if not seen.tiles:
        return 0
    xy = np.array([[t.x, t.y] for t in seen.tiles])
    same = 0
    for tile in truth.tiles:
        k = _match(xy, tile.x, tile.y, tol=3.0)
        same += k is not None and seen.tiles[k].tile == tile.tile
    return same


def _dice_score(seen: list[tuple[float, float, int | None]], truth: list[Any]) -> tuple[int, int]:
    """(dice read right, 1 if both are): each true die against the die seen within 4 mm."""
    right = 0
    for die in truth:
        near = [p for x, y, p in seen if np.hypot(x - die.x, y - die.y) < 4]
        right += len(near) == 1 and near[0] == die.value
    return right, int(right == len(truth))


def dice_bench(count: int, seed: int, other: OtherRevision | None = None) -> dict[str, Any]:
    """Part 3c, dice that touch: ``count`` rendered tables whose two dice rest against each
    other (each at its own turn, up to 0.8 mm apart, shadows joined), and as many with the
    usual throw; the dice each scan reads (this tree, and with --against the other's)."""
    g = TableGeometry()
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    model = None
    if other is not None:
        default, model = other.shared_model(default)
    sides = ["this"] + ([other.rev] if other is not None else [])
    out: dict[str, Any] = {"frames": count}
    for throw, touching in (("touching", 1.0), ("apart", 0.0)):
        score = {s: {"dice": 0, "pairs": 0} for s in sides}
        for i in range(count):
            rng = np.random.default_rng(seed + 3000 + i)
            style = Style.random(rng, [*HELD_OUT, "symbola"][i % 3])
            layout = random_layout(
                rng, LABELS, g, discards=30, exposures=2, walls=False, dice_touching=touching
            )
            r = render(layout, style, rng, g)
            cal = calibrate(r.image, g)
            for side in sides:
                if side == "this":
                    dice = Scanner(cal, default).scan(r.image).dice
                    seen = [(d.x, d.y, d.pips) for d in dice]
                else:
                    assert other is not None and model is not None
                    reply = other.scan(r.image, cal, model, dice=True)
                    seen = [(x, y, p) for x, y, p in reply["dice"]]
                right, pair = _dice_score(seen, layout.dice)
                score[side]["dice"] += right
                score[side]["pairs"] += pair
        out[throw] = {
            side: {
                "dice_read": score[side]["dice"] / (2 * count),
                "pairs_read": score[side]["pairs"] / count,
            }
            for side in sides
        }
    return out


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


# What each of part 4's keys runs, as the README and bench/vision/README.md name it.
PEER_CONFIGURATIONS = {
    "detector": "the peer's whole pipeline: its own ONNX Runtime session, on both cores "
    "(the README's ratio)",
    "detector_1thread": "the peer's pipeline with its model on one thread",
    "detector_sahi": "the peer's pipeline on six 640-px windows, its own session",
    "ours_default": "our whole scan, bundled prototypes (set never enrolled)",
    "ours_enrolled": "our whole scan, the set enrolled: OpenCV on one thread, the network "
    "beside the finder on a second thread",
    "ours_enrolled_at_rev": "the same scan at the other revision, in its own process",
}


def detector_bench(
    embedder: Embedder,
    art: str,
    count: int,
    seed: int,
    other: OtherRevision | None = None,
    repeat: int = 1,
) -> dict[str, Any]:
    """mahjong-detector and our scan on the same frames, scored on its 34 kinds."""
    try:
        import onnxruntime
        from mahjong_detector.predict import CLASS_NAMES, predict
        from mahjong_detector.preprocess import preprocess_image
        from PIL import Image as PILImage
    except ImportError as exc:
        return {"error": f"mahjong-detector not importable: {exc}"}
    # The module (the package's ``predict`` attribute is the function of that name).
    detector = importlib.import_module("mahjong_detector.predict")
    # Its own session uses every core; the same model on one thread, as ours runs, is
    # timed too (its pipeline takes the session from a thread-local, swapped in for that).
    own_session = detector.get_inference_session()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    one_thread = onnxruntime.InferenceSession(str(detector.model_path), options)
    known = set(CHINESE_LABELS[:34])
    keys = ["detector", "detector_1thread", "detector_sahi", "ours_default", "ours_enrolled"]
    if other is not None:
        keys.append("ours_enrolled_at_rev")
    correct = dict.fromkeys(keys, 0)
    times: dict[str, list[float]] = {k: [] for k in correct}
    total = 0
    default = Recogniser.load(DEFAULT_MODEL_DIR)
    rng = np.random.default_rng(seed)
    faces = load_set(art)
    enrolled = recognisers(
        embedder, [(lab, synthetic_crop(f, rng)) for lab, f in faces.items() for _ in range(3)]
    )["new"]
    model = None
    if other is not None:
        enrolled, model = other.shared_model(enrolled)
    cpu: dict[str, list[float]] = {k: [] for k in correct}
    for i, r in enumerate(frames(count, art, seed)):
        cal = calibrate(r.image, r.geometry)
        tiles = [t for t in r.layout.tiles if t.label in known]
        total += len(tiles)
        centres = cal.to_frame(np.array([[t.x, t.y] for t in tiles]))
        truth_xy = np.array([[t.x, t.y] for t in tiles])
        image = r.image

        def theirs(windowed: bool, image: np.ndarray = image) -> list[tuple[Any, tuple[int, int]]]:
            # The package's own pipeline (grey, autocontrast, letterbox 640, ORT, NMS); or
            # given a fair chance: six 640-px windows (SAHI-style), tiles at native size.
            pil = PILImage.fromarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
            if not windowed:
                img, padding = preprocess_image(pil)
                return [(d, (0, 0)) for d in predict(img, padding)]
            found = []
            for x0 in (0, 640, 1280):
                for y0 in (0, 440):
                    img, padding = preprocess_image(pil.crop((x0, y0, x0 + 640, y0 + 640)))
                    found += [(d, (x0, y0)) for d in predict(img, padding)]
            return found

        def on_one_thread() -> list[tuple[Any, tuple[int, int]]]:
            detector.threadlocal.session = one_thread
            try:
                return theirs(False)
            finally:
                detector.threadlocal.session = own_session

        runs: list[tuple[str, Any]] = [
            ("detector", lambda: theirs(False)),
            ("detector_1thread", on_one_thread),
            ("detector_sahi", lambda: theirs(True)),
            # Ours: the whole scan, with the bundled prototypes (this set never enrolled,
            # never trained) and with this set enrolled (3 crops per kind); with --against,
            # the other revision's scan too, alternately first and last of the three.
            ("ours_default", Scanner(cal, default)),
            ("ours_enrolled", Scanner(cal, enrolled)),
        ]
        if other is not None:
            runs.insert(3 if i % 2 else len(runs), ("ours_enrolled_at_rev", None))
        for key, run in runs:
            for rep in range(repeat):
                if key == "ours_enrolled_at_rev":
                    assert other is not None and model is not None
                    reply = other.scan(image, cal, model)
                    elapsed, spent, seen = reply["s"], reply["cpu_s"], reply["tiles"]
                elif key.startswith("ours"):
                    elapsed, spent, seen = scan_once(run, image)
                else:
                    start, spent = time.perf_counter(), time.process_time()
                    seen = run()
                    elapsed = time.perf_counter() - start
                    spent = time.process_time() - spent
                times[key].append(elapsed)
                cpu[key].append(spent)
                if rep > 0:
                    continue
                if key.startswith("detector"):
                    correct[key] += _score_detections(seen, centres, tiles, CLASS_NAMES)
                    continue
                used: set[int] = set()
                for x, y, tile, *_ in seen:
                    k = _match(truth_xy, x, y)
                    if k is not None and k not in used and tile == tiles[k].label:
                        used.add(k)
                correct[key] += len(used)
    out: dict[str, Any] = {"art": art, "frames": count, "tiles_34_kinds": total}
    out["configurations"] = {k: v for k, v in PEER_CONFIGURATIONS.items() if k in correct}
    for key in correct:
        out[key] = {
            "accuracy": correct[key] / total,
            "median_s": statistics.median(times[key]),
            # Process CPU time (all its threads): the work, whatever else the machine runs.
            "median_cpu_s": statistics.median(cpu[key]),
        }
    if other is not None:
        out["ours_enrolled_at_rev"]["rev"] = other.rev
    ours = out["ours_enrolled"]
    for key in ("detector", "detector_1thread", "detector_sahi", "ours_enrolled_at_rev"):
        if key in out:
            out[f"{key}_s_over_ours_enrolled_s"] = out[key]["median_s"] / ours["median_s"]
            out[f"{key}_cpu_over_ours_enrolled_cpu"] = (
                out[key]["median_cpu_s"] / ours["median_cpu_s"]
            )
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
    parser.add_argument("--scan-only", action="store_true", help="parts 3, 4 and 5 only")
    parser.add_argument(
        "--widths",
        type=int,
        nargs="+",
        metavar="PX",
        help="part 1 only, at each of these tile widths in camera pixels (part 1w)",
    )
    parser.add_argument(
        "--hands", type=int, default=12, help="part 5: hands laid out per held-out set"
    )
    parser.add_argument("--hands-only", action="store_true", help="part 5 only")
    parser.add_argument(
        "--live-only",
        action="store_true",
        help="parts 3b (the live-table scan cache) and 3c (touching dice) only",
    )
    parser.add_argument(
        "--dice-frames", type=int, default=40, help="part 3c: tables per kind of throw"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also scan every frame with the scanner of git revision REV (own process, "
        "alternately), and report both",
    )
    parser.add_argument(
        "--compare-frame-size",
        metavar="WxH",
        help="parts 3 and 5 alone, on the same tables seen by a 1920x1080 camera and by a WxH "
        "one (the table fills the frame's height)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="parts 3 and 4: timed runs of each frame per method"
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    embedder = Embedder()
    rng = np.random.default_rng(args.seed)
    report: dict[str, Any] = {"model": META, "embedding_runtime": embedder.runtime}
    if args.compare_frame_size:
        width, _, height = args.compare_frame_size.partition("x")
        sizes = (DEFAULT_FRAME_SIZE, (int(width), int(height)))
        scans: dict[str, list[dict[str, Any]]] = {f"{w}x{h}": [] for w, h in sizes}
        hands: dict[str, list[dict[str, Any]]] = {f"{w}x{h}": [] for w, h in sizes}
        # Set by set, one size after the other, so that both see the machine alike.
        for art in HELD_OUT:
            for w, h in sizes:
                scans[f"{w}x{h}"].append(
                    scan_bench(
                        embedder, art, args.frames, args.seed, "new", None, args.repeat, (w, h)
                    )
                )
        for art in HELD_OUT:
            for w, h in sizes:
                if args.hands > 0:
                    hands[f"{w}x{h}"].append(
                        hands_bench(embedder, art, args.hands, args.seed + 300, None, (w, h))
                    )
        report["scan_by_frame_size"] = scans
        report["hands_by_frame_size"] = hands
        print(json.dumps(report["scan_by_frame_size"], indent=1), flush=True)
        print(json.dumps(report["hands_by_frame_size"], indent=1), flush=True)
        return _write(report, args.json)
    if args.widths:
        report["identity_by_width"] = identity_by_width(embedder, args.per_kind, args.widths, rng)
        print(json.dumps(report["identity_by_width"], indent=1), flush=True)
        return _write(report, args.json)
    with tempfile.TemporaryDirectory() as tmp:
        other = OtherRevision(args.against, Path(tmp)) if args.against else None
        try:
            if not args.scan_only and not args.live_only and not args.hands_only:
                report["held_out_enrolled"] = held_out_enrolled(embedder, args.per_kind, rng, other)
                print(json.dumps(report["held_out_enrolled"], indent=1), flush=True)
                report["mixed_sets"] = mixed_sets(embedder, args.per_kind, rng, other)
                print(json.dumps(report["mixed_sets"], indent=1), flush=True)
                if args.identity_only:
                    return _write(report, args.json)
            if not args.live_only and args.hands > 0:
                report["hands"] = [
                    hands_bench(embedder, art, args.hands, args.seed + 300, other)
                    for art in HELD_OUT
                ]
                print(json.dumps(report["hands"], indent=1), flush=True)
            if not args.hands_only:
                report["cache"] = [
                    cache_bench(embedder, art, args.frames, args.seed, args.repeat)
                    for art in HELD_OUT
                ]
                print(json.dumps(report["cache"], indent=1), flush=True)
                if args.dice_frames > 0:
                    report["dice"] = dice_bench(args.dice_frames, args.seed, other)
                    print(json.dumps(report["dice"], indent=1), flush=True)
            if not args.live_only and not args.hands_only:
                report["scan"] = [
                    scan_bench(embedder, art, args.frames, args.seed, method, other, args.repeat)
                    for art in HELD_OUT
                    for method in ("old", "new")
                ]
                print(json.dumps(report["scan"], indent=1), flush=True)
                report["detector"] = [
                    detector_bench(embedder, art, args.frames, args.seed + 7, other, args.repeat)
                    for art in HELD_OUT
                ]
                print(json.dumps(report["detector"], indent=1), flush=True)
        finally:
            if other is not None:
                other.close()
    return _write(report, args.json)


def _write(report: dict[str, Any], path: Path | None) -> int:
    if path is not None:
        path.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
