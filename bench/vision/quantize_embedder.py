"""Quantise the tile embedding to 8-bit integers for ONNX Runtime.

    .venv/bin/python bench/vision/quantize_embedder.py [--crops 2048]

Writes ``vision/models/tile_embed.int8.onnx`` next to the float network: weights per output
channel and activations in 8 bits (QDQ format, which ONNX Runtime turns into integer
convolutions on x86 and on the Pi's ARM cores alike), all but the first convolution, which
stays in floats (``--all-int8`` quantises it too: the network before). The activation
ranges are calibrated on camera-like crops of the *training* art sets only
(vision/models/tile_embed.json), so the held-out sets stay unseen. The float network stays:
OpenCV's dnn module runs it where ONNX Runtime is missing, and it is what training exports.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import (
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.embedder import EMBEDDER_FILE, MODELS_DIR, quantised_path  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402


class Batches(CalibrationDataReader):
    """Calibration crops, 64 at a time, as the embedder feeds them (NCHW, BGR, 0-255)."""

    def __init__(self, crops: np.ndarray) -> None:
        self.batches = iter(range(0, len(crops), 64))
        self.crops = crops

    def get_next(self) -> dict[str, np.ndarray] | None:
        start = next(self.batches, None)
        if start is None:
            return None
        return {"crop": self.crops[start : start + 64]}


def calibration_crops(count: int, seed: int) -> np.ndarray:
    meta = json.loads((MODELS_DIR / "tile_embed.json").read_text())
    rng = np.random.default_rng(seed)
    faces = [f for name in meta["train_sets"] for f in load_set(name).values()]
    for n in range(20):  # procedural seeds neither training nor the benchmarks draw
        faces += procedural_set(70_000 + n).values()
    picks = rng.integers(len(faces), size=count)
    crops = np.stack([synthetic_crop(faces[int(k)], rng) for k in picks])
    # Both ways up, as the embedder runs them.
    half = count // 2
    crops[:half] = crops[:half, ::-1, ::-1]
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32)


def first_convolution(model_path: Path) -> str:
    """The name of the network's first convolution (on the crop's three colours).

    In 8 bits it is the slowest layer of all (a quarter of a run: three input channels make
    short integer sums that ONNX Runtime pads), in floats a third of that: left in floats,
    a run took 0.90 ms instead of 1.09 ms for 8 crops both ways up (x86, one thread), and
    the vectors moved less from the float network's than before (mean cosine to them 0.99891
    against 0.99875, 406 crops of the held-out sets' tables)."""
    for node in onnx.load(str(model_path)).graph.node:
        if node.op_type == "Conv":
            return str(node.name)
    raise ValueError(f"{model_path} has no convolution")


def quantise(source: Path, target: Path, crops: np.ndarray, all_int8: bool) -> list[str]:
    """Write ``source`` quantised to ``target``, calibrated on ``crops``; returns the
    convolutions left in floats."""
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(source), str(prepared))
        in_floats = [] if all_int8 else [first_convolution(prepared)]
        quantize_static(
            str(prepared),
            str(target),
            Batches(crops),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            # Percentile ranges: a few extreme activations must not cost the rest resolution.
            calibrate_method=CalibrationMethod.Percentile,
            extra_options={"CalibPercentile": 99.99},
            nodes_to_exclude=in_floats,
        )
    return in_floats


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crops", type=int, default=2048, help="a multiple of 64")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--all-int8", action="store_true", help="the first convolution in 8 bits too"
    )
    args = parser.parse_args()
    if args.crops % 64:
        parser.error("--crops: the percentile calibration needs whole batches of 64")
    source = MODELS_DIR / EMBEDDER_FILE
    target = quantised_path(source)
    crops = calibration_crops(args.crops, args.seed)
    in_floats = quantise(source, target, crops, args.all_int8)
    import onnxruntime

    # Its provenance, beside the float network's (vision/models/tile_embed.json).
    record = {
        "file": target.name,
        "calibration_crops": len(crops),
        "calibration_sets": "training sets and procedural#70000-70019",
        "seed": args.seed,
        "in_floats": in_floats,
        "onnxruntime": onnxruntime.__version__,
    }
    meta_path = MODELS_DIR / "tile_embed.json"
    meta = json.loads(meta_path.read_text())
    meta["quantised"] = record
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
