"""Parts 3 and 5 of the vision benchmark (bench_vision.py): the full-table scan and hands laid
out to be scored, and the rendered tables, enrolment and counting the other parts share."""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from identity_parts import recognisers  # noqa: E402
from other_revision import OtherRevision  # noqa: E402
from scan_worker import scan_once, stage_times  # noqa: E402

from controller.scene import shown_hand_layout  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.capture import DEFAULT_FRAME_SIZE  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.identify import Recogniser  # noqa: E402
from vision.labels import BACK, BLANK, CHINESE_LABELS, LABELS  # noqa: E402
from vision.scan import Scanner  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.layout import random_layout  # noqa: E402
from vision.synth.render import CameraPose, Rendered, Style, render  # noqa: E402
from vision.synth.table_enrol import labelled_crops  # noqa: E402


def frame_size(text: str) -> tuple[int, int]:
    """A camera's frame size given as ``WxH`` on a command line (an ``argparse`` type)."""
    width, sep, height = text.partition("x")
    if not (sep and width.isdigit() and height.isdigit() and int(width) and int(height)):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT (e.g. 2304x1296), got {text!r}")
    return int(width), int(height)


def frames(
    count: int, art: str, seed: int, size: tuple[int, int] = DEFAULT_FRAME_SIZE
) -> list[Any]:
    """Rendered tables of ``art``, ~69 tiles each, seen by a camera of ``size`` pixels whose
    frame's height the table fills (1920x1080: a tile's face 24 px wide). Only the kinds the
    set has (some have no flowers and seasons); a set with every kind draws as before."""
    g = TableGeometry()
    faces = load_set(art)
    labels = [label for label in LABELS if label in faces]
    out = []
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        style = Style.random(rng, art)
        layout = random_layout(rng, labels, g, discards=44, exposures=4, walls=False)
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
    layout = shown_hand_layout(labels, seat, gaps.tolist(), geometry)
    return render(layout, style, rng, geometry, CameraPose.overhead(rng, *size))


def match_tile(truth_xy: np.ndarray, x: float, y: float, tol: float = 10.0) -> int | None:
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


def count_scan(
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
        k = match_tile(truth_xy, x, y)
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
                    count_scan(tiles, r.layout, counts[side], misses if side == "this" else None)
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
            count_scan(tiles, r.layout, counts[side], misses if side == "this" else None)
            named = counts[side]["correct"] - right_before
            whole[side] += named == len(r.layout.tiles) == len(tiles)

    def figures(name: str) -> dict[str, float]:
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
        **figures("this"),
        # Tiles found but not named right ("truth->named"), the commonest first; a hand's
        # tiles not found at all are in ``found``.
        "misses": dict(misses.most_common()),
    }
    if other is not None:
        out["against"] = {"rev": other.rev, **figures(other.rev)}
    return out
