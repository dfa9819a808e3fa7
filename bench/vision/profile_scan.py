"""Where a whole-frame scan's time goes: per stage on the clock, per thread in CPU time, when
the network's runs happen beside the finder, which threads OpenCV and ONNX Runtime start,
and a cProfile of the scan's own thread.

    python bench/vision/profile_scan.py --frames 6 --repeat 3 [--art xmj-real] [--cprofile 20]

Every frame is scanned ``--repeat`` times by ``Scanner.scan`` as the benchmark runs it
(OpenCV on one thread, the network beside the finder on a second thread); the stages are
timed by wrapping the functions the scan calls, so the figures are of the real scan, with
its overlap, not of the stages each alone.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_vision import enrolled_recogniser, frames  # noqa: E402
from identity_parts import HELD_OUT  # noqa: E402

import vision.embed_ahead as embed_ahead_module  # noqa: E402
import vision.finder.finding as finding_module  # noqa: E402
import vision.scan as scan_module  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.identify import Recogniser  # noqa: E402
from vision.scan import Scanner  # noqa: E402

Event = tuple[str, str, float, float, float]  # stage, thread, start, end, thread CPU seconds


class Timeline:
    """Every wrapped call's start and end (clock) and its thread's CPU time, per scan."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.lock = threading.Lock()

    def wrap(self, owner: Any, name: str, stage: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                event = (
                    stage,
                    threading.current_thread().name,
                    start,
                    time.perf_counter(),
                    time.thread_time() - cpu,
                )
                with self.lock:
                    self.events.append(event)

        setattr(owner, name, timed)


def _threads() -> list[str]:
    """The names of this process's threads (the kernel's: ONNX Runtime's and OpenCV's
    pools show as further python threads)."""
    names = []
    for task in sorted(os.listdir("/proc/self/task")):
        names.append(Path(f"/proc/self/task/{task}/comm").read_text().strip())
    return names


def _run_delay() -> float:
    """Seconds this thread has waited for a core while ready to run (other processes on
    the machine), from the scheduler's statistics."""
    tid = threading.get_native_id()
    fields = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()
    return int(fields[1]) / 1e9


def _thread_cpu() -> dict[str, float]:
    """CPU seconds of every thread of this process, by thread id."""
    out = {}
    for task in os.listdir("/proc/self/task"):
        out[task] = int(Path(f"/proc/self/task/{task}/schedstat").read_text().split()[0]) / 1e9
    return out


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def instrument(recogniser: Recogniser, timeline: Timeline) -> None:
    """Wrap the functions a whole-frame scan calls with the timeline's timers (the modules'
    once, the recogniser's own each time)."""
    wrap = timeline.wrap
    embedder = recogniser.embedder
    if not hasattr(embedder, "_profiled"):
        embedder._profiled = True  # type: ignore[attr-defined]
        wrap(embedder, "blob", "network input")
        wrap(embedder, "_forward", "network")
        wrap(embedder, "vectors", "vectors")
    wrap(recogniser, "identify_embeddings", "match")
    wrap(recogniser, "second_look", "second look")
    wrap(recogniser, "bonus_look", "bonus gate")
    if recogniser.bonus_reader is not None:
        wrap(recogniser.bonus_reader, "read", "bonus reader")
    if getattr(scan_module, "_profiled", False):
        return
    scan_module._profiled = True  # type: ignore[attr-defined]
    wrap(scan_module, "rectify", "flatten")
    wrap(scan_module, "cloth_of", "cloth colour")
    wrap(finding_module, "cloth_mask", "cloth mask")
    wrap(finding_module, "blobs_of", "blobs")
    wrap(finding_module, "_look", "looks (dice)")
    wrap(finding_module, "blob_rects", "rectangles")
    wrap(finding_module, "first_rows", "first rows")
    wrap(finding_module, "split_rows", "rows cut")
    wrap(finding_module, "_add_blob", "blob judged")
    wrap(finding_module, "rows_or_obstruction", "deep rows")
    wrap(scan_module, "find", "find (all)")
    wrap(embed_ahead_module, "tile_crops", "crops")
    wrap(embed_ahead_module.EmbedAhead, "add", "tiles handed over")
    wrap(scan_module, "count_pips", "dice pips")
    wrap(scan_module, "die_crop", "dice crop")


TIMELINE = Timeline()


def profile_scans(
    art: str, count: int, repeat: int, seed: int, embedder: Embedder, cprofile: int
) -> dict[str, Any]:
    recogniser = enrolled_recogniser(embedder, art, seed, "new")
    timeline = TIMELINE
    instrument(recogniser, timeline)
    # The ahead runs go through the one-thread session when the finder is busy.
    per_stage: dict[str, list[float]] = collections.defaultdict(list)
    per_stage_cpu: dict[str, list[float]] = collections.defaultdict(list)
    walls, cpus, main_cpu, other_cpu, overlap, after_find = [], [], [], [], [], []
    waited, alone, handed_at, find_ends = [], [], [], []
    threads_seen: set[str] = set()
    profiler = cProfile.Profile() if cprofile else None
    for r in frames(count, art, seed):
        cal = calibrate(r.image, r.geometry)
        scanner = Scanner(cal, recogniser)
        scanner.scan(r.image)  # the thread started, the sessions loaded
        sequential = Scanner(cal, recogniser, ahead=False)
        for _ in range(repeat):
            start = time.perf_counter()
            sequential.scan(r.image)
            alone.append(time.perf_counter() - start)
            timeline.events.clear()
            before = _thread_cpu()
            me = str(threading.get_native_id())
            delay = _run_delay()
            start, cpu, tcpu = time.perf_counter(), time.process_time(), time.thread_time()
            with profiler if profiler is not None else _nothing():
                scanner.scan(r.image)
            wall = time.perf_counter() - start
            waited.append(_run_delay() - delay)
            walls.append(wall)
            cpus.append(time.process_time() - cpu)
            main_cpu.append(time.thread_time() - tcpu)
            after = _thread_cpu()
            other_cpu.append(sum(after[t] - before.get(t, 0.0) for t in after if t != me))
            threads_seen.update(_threads())
            sums: dict[str, float] = collections.defaultdict(float)
            sums_cpu: dict[str, float] = collections.defaultdict(float)
            find_end = max((e[3] for e in timeline.events if e[0] == "find (all)"), default=start)
            find_start = min((e[2] for e in timeline.events if e[0] == "find (all)"), default=start)
            ran_beside = 0.0
            for stage, thread, t0, t1, tc in timeline.events:
                key = stage + (" [2nd thread]" if thread != "MainThread" else "")
                sums[key] += t1 - t0
                sums_cpu[key] += tc
                if stage == "network" and thread != "MainThread":
                    ran_beside += max(0.0, min(t1, find_end) - max(t0, find_start))
            for key in set(sums) | set(per_stage):
                per_stage[key].append(sums.get(key, 0.0))
                per_stage_cpu[key].append(sums_cpu.get(key, 0.0))
            overlap.append(ran_beside)
            handed = sorted(e[2] - start for e in timeline.events if e[0] == "tiles handed over")
            handed_at.append(handed[len(handed) // 2] if handed else 0.0)
            find_ends.append(find_end - start)
            after_find.append(start + wall - find_end)
        scanner.close()
    out: dict[str, Any] = {
        "art": art,
        "scans": len(walls),
        "wall_ms": _ms(walls),
        "process_cpu_ms": _ms(cpus),
        "scan_thread_cpu_ms": _ms(main_cpu),
        # Ready to run but without a core (other processes): the rest of wall - CPU on the
        # scan's thread is waiting (for the interpreter, or for the other thread's runs).
        "scan_thread_waited_for_a_core_ms": _ms(waited),
        "wall_ms_without_the_second_thread": _ms(alone),
        "other_threads_cpu_ms": _ms(other_cpu),
        "network_beside_the_finder_ms": _ms(overlap),
        # When the finder hands over its tiles: the middle hand-over, and the finder's end.
        "middle_hand_over_at_ms": _ms(handed_at),
        "finder_ends_at_ms": _ms(find_ends),
        "after_the_finder_ms": _ms(after_find),
        "stages_wall_ms": {k: _ms(v) for k, v in sorted(per_stage.items())},
        "stages_thread_cpu_ms": {k: _ms(v) for k, v in sorted(per_stage_cpu.items())},
        "threads": sorted(collections.Counter(_threads()).items()),
        "threads_seen": sorted(threads_seen),
    }
    if profiler is not None:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(cprofile)
        out["cprofile_tottime"] = [line for line in text.getvalue().splitlines() if line.strip()][
            -cprofile - 1 :
        ]
    return out


def _ms(values: list[float]) -> float:
    return round(1000 * statistics.median(values), 2)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--art", nargs="+", default=list(HELD_OUT))
    parser.add_argument("--cprofile", type=int, default=0, help="top N functions by own time")
    parser.add_argument("--opencv-threads", type=int, default=1)
    parser.add_argument(
        "--switch-interval", type=float, help="the interpreter's thread switch interval, in s"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    cv2.setNumThreads(args.opencv_threads)
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    embedder = Embedder()
    report = {
        "load_average": os.getloadavg(),
        "opencv_threads": cv2.getNumThreads(),
        "switch_interval_s": sys.getswitchinterval(),
        "sets": [
            profile_scans(art, args.frames, args.repeat, args.seed, embedder, args.cprofile)
            for art in args.art
        ],
    }
    report["load_average_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
