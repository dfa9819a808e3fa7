"""A hand over the table while play goes on: how soon the watcher reports a new discard, and
what it reports that did not happen; and hands seen where there are none.

    .venv/bin/python bench/vision/bench_watch.py --tables 10 --json bench/vision/results-watch.json
    .venv/bin/python bench/vision/bench_watch.py --laid 3 --json bench/vision/results-laid.json

Each table (a held-out art set, enrolled as part 3 of bench_vision.py enrols it) is seen for
``--warm`` frames as it is, then a new discard lands while a hand reaches over the table from
East's edge (the renderer's hand: fingers, palm and forearm) for ``--hand-frames`` frames,
then the hand is gone for ``--clear-frames`` more. Every frame is rendered again with fresh
sensor noise and scanned once by the camera loop's scanner (``cache=True``). The same scans
go to three watchers side by side:

* ``whole table``: ``hidden_margin_mm=inf``, every tile held still while anything is over
  the table (exactly the watcher before obstructions had extents);
* ``local``: what lies under the hand or within ``hidden_margin_mm`` (40) of it held still;
* ``local, known at start``: ``local`` with ``known_at_start``, as the camera loop runs it:
  what its first clear view holds is known, including tiles it names only later.

Two cases per table: the discard lands ``away`` from the hand (West, North or South's side:
another player reaches for the wall as it lands), and ``beside`` it (next to the fingers: the
discarder's hand still over the table). Reported: the frames from the landing to the
discard's report (5 frames a second in the service), the discards never reported, every
other observation after the first ``--warm`` frames (what did not happen: most are tiles
named anew, which both watchers report alike), and of those, what one watcher reported and
the other did not.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cache_part import free_spot  # noqa: E402
from identity_parts import HELD_OUT  # noqa: E402
from report_file import write_report  # noqa: E402
from scan_parts import enrolled_recogniser  # noqa: E402

from controller.scene import table_layout  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.identify import DEFAULT_MODEL_DIR, Recogniser  # noqa: E402
from vision.labels import CHINESE_LABELS, LABELS  # noqa: E402
from vision.observe import TableWatcher  # noqa: E402
from vision.scan import Scanner, ScanResult  # noqa: E402
from vision.synth.layout import Layout, TilePlacement, random_layout  # noqa: E402
from vision.synth.render import Style, render_still  # noqa: E402

WATCHERS: dict[str, dict[str, Any]] = {
    "whole table": {"hidden_margin_mm": math.inf},
    "local": {},
    "local, known at start": {"known_at_start": True},
}
CASES = ("away", "beside")
FPS = 5.0


def _spot(
    layout: Layout, geometry: TableGeometry, rng: np.random.Generator, case: str
) -> tuple[float, float]:
    """Where the new discard lands (``cache_part.free_spot``): away from East's side
    (``away``) or 45-55 mm to the side of the hand's fingers (``beside``)."""
    assert layout.hand is not None
    hx, hy = layout.hand

    def draw() -> tuple[float, float]:
        if case == "away":
            return rng.uniform(200, 700), rng.uniform(200, 480)
        return hx + rng.choice([-1, 1]) * rng.uniform(45, 55), hy + rng.uniform(-40, 0)

    return free_spot(layout, geometry, rng, draw, tries=5000)


def table_scans(
    recogniser: Any, art: str, seed: int, case: str, warm: int, hand: int, clear: int
) -> tuple[list[ScanResult], str]:
    """The scans of one table's frames, and the tile of the new discard."""
    g = TableGeometry()
    rng = np.random.default_rng(seed)
    style = Style.random(rng, art)
    before = random_layout(rng, LABELS, g, discards=28, exposures=3, walls=True)
    with_hand = copy.deepcopy(before)
    with_hand.hand = (float(rng.uniform(300, 600)), float(rng.uniform(600, 700)))
    x, y = _spot(with_hand, g, rng, case)
    tile = LABELS[int(rng.integers(34))]
    with_hand.tiles.append(TilePlacement(tile, x, y, float(rng.uniform(-3, 3))))
    after = copy.deepcopy(with_hand)
    after.hand = None
    scenes = [before] * warm + [with_hand] * hand + [after] * clear
    look = seed + 500
    frames = [render_still(scene, style, look, k, g).image for k, scene in enumerate(scenes)]
    scanner = Scanner(calibrate(frames[0], g), recogniser, cache=True)
    try:
        return [scanner.scan(f) for f in frames], tile
    finally:
        scanner.close()


def watch(
    scans: list[ScanResult], watcher: TableWatcher, warm: int, tile: str
) -> tuple[int | None, list[str]]:
    """The frame after the landing at which the discard was reported (None: never), and the
    observations after warming up that are not it."""
    reported, other = None, []
    for i, scan in enumerate(scans):
        for obs in watcher.update(scan, time_us=i):
            if i < warm:
                continue
            if reported is None and obs.kind.value == "discard" and obs.tiles == (tile,):
                reported = i - warm + 1
            else:
                other.append(f"{obs.kind.value} {' '.join(obs.tiles) or '(not read)'}")
    return reported, other


def laid_one_by_one(args: argparse.Namespace) -> dict[str, Any]:
    """``--laid``: each seat's discards laid in turn, 12 each, as the simulated table lays
    them (rows of six; from the seventh, two rows joined by blur and shadow), no hand at all;
    every frame scanned by the live cache and, for comparison, whole. Counted: frames in which
    an obstruction was reported (each one held the table still there), the cache remembering
    the set's body colour for the parts it looks at again, and as before, without it."""
    g = TableGeometry()
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    kinds = CHINESE_LABELS[:34]
    out: dict[str, Any] = {"tables_per_set": args.laid, "discards_per_table": 48, "sets": {}}
    for art in args.sets:
        counts = {"frames": 0, "cached": 0, "cached_as_before": 0, "whole": 0}
        for i in range(args.laid):
            seed = args.seed + 7000 + i
            style = Style.random(np.random.default_rng(seed), art)
            discards: dict[str, list[str]] = {s: [] for s in "ESWN"}
            frames = []
            for k in range(48):
                discards["ESWN"[k % 4]].append(kinds[(k * 7 + i) % 34])
                view = {"seats": {s: {"discards": list(d)} for s, d in discards.items()}}
                layout = table_layout(view, geometry=g)
                frames.append(render_still(layout, style, seed + 500, k, g).image)
            cal = calibrate(frames[-1], g)
            for name in ("cached", "cached_as_before"):
                with Scanner(cal, recogniser, cache=True) as scanner:
                    assert scanner.memory is not None
                    for frame in frames:
                        if name == "cached_as_before":
                            scanner.memory.body = None
                        counts[name] += bool(scanner.scan(frame).obstructions)
            with Scanner(cal, recogniser) as whole:
                counts["whole"] += sum(bool(whole.scan(f).obstructions) for f in frames)
            counts["frames"] += len(frames)
        out["sets"][art] = counts
        print(art, "laid one by one", json.dumps(counts), flush=True)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    embedder = Embedder()
    out: dict[str, Any] = {
        "tables_per_set_and_case": args.tables,
        "frames": {"warm": args.warm, "hand": args.hand_frames, "clear": args.clear_frames},
        "fps_in_service": FPS,
        "sets": {},
    }
    for art in args.sets:
        recogniser = enrolled_recogniser(embedder, art, args.seed, "new")
        per_case: dict[str, Any] = {}
        for case in CASES:
            keys = ("frames_to_report", "other", "other_not_by_the_other")
            results: dict[str, dict[str, Any]] = {
                name: {"never": 0} | {key: [] for key in keys} for name in WATCHERS
            }
            obstructed = 0
            for i in range(args.tables):
                seed = args.seed + 1000 * CASES.index(case) + i
                scans, tile = table_scans(
                    recogniser,
                    art,
                    seed,
                    case,
                    args.warm,
                    args.hand_frames,
                    args.clear_frames,
                )
                hand = scans[args.warm : args.warm + args.hand_frames]
                obstructed += sum(bool(s.obstructions) for s in hand)
                others = {}
                for name, kwargs in WATCHERS.items():
                    watcher = TableWatcher(stable_frames=3, **kwargs)
                    frame, others[name] = watch(scans, watcher, args.warm, tile)
                    r = results[name]
                    if frame is None:
                        r["never"] += 1
                    else:
                        r["frames_to_report"].append(frame)
                    r["other"] += others[name]
                # What one watcher made up that the other did not, on the same scans.
                whole, local = Counter(others["whole table"]), Counter(others["local"])
                results["local"]["other_not_by_the_other"] += list((local - whole).elements())
                results["whole table"]["other_not_by_the_other"] += list((whole - local).elements())
            summary: dict[str, Any] = {
                "hand_frames_with_an_obstruction": obstructed / (args.tables * args.hand_frames)
            }
            for name, r in results.items():
                got = r["frames_to_report"]
                summary[name] = {
                    "reported": len(got),
                    "never": r["never"],
                    "median_frames_to_report": statistics.median(got) if got else None,
                    "median_seconds_at_5fps": statistics.median(got) / FPS if got else None,
                    "reported_while_the_hand_was_there": sum(f <= args.hand_frames for f in got),
                    "other_observations": len(r["other"]),
                    "other": r["other"],
                    "other_not_by_the_other": r["other_not_by_the_other"],
                }
            per_case[case] = summary
            print(art, case, json.dumps(summary), flush=True)
        out["sets"][art] = per_case
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--sets", nargs="+", default=HELD_OUT)
    parser.add_argument("--warm", type=int, default=4)
    parser.add_argument("--hand-frames", type=int, default=10)
    parser.add_argument("--clear-frames", type=int, default=6)
    parser.add_argument("--seed", type=int, default=4100)
    parser.add_argument(
        "--laid", type=int, default=0, help="instead: tables of discards laid one by one"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out = laid_one_by_one(args) if args.laid else run(args)
    write_report(out, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
