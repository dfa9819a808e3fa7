"""profile_scan.py of this tree and of another revision, in turn, and their medians side by side.

    python bench/vision/profile_against.py --against 387a266 --rounds 4 [--json out.json]

Each round profiles the other revision (its files from git, ``git archive``, in a temporary
folder; it runs its own code on its own networks) and then this tree, each in a process of
its own, with the same arguments (``--frames``, ``--repeat``, ``--art``). Both sides are
timed by this tree's profile_scan.py (copied into the other's folder), so that a fix of the
timing counts on both: the other revision must have the functions it wraps. On a shared machine
the rounds alternate so that both sides meet the same load; the CPU figures are the ones to
compare there. Printed per set: each figure's median over the rounds, REV's -> this tree's.
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
from pathlib import Path
from typing import Any

from git_tree import unpack
from report_file import write_report

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
FIGURES = (
    "wall_ms",
    "scan_thread_cpu_ms",
    "process_cpu_ms",
    "other_threads_cpu_ms",
    "scan_thread_waited_for_a_core_ms",
    "network_beside_the_finder_ms",
    "second_thread_busy_ms",
    "second_thread_cpu_ms",
    "second_thread_idle_ms",
    "second_thread_idle_flatten_ms",
    "second_thread_idle_find_ms",
    "second_thread_idle_after_ms",
)


def checkout(rev: str, folder: Path) -> Path:
    """The files of ``rev`` (as git stores them) written under ``folder``."""
    unpack(rev, folder)
    harness = folder / "bench" / "vision" / HERE.with_name("profile_scan.py").name
    harness.write_bytes(HERE.with_name("profile_scan.py").read_bytes())
    return folder


def profile(tree: Path, args: list[str], out: Path) -> dict[str, Any]:
    """profile_scan.py of ``tree`` with ``args``, its report."""
    script = tree / "bench" / "vision" / "profile_scan.py"
    subprocess.run(
        [sys.executable, str(script), *args, "--json", str(out)],
        check=True,
        cwd=tree,
        stdout=subprocess.DEVNULL,
    )
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def medians(reports: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per set, each figure's and each stage's (CPU of its thread) median over the reports."""
    values: dict[str, dict[str, list[float]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    for report in reports:
        for run in report["sets"]:
            for key in FIGURES:
                if key in run:  # older harnesses lack the second thread's figures
                    values[run["art"]][key].append(run[key])
            for stage, ms in run["stages_thread_cpu_ms"].items():
                values[run["art"]]["cpu " + stage].append(ms)
            for stage, ms in run.get("stages_scan_thread_waited_ms", {}).items():
                values[run["art"]]["waited " + stage].append(ms)
    return {
        art: {key: round(statistics.median(v), 2) for key, v in figures.items()}
        for art, figures in values.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", required=True, help="git revision to profile beside")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--art", nargs="+", default=["kde-traditional", "xmj-real", "gnome-smooth"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    passed = ["--frames", str(args.frames), "--repeat", str(args.repeat), "--art", *args.art]
    reports: dict[str, list[dict[str, Any]]] = {args.against: [], "this tree": []}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        other = checkout(args.against, Path(tmp) / "tree")
        for n in range(args.rounds):
            loads.append(os.getloadavg()[0])
            for name, tree in ((args.against, other), ("this tree", ROOT)):
                reports[name].append(profile(tree, passed, Path(tmp) / f"{n}.json"))
    summary = {name: medians(runs) for name, runs in reports.items()}
    for art in args.art:
        print(f"== {art}: {args.against} -> this tree")
        theirs, ours = summary[args.against][art], summary["this tree"][art]
        for key in sorted(
            set(theirs) | set(ours), key=lambda k: (k.startswith(("cpu ", "waited ")), k)
        ):
            print(f"  {key:42s} {theirs.get(key, 0.0):8.2f} -> {ours.get(key, 0.0):8.2f}")
    print("load average at each round's start:", [round(x, 1) for x in loads])
    out = {"against": args.against, "load_average": loads, "medians": summary, "runs": reports}
    write_report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
