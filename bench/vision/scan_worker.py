"""The full-table scan of one source tree, in a process of its own, so that two revisions of
the scanner can be timed side by side on the same frames in one run
(``bench_vision.py --against REV``).

    python bench/vision/scan_worker.py ROOT    # ROOT: a checkout holding the vision package

One JSON request per line on stdin, one JSON reply per line on stdout:

    {"frame": "f.npy", "calibration": "cal.json", "model": "model-dir", "stages": false}
    -> {"s": 0.021, "cpu_s": 0.020, "tiles": [[x_mm, y_mm, tile, best, face_down], ...]}
    {"crops": "crops.npy", "model": "model-dir"}     (tile crops to name, N x H x W x 3)
    -> {"identities": [[label or null, best], ...]}

With ``"stages": true`` the reply also holds the time of each stage (:func:`stage_times`);
with ``"dice": true`` the dice the scan saw (``[[x_mm, y_mm, pips], ...]``).
Both sides run OpenCV and the network on one thread each (a tree whose scanner embeds tiles
ahead, vision/embed_ahead.py, runs the network on a second thread beside the finder).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def scan_once(scanner: Any, frame: Any) -> tuple[float, float, list[list[Any]]]:
    """Seconds for one ``Scanner.scan`` (on the clock, and of this process's CPU time with
    that of the network's own process, where the scanner has one: on a shared machine the
    second counts only the work) and the tiles it saw. A scanner whose network runs in a
    process of its own is timed once that process has loaded (as the service runs it)."""
    if hasattr(scanner, "wait_ready"):
        scanner.wait_ready()
    network = scanner.network_cpu_s if hasattr(scanner, "network_cpu_s") else lambda: 0.0
    start, cpu, away = time.perf_counter(), time.process_time(), network()
    result = scanner.scan(frame)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu + network() - away
    tiles = [[t.x, t.y, t.tile, t.best, t.face_down, t.blank] for t in result.tiles]
    return elapsed, cpu, tiles


def stage_times(frame: Any, calibration: Any, recogniser: Any) -> dict[str, float]:
    """Seconds spent in each stage of a scan, through the stages' own functions (the ones
    every revision of the scanner has): finding, cutting the crops, the network, matching
    against the prototypes, the second look at unsure crops, the dice."""
    from vision import dice, finder

    marks = [time.perf_counter()]
    found = finder.find(frame, calibration)
    marks.append(time.perf_counter())
    tiles = [f for f in found if f.kind == "tile"]
    if hasattr(finder, "tile_crops"):
        crops = finder.tile_crops(frame, calibration, tiles)
    else:
        crops = [finder.tile_crop(frame, calibration, t) for t in tiles]
    marks.append(time.perf_counter())
    vectors = recogniser.embedder.embed(crops, shift_px=recogniser.shift_px)
    marks.append(time.perf_counter())
    identities = recogniser.identify_embeddings(vectors)
    marks.append(time.perf_counter())
    if hasattr(recogniser, "second_look"):  # the unsure crops looked at again
        recogniser.second_look(crops, vectors, identities)
    marks.append(time.perf_counter())
    for spot in found:
        if spot.kind == "die":
            dice.count_pips(dice.die_crop(frame, calibration, spot.x, spot.y, spot.angle))
    marks.append(time.perf_counter())
    names = ("find", "crops", "embed", "match", "retry", "dice")
    return {name: b - a for name, a, b in zip(names, marks[:-1], marks[1:], strict=True)}


def main() -> int:
    root = Path(sys.argv[1]).resolve()
    sys.path.insert(0, str(root))
    import cv2
    import numpy as np

    # The scan's threads (vision/threads.py's SCAN_THREADS), set by hand: the other revision
    # may predate that module.
    cv2.setNumThreads(1)
    from vision.calibration import Calibration
    from vision.identify import Recogniser
    from vision.scan import Scanner

    models: dict[str, Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        if request["model"] not in models:
            models[request["model"]] = Recogniser.load(Path(request["model"]))
        recogniser = models[request["model"]]
        if "crops" in request:  # crops to name, not a frame
            crops = list(np.load(request["crops"]))
            named = [[i.label, i.best] for i in recogniser.identify(crops)]
            print(json.dumps({"identities": named}), flush=True)
            continue
        frame = np.load(request["frame"])
        calibration = Calibration.load(Path(request["calibration"]))
        elapsed, cpu, tiles = scan_once(Scanner(calibration, recogniser), frame)
        reply: dict[str, Any] = {"s": elapsed, "cpu_s": cpu, "tiles": tiles}
        if request.get("stages"):
            reply["stages"] = stage_times(frame, calibration, recogniser)
        if request.get("dice"):
            seen = Scanner(calibration, recogniser).scan(frame).dice
            reply["dice"] = [[d.x, d.y, d.pips] for d in seen]
        print(json.dumps(reply), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
