"""Where a whole-frame scan's time goes: per stage on the clock, per thread in CPU time, when
the network's runs happen beside the finder, how long the second thread is busy and idle
(before the finder, during it, after it) and how long each stage of the scan's own thread is
off its core (``stages_scan_thread_waited_ms``: its clock less its CPU, waiting for the
interpreter, for the other thread or for a core), which threads OpenCV and ONNX Runtime
start, and a cProfile of the scan's own thread.

    python bench/vision/profile_scan.py --frames 6 --repeat 3 [--art xmj-real] [--cprofile 20]

Every frame is scanned ``--repeat`` times by ``Scanner.scan`` as the benchmark runs it
(OpenCV on one thread, the network beside the finder on a second thread); the stages are
timed by wrapping the functions the scan calls, so the figures are of the real scan, with
its overlap, not of the stages each alone.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures.thread as pool_module
import cProfile
import io
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

from identity_parts import HELD_OUT  # noqa: E402
from report_file import show_and_write  # noqa: E402
from scan_parts import enrolled_recogniser, frames  # noqa: E402

import vision.embed_ahead as embed_ahead_module  # noqa: E402
import vision.finder.finding as finding_module  # noqa: E402
import vision.scan as scan_module  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.identify import Recogniser  # noqa: E402
from vision.scan import Scanner  # noqa: E402
from vision.threads import SCAN_THREADS, ScanThreads  # noqa: E402

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
        try:
            names.append(Path(f"/proc/self/task/{task}/comm").read_text().strip())
        except (FileNotFoundError, ProcessLookupError):  # ended meanwhile (a scanner's thread)
            continue
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


TIMELINE = Timeline()
# Scanner's keywords for where the network runs (``--network``).
AWAY: dict[str, bool] = {}


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
    reader = recogniser.bonus_reader
    if reader is not None and not hasattr(reader, "_profiled"):
        reader._profiled = True  # type: ignore[attr-defined]  # shared: wrapped once
        wrap(reader, "read", "bonus reader")
        # Its network's runs too: a crop's rows turned over run on the second thread alone.
        wrap(reader, "_forward", "bonus reader's runs")
    if getattr(scan_module, "_profiled", False):
        return
    scan_module._profiled = True  # type: ignore[attr-defined]
    on_cloth = sys.modules.get("vision.finder.on_cloth")  # older revisions flatten it all
    if on_cloth is None:
        wrap(scan_module, "rectify", "flatten")
        wrap(scan_module, "cloth_of", "cloth colour")
    else:  # the table's colour and the mask's grid flattened alone, then only near blobs
        wrap(on_cloth, "rectify_every_nth", "flatten")
        wrap(on_cloth, "flatten_near", "flatten")
        wrap(on_cloth, "cloth_from_frame", "cloth colour")
        wrap(on_cloth, "coarse_marks", "cloth mask")
        wrap(on_cloth, "boxes_near", "cloth mask")
        wrap(on_cloth, "fine_mask", "cloth mask")
        if hasattr(on_cloth, "cloth_canvas"):  # the cloth's colour laid, on either thread
            wrap(on_cloth, "cloth_canvas", "cloth laid")
    for name in ("cloth_mask", "cloth_mask_outlined"):  # by revision, the mask find makes
        if hasattr(finding_module, name):
            wrap(finding_module, name, "cloth mask")
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
    # On the clock: how long the scan's thread waits for the second thread's runs.
    wrap(embed_ahead_module._ThreadRun, "result", "runs collected")
    wrap(scan_module, "count_pips", "dice pips")
    wrap(scan_module, "die_crop", "dice crop")
    # Every task the second thread runs, whatever it is: its busy and idle time.
    wrap(pool_module._WorkItem, "run", SECOND_THREAD_TASK)


Samples = dict[str, list[float]]
SECOND_THREAD_TASK = "second thread's task"


def _second_thread(
    events: list[Event], start: float, wall: float, find_start: float, find_end: float
) -> dict[str, float]:
    """The second thread's busy time (its tasks, cancelled ones included at no cost, on
    the clock and in CPU) and its idle time: in all, while the table is flattened and
    masked (before ``find``), while the finder finds, and after it."""
    tasks = [(t0, t1, cpu) for stage, _, t0, t1, cpu in events if stage == SECOND_THREAD_TASK]
    end = start + wall
    phases = {
        "flatten": (start, find_start),
        "find": (find_start, find_end),
        "after": (find_end, end),
    }
    out = {
        "second_thread_busy_ms": sum(t1 - t0 for t0, t1, _ in tasks),
        "second_thread_cpu_ms": sum(cpu for _, _, cpu in tasks),
        "second_thread_tasks": float(len(tasks)),
    }
    for phase, (p0, p1) in phases.items():
        busy = sum(max(0.0, min(t1, p1) - max(t0, p0)) for t0, t1, _ in tasks)
        out[f"second_thread_idle_{phase}_ms"] = max(0.0, p1 - p0 - busy)
    out["second_thread_idle_ms"] = max(0.0, wall - out["second_thread_busy_ms"])
    return out


def _timeline_of(events: list[Event], start: float, wall: float, samples: Samples) -> None:
    """One scan's events added to ``samples``: each stage's time on the clock and in CPU
    (per thread), how long the network ran beside the finder, and when tiles were handed
    over and the finder ended."""
    find = [e for e in events if e[0] == "find (all)"]
    find_start = min((e[2] for e in find), default=start)
    find_end = max((e[3] for e in find), default=start)
    sums: dict[str, float] = collections.defaultdict(float)
    ran_beside = 0.0
    for stage, thread, t0, t1, cpu in events:
        if stage == SECOND_THREAD_TASK:
            continue  # counted whole below
        if thread == "MainThread":  # off its core: the interpreter, the other thread, others
            sums["waited " + stage] += (t1 - t0) - cpu
        key = stage + (" [2nd thread]" if thread != "MainThread" else "")
        sums["wall " + key] += t1 - t0
        sums["cpu " + key] += cpu
        if stage == "network" and thread != "MainThread":
            ran_beside += max(0.0, min(t1, find_end) - max(t0, find_start))
    done = len(samples["network_beside_the_finder_ms"])  # scans before this one
    sums.update(_second_thread(events, start, wall, find_start, find_end))
    for key in set(sums) | {k for k in samples if k.startswith(("wall ", "cpu ", "waited "))}:
        if key not in samples:  # a stage first run now took no time in the scans before
            samples[key] = [0.0] * done
        samples[key].append(sums.get(key, 0.0))
    samples["network_beside_the_finder_ms"].append(ran_beside)
    handed = sorted(e[2] - start for e in events if e[0] == "tiles handed over")
    samples["middle_hand_over_at_ms"].append(handed[len(handed) // 2] if handed else 0.0)
    samples["finder_ends_at_ms"].append(find_end - start)
    samples["after_the_finder_ms"].append(start + wall - find_end)


def _profiled_scan(scanner: Scanner, frame: Any, profiler: Any, samples: Samples) -> float:
    """One scan, timed on the clock, in CPU time per thread and in waiting for a core; when
    it began (its events stay in the timeline until the next scan)."""
    TIMELINE.events.clear()
    before, me, delay = _thread_cpu(), str(threading.get_native_id()), _run_delay()
    network = getattr(scanner, "network_cpu_s", lambda: 0.0)
    start, cpu, tcpu, away = time.perf_counter(), time.process_time(), time.thread_time(), network()
    with profiler if profiler is not None else _nothing():
        scanner.scan(frame)
    wall = time.perf_counter() - start
    samples["wall_ms"].append(wall)
    samples["process_cpu_ms"].append(time.process_time() - cpu)
    # The network's own process (vision/embed_process.py), where it runs there.
    samples["network_process_cpu_ms"].append(network() - away)
    samples["all_cpu_ms"].append(time.process_time() - cpu + network() - away)
    samples["scan_thread_cpu_ms"].append(time.thread_time() - tcpu)
    # Ready to run but without a core (other processes): the rest of wall - CPU on the
    # scan's thread is waiting (for the interpreter, or for the other thread's runs).
    samples["scan_thread_waited_for_a_core_ms"].append(_run_delay() - delay)
    after = _thread_cpu()
    other = sum(after[t] - before.get(t, 0.0) for t in after if t != me)
    samples["other_threads_cpu_ms"].append(other)
    _timeline_of(TIMELINE.events, start, wall, samples)
    return start


def _events_of(events: list[Event], start: float) -> list[list[Any]]:
    """A scan's events in the order they began: stage, thread (the scan's or the second),
    start and end on the clock and the thread's CPU, in ms from the scan's start."""
    return [
        [
            stage,
            "scan" if thread == "MainThread" else "second",
            round(1000 * (t0 - start), 2),
            round(1000 * (t1 - start), 2),
            round(1000 * cpu, 2),
        ]
        for stage, thread, t0, t1, cpu in sorted(events, key=lambda e: e[2])
    ]


def profile_scans(
    art: str,
    count: int,
    repeat: int,
    seed: int,
    embedder: Embedder,
    cprofile: int,
    threads: ScanThreads = SCAN_THREADS,
    timeline: bool = False,
) -> dict[str, Any]:
    recogniser = enrolled_recogniser(embedder, art, seed, "new")
    instrument(recogniser, TIMELINE)
    samples: Samples = collections.defaultdict(list)
    profiler = cProfile.Profile() if cprofile else None
    for r in frames(count, art, seed):
        cal = calibrate(r.image, r.geometry)
        scanner = Scanner(cal, recogniser, threads=threads, **AWAY)
        if hasattr(scanner, "wait_ready"):
            scanner.wait_ready()  # the network's process loaded
        scanner.scan(r.image)  # the thread started, the sessions loaded
        sequential = Scanner(cal, recogniser, ahead=False, threads=threads)
        for _ in range(repeat):
            start = time.perf_counter()
            sequential.scan(r.image)
            samples["wall_ms_without_the_second_thread"].append(time.perf_counter() - start)
            began = _profiled_scan(scanner, r.image, profiler, samples)
        scanner.close()
    out: dict[str, Any] = {"art": art, "scans": len(samples["wall_ms"])}
    out.update(
        {k: _ms(v) for k, v in samples.items() if not k.startswith(("wall ", "cpu ", "waited "))}
    )
    out["second_thread_tasks"] = round(statistics.median(samples["second_thread_tasks"]), 1)
    kinds = (
        ("wall ", "stages_wall_ms"),
        ("cpu ", "stages_thread_cpu_ms"),
        ("waited ", "stages_scan_thread_waited_ms"),
    )
    for kind, name in kinds:
        stages = {k.removeprefix(kind): v for k, v in samples.items() if k.startswith(kind)}
        out[name] = {k: _ms(v) for k, v in sorted(stages.items())}
    out["threads"] = sorted(collections.Counter(_threads()).items())
    if timeline:  # the last scan's, stage by stage on both threads
        out["timeline_of_the_last_scan"] = _events_of(TIMELINE.events, began)
    if profiler is not None:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(cprofile)
        lines = [line for line in text.getvalue().splitlines() if line.strip()]
        out["cprofile_tottime"] = lines[-cprofile - 1 :]
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
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="also each set's last scan, stage by stage: on which thread, when, its CPU",
    )
    parser.add_argument("--opencv-threads", type=int, default=SCAN_THREADS.opencv)
    parser.add_argument(
        "--switch-interval",
        type=float,
        default=SCAN_THREADS.switch_interval_s,
        help="the interpreter's thread switch interval, in s (default: the service's)",
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--network",
        choices=("default", "thread", "process"),
        default="default",
        help="where the network runs: the service's setting (MJTABLE_NETWORK_PROCESS), the "
        "scan's second thread, or a process of its own",
    )
    args = parser.parse_args()
    if args.network != "default":
        AWAY["away"] = args.network == "process"
    threads = ScanThreads(args.opencv_threads, args.switch_interval)
    threads.apply()  # before the network loads: its sessions take OpenCV's setting
    embedder = Embedder()
    report = {
        "load_average": os.getloadavg(),
        "opencv_threads": cv2.getNumThreads(),
        "switch_interval_s": sys.getswitchinterval(),
        "network": args.network,
        "sets": [
            profile_scans(
                art,
                args.frames,
                args.repeat,
                args.seed,
                embedder,
                args.cprofile,
                threads,
                args.timeline,
            )
            for art in args.art
        ],
    }
    report["load_average_after"] = os.getloadavg()
    show_and_write(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
