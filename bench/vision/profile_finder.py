"""The finder alone, stage by stage: the CPU of each of its functions a frame, for revisions
and this tree in turn (each idea of a branch measured commit by commit).

    python bench/vision/profile_finder.py --revs f427c46 8b5f5ac ae137d8 [--rounds 3] \
        [--frames 3] [--repeat 10] [--json out.json]

Every round runs each revision (its files from git, ``git archive``) and then this tree, each
in a process of its own, in turn, so that all meet the same load. A process renders
``--frames`` frames of each held-out set, flattens them and takes the cloth's colour once,
then calls ``find`` on them ``--repeat`` times, the finder's functions wrapped by a timer of
the thread's CPU (those a revision lacks are left out). Printed: each function's median over
the rounds, ms a frame, revision by revision. Functions nest: ``_cut`` holds ``cut_strips``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from git_tree import unpack
from report_file import write_report

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
ARTS = ("kde-traditional", "xmj-real", "gnome-smooth")
# (module of vision.finder, function, the modules that call it by that name)
STAGES = (
    ("finding", "find", ("finding",)),
    ("finding", "cloth_mask", ("finding",)),
    ("finding", "cloth_mask_outlined", ("finding",)),  # cloth_mask with the blobs' outlines
    ("cloth", "boxes_near", ("cloth",)),
    ("finding", "blobs_of", ("finding",)),
    ("finding", "_blobs_found", ("finding",)),
    ("finding", "_look", ("finding",)),
    ("finding", "dice_in", ("finding",)),
    ("finding", "blob_rects", ("finding",)),
    ("finding", "first_rows", ("finding",)),
    ("deep_rows", "row_parts", ("deep_rows", "split")),
    ("finding", "split_rows", ("finding",)),
    ("one_row", "_cut", ("one_row",)),
    ("one_row", "cut_strips", ("one_row",)),
    ("one_row", "seam_profiles", ("one_row",)),
    ("one_row", "_tiles", ("one_row",)),
    ("cutting", "partition_laid", ("cutting",)),
    ("finding", "split_blob", ("finding",)),
    ("finding", "rows_or_obstruction", ("finding",)),
)


def _timed(inner: Callable[..., Any], name: str, spent: dict[str, float]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[name] += time.thread_time() - start

    return timed


def child(frames: int, repeat: int) -> dict[str, float]:
    """In the tree this process imports from: each stage's median CPU a frame (ms)."""
    import importlib

    import cv2

    sys.path.insert(0, str(Path.cwd() / "bench" / "vision"))
    from scan_parts import frames as rendered

    from vision.calibration import calibrate
    from vision.finder.cloth import cloth_of
    from vision.finder.topdown import rectify

    cv2.setNumThreads(1)
    spent: dict[str, float] = collections.defaultdict(float)
    for owner, name, callers in STAGES:
        module = importlib.import_module(f"vision.finder.{owner}")
        if hasattr(module, name):
            wrapped = _timed(getattr(module, name), name, spent)
            for caller in callers:
                setattr(importlib.import_module(f"vision.finder.{caller}"), name, wrapped)
    finding = importlib.import_module("vision.finder.finding")
    tables = []
    for art in ARTS:
        for r in rendered(frames, art, 2024):
            cal = calibrate(r.image, r.geometry)
            top = rectify(r.image, cal)
            tables.append((top, cal, cloth_of(top, cal.geometry)))
    per_round: dict[str, list[float]] = collections.defaultdict(list)
    for n in range(repeat + 1):  # the first a warm-up
        spent.clear()
        for top, cal, cloth in tables:
            finding.find(top, cal, top=top, cloth=cloth)
        for name, seconds in spent.items():
            if n:
                per_round[name].append(1000 * seconds / len(tables))
    return {name: statistics.median(ms) for name, ms in per_round.items()}


def _run(tree: Path, frames: int, repeat: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, str(HERE), "--child", "--frames", str(frames), "--repeat", str(repeat)],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    stages: dict[str, float] = json.loads(out.splitlines()[-1])
    return stages


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--revs", nargs="*", default=[], help="git revisions, before this tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.frames, args.repeat)))
        return 0
    runs: dict[str, list[dict[str, float]]] = {rev: [] for rev in [*args.revs, "this tree"]}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: unpack(rev, Path(tmp) / rev) for rev in args.revs}
        trees["this tree"] = ROOT
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for rev, tree in trees.items():
                runs[rev].append(_run(tree, args.frames, args.repeat))
    medians = {
        rev: {name: round(statistics.median(r[name] for r in rounds), 2) for name in rounds[0]}
        for rev, rounds in runs.items()
    }
    print("function".ljust(22) + "".join(rev[:10].rjust(11) for rev in medians))
    for _, name, _ in STAGES:
        row = "".join(f"{m.get(name, float('nan')):11.2f}" for m in medians.values())
        print(name.ljust(22) + row)
    print("load average at each round's start:", [round(x, 1) for x in loads])
    write_report({"load_average": loads, "medians": medians, "runs": runs}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
