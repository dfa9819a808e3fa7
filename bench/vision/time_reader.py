"""The bonus-tile reader's networks timed side by side, and what ONNX Runtime runs them as.

    .venv/bin/python bench/vision/time_reader.py float=vision/models/bonus_read.onnx \
        static=STATIC.int8.onnx qat=QAT.int8.onnx [--rounds 7] [--json out.json]

Each network reads the same 4 crops of the held-out ``kde-traditional`` set both ways up
(8 images: a frame's typical read), on one thread as the scan runs it; the networks take
turns, 200 runs each a round, timed by the thread's CPU time, so every figure is measured
beside the others. For each: the median CPU per run, its ratio to the first network's, the
largest difference of its output from the first's, and the kernels ONNX Runtime chose after
optimising the graph (``QLinearConv``, ``ConvInteger`` and the like: the convolutions run in
8 bits; ``Conv``: in floats).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from report_file import show_and_write  # noqa: E402

from vision.embedder import Forward, _ort_forward  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402

RUNS = 200


def kernels(path: Path) -> dict[str, int]:
    """The operators of ``path``'s graph after ONNX Runtime's optimisations, counted."""
    with tempfile.TemporaryDirectory() as tmp:
        optimised = Path(tmp) / "optimised.onnx"
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3  # no warning that an optimised graph suits this machine
        options.optimized_model_filepath = str(optimised)
        ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        counts = Counter(node.op_type for node in onnx.load(str(optimised)).graph.node)
    return dict(sorted(counts.items()))


def images(count: int = 4) -> np.ndarray:
    """``count`` camera-like crops, both ways up, as the reader's input."""
    rng = np.random.default_rng(1)
    faces = list(load_set("kde-traditional").values())
    crops = np.stack(
        [synthetic_crop(faces[int(k)], rng) for k in rng.integers(len(faces), size=count)]
    )
    both = np.concatenate([crops, crops[:, ::-1, ::-1]])
    return np.ascontiguousarray(both.transpose(0, 3, 1, 2), np.float32)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="+", help="LABEL=PATH, the first the reference")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    paths: dict[str, Path] = {}
    for item in args.networks:
        label, _, path = item.partition("=")
        if not path or not Path(path).exists():
            parser.error(f"{item!r}: not LABEL=PATH of an existing network")
        paths[label] = Path(path)
    blob = images()
    # Each network run as the reader runs it (vision/bonus.py: one thread, no spinning).
    forwards: dict[str, Forward] = {}
    for label, path in paths.items():
        forward = _ort_forward(path, 1)
        if forward is None:
            parser.error("ONNX Runtime is not installed")
        forwards[label] = forward
    outputs = {label: forward(blob) for label, forward in forwards.items()}
    first = next(iter(paths))
    cpu: dict[str, list[float]] = {label: [] for label in paths}
    for _ in range(args.rounds):
        for label, forward in forwards.items():
            start = time.thread_time()
            for _ in range(RUNS):
                forward(blob)
            cpu[label].append((time.thread_time() - start) * 1000 / RUNS)
    report: dict[str, Any] = {"images": len(blob), "runs_a_round": RUNS, "rounds": args.rounds}
    for label, path in paths.items():
        median = float(np.median(cpu[label]))
        report[label] = {
            "path": str(path),
            "cpu_ms_median": round(median, 3),
            "cpu_ms_rounds": [round(t, 3) for t in cpu[label]],
            "ratio_to_" + first: round(median / float(np.median(cpu[first])), 3),
            "largest_output_difference": float(np.abs(outputs[label] - outputs[first]).max()),
            "kernels": kernels(path),
        }
    show_and_write(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
