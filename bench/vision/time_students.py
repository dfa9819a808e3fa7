"""Time narrower embedding networks in 8 bits beside the shipped one, before training any.

    .venv/bin/python bench/vision/time_students.py --arch slim slim-half slim-quarter \
        [--json results.json]
    .venv/bin/python bench/vision/time_students.py --networks trained.int8.onnx   # trained ones

Each layout (train_embedding.py ``SLIM_WIDTHS``) is started from the shipped float network
(narrow_network.py: the speed of a layout does not depend on its weights, its 8-bit ranges
a little), exported, quantised as quantize_embedder.py quantises the shipped one (the first
convolution in floats) and run by ONNX Runtime on one thread, as the scan runs it: batches of
8 crops both ways up. ``--networks`` adds 8-bit networks already trained and quantised. The
layouts, those networks and the shipped 8-bit network are timed in turn, round after round,
by the thread's CPU time, so each is measured beside the others.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from onnx_export import export_crop_model  # noqa: E402
from quantize_embedder import calibration_crops, quantise  # noqa: E402
from report_file import show_and_write  # noqa: E402
from train_embedding import SLIM_WIDTHS, Exported, TileNet, start_from_onnx  # noqa: E402

from vision.embedder import EMBEDDER_FILE, MODELS_DIR, quantised_path  # noqa: E402
from vision.labels import LABELS  # noqa: E402

SHIPPED = "shipped"


def multiply_adds(net: TileNet) -> int:
    """Multiply-adds a crop of the convolutions and the embedding layer."""
    total = 0
    x = torch.zeros(1, 3, 64, 48)

    def count(module: torch.nn.Module, _: object, out: torch.Tensor) -> None:
        nonlocal total
        if isinstance(module, torch.nn.Conv2d):
            total += out.numel() * module.in_channels * module.kernel_size[0] ** 2
        elif isinstance(module, torch.nn.Linear):
            total += module.in_features * module.out_features

    hooks = [m.register_forward_hook(count) for m in net.modules()]
    with torch.no_grad():
        net.embedding(x)
    for hook in hooks:
        hook.remove()
    return total


def student_model(arch: str, folder: Path, crops: np.ndarray) -> tuple[Path, int]:
    """``arch`` started from the shipped network, exported and quantised in ``folder``."""
    net = TileNet(len(LABELS), arch)
    start_from_onnx(net, MODELS_DIR / EMBEDDER_FILE, torch.from_numpy(crops[:512]))
    source = folder / f"{arch}.onnx"
    export_crop_model(Exported(net).eval(), source, "embedding")
    target = quantised_path(source)
    quantise(source, target, crops, all_int8=False)
    return target, multiply_adds(net)


def session(path: Path) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def thread_ms(run: onnxruntime.InferenceSession, blob: np.ndarray, times: int) -> float:
    """Median thread CPU of a run, ms."""
    laps = []
    for _ in range(times):
        start = time.thread_time()
        run.run(None, {"crop": blob})
        laps.append(time.thread_time() - start)
    return float(np.median(laps) * 1e3)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", nargs="*", choices=list(SLIM_WIDTHS), default=[])
    parser.add_argument("--networks", nargs="*", type=Path, default=[], help="8-bit ONNX files")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=200, help="runs a network a round")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    missing = [str(path) for path in args.networks if not path.exists()]
    if missing:
        parser.error(f"--networks: no such file: {', '.join(missing)}")
    if not args.arch and not args.networks:
        parser.error("nothing to time: give --arch or --networks")
    torch.set_num_threads(1)
    crops = calibration_crops(1024, 5)
    blob = np.ascontiguousarray(np.concatenate([crops[:8], crops[:8, :, ::-1, ::-1]]))
    with tempfile.TemporaryDirectory() as tmp:
        models = {SHIPPED: (quantised_path(MODELS_DIR / EMBEDDER_FILE), 0)}
        for arch in args.arch:
            models[arch] = student_model(arch, Path(tmp), crops)
        for path in args.networks:
            models[str(path)] = (path, 0)
        sessions = {name: session(path) for name, (path, _) in models.items()}
        rounds: dict[str, list[float]] = {name: [] for name in models}
        for _ in range(args.rounds):
            for name, run in sessions.items():
                thread_ms(run, blob, 20)  # warm
                rounds[name].append(thread_ms(run, blob, args.runs))
    shipped = float(np.median(rounds[SHIPPED]))
    report = {
        name: {
            "multiply_adds": models[name][1] or None,
            "ms_a_run_of_8_both_ways": float(np.median(times)),
            "rounds": times,
            "against_shipped": float(np.median(times)) / shipped,
        }
        for name, times in rounds.items()
    }
    show_and_write(report, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
