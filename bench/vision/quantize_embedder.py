"""Quantise the tile embedding, or the bonus-tile reader, to 8-bit integers for ONNX Runtime.

    .venv/bin/python bench/vision/quantize_embedder.py [--crops 2048]
    .venv/bin/python bench/vision/quantize_embedder.py --network reader [--weights QAT.onnx]

Writes ``vision/models/tile_embed.int8.onnx`` (``bonus_read.int8.onnx``) next to the float
network: weights per output channel and activations in 8 bits (QDQ format, which ONNX Runtime
turns into integer convolutions on x86 and on the Pi's ARM cores alike), all but the first
convolution, which stays in floats (``--all-int8`` quantises it too: the network before), and
for the reader what follows its last convolution (``head_nodes``). The activation ranges are
calibrated on camera-like crops of what the network trained on only: the embedding's
*training* art sets (vision/models/tile_embed.json); the reader's training fonts, packaged
training sets and drawn sets in the training fonts (as its temperatures are fitted:
bench/vision/fit_temperature.py), so the held-out sets, fonts and hands stay unseen. The float
network stays: OpenCV's dnn module runs it where ONNX Runtime is missing, and it is what
training exports. The 8-bit copy's provenance goes into the float network's ``.json``
("quantised"). ``--weights``: the copy is quantised from another float network than the one
it lies beside, the reader fine-tuned for 8 bits (bench/vision/train_bonus.py --qat), while the
float network beside it stays what the reader falls back to and what training resumes from.
No reader's copy is committed: the static one and those fine-tuned for 8 bits read fewer
held-out bonus tiles (bench/vision/README.md, twenty-first and twenty-fifth rounds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision.bonus import BONUS_FILE  # noqa: E402
from vision.embedder import EMBEDDER_FILE, MODELS_DIR, quantised_path  # noqa: E402
from vision.synth.artwork import load_set  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.synth.procedural import procedural_set  # noqa: E402


class Batches(CalibrationDataReader):
    """Calibration crops, 64 at a time, as the networks are fed them (NCHW, BGR, 0-255)."""

    def __init__(self, crops: np.ndarray, input_name: str) -> None:
        self.batches = iter(range(0, len(crops), 64))
        self.crops = crops
        self.input_name = input_name

    def get_next(self) -> dict[str, np.ndarray] | None:
        start = next(self.batches, None)
        if start is None:
            return None
        return {self.input_name: self.crops[start : start + 64]}


def embedder_crops(count: int, seed: int) -> tuple[list[np.ndarray], str]:
    """Camera-like crops (H x W x 3) of the embedding's training sets and procedural sets
    neither training nor the benchmarks draw, and where they come from."""
    meta = json.loads((MODELS_DIR / "tile_embed.json").read_text())
    rng = np.random.default_rng(seed)
    faces = [f for name in meta["train_sets"] for f in load_set(name).values()]
    for n in range(20):
        faces += procedural_set(70_000 + n).values()
    picks = rng.integers(len(faces), size=count)
    return [synthetic_crop(faces[int(k)], rng) for k in picks], (
        "training sets and procedural#70000-70019"
    )


def reader_crops(count: int, seed: int) -> tuple[list[np.ndarray], str]:
    """Camera-like crops of what the reader trained on, in a training batch's shares: the
    crops its temperatures are fitted on (fit_temperature.py), drawn from another seed."""
    from fit_temperature import DRAWN_FROM, FIT_SEED, fit_crops, fit_pools

    pools = fit_pools(font_count=1024, drawn=40, sparse=0.4)
    crops, _ = fit_crops(pools, count, seed)
    return crops, (
        f"training fonts (1,024 faces, seed {FIT_SEED}), packaged training sets, 40 drawn sets "
        f"in the training fonts from seed {DRAWN_FROM}; crops in a batch's shares"
    )


# Each network: its float file, where its calibration crops come from, and whether what follows
# its last convolution stays in floats (head_nodes).
NETWORKS = {
    "embedder": (EMBEDDER_FILE, embedder_crops, False),
    "reader": (BONUS_FILE, reader_crops, True),
}


def calibration_blob(crops: list[np.ndarray]) -> np.ndarray:
    """The crops as the network's input, half of them turned: both ways up, as both
    networks run them."""
    stacked = np.stack(crops)
    half = len(stacked) // 2
    stacked[:half] = stacked[:half, ::-1, ::-1]
    return np.ascontiguousarray(stacked.transpose(0, 3, 1, 2), np.float32)


def calibration_crops(count: int, seed: int) -> np.ndarray:
    """The embedding's calibration crops as its input (bench/vision/time_students.py
    quantises the networks it times on them, as the shipped one)."""
    return calibration_blob(embedder_crops(count, seed)[0])


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


def head_nodes(model_path: Path) -> list[str]:
    """The names of the nodes after the network's last convolution: the reader's last ReLU,
    pooling, two linear heads and their softmaxes. In 8 bits a probability cannot pass
    255/256 and the logits are cut at their calibrated range; in floats they cost a few
    thousand multiplications a crop, and on 3,000 training crops the calibration never saw
    the copy's probabilities moved less from the float network's (mean 0.0016 against 0.0023;
    the bonus probability 0.0035 against 0.0061) and 8 names read at 0.8 differed, not 11."""
    nodes = list(onnx.load(str(model_path)).graph.node)
    last = max((n for n, node in enumerate(nodes) if node.op_type == "Conv"), default=None)
    if last is None:
        raise ValueError(f"{model_path} has no convolution")
    return [str(node.name) for node in nodes[last + 1 :]]


def quantise(
    source: Path, target: Path, blob: np.ndarray, all_int8: bool, head_in_floats: bool = False
) -> list[str]:
    """Write ``source`` quantised to ``target``, calibrated on ``blob`` (the network's input:
    :func:`calibration_blob`); returns the nodes left in floats."""
    input_name = onnx.load(str(source)).graph.input[0].name
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(source), str(prepared))
        in_floats = [] if all_int8 else [first_convolution(prepared)]
        if head_in_floats:
            in_floats += head_nodes(prepared)
        quantize_static(
            str(prepared),
            str(target),
            Batches(blob, input_name),
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


def weights_record(source: Path, beside: Path) -> dict[str, Any]:
    """Where the copy's weights come from: the float network beside it, or (fine-tuned for 8
    bits) another, with its training runs and the hash of its file."""
    if source.resolve() == beside.resolve():
        return {"from": beside.name}
    meta = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    return {
        "from": f"{beside.name} fine-tuned for 8 bits (bench/vision/train_bonus.py --qat)",
        "sha256": hashlib.sha256(source.read_bytes()).hexdigest()[:16],
        "steps": meta.get("steps"),
        "runs": meta.get("runs"),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--network", choices=sorted(NETWORKS), default="embedder")
    parser.add_argument("--crops", type=int, default=2048, help="a multiple of 64")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--all-int8", action="store_true", help="the first convolution in 8 bits too"
    )
    parser.add_argument(
        "--onnx", type=Path, help="the float network the copy lies beside (default: shipped)"
    )
    parser.add_argument(
        "--weights", type=Path, help="quantise this float network's weights (default: --onnx)"
    )
    args = parser.parse_args()
    if args.crops % 64:
        parser.error("--crops: the percentile calibration needs whole batches of 64")
    file, crops_for, head_in_floats = NETWORKS[args.network]
    beside = args.onnx or MODELS_DIR / file
    source = args.weights or beside
    for path in (beside, source):
        if not path.exists():
            parser.error(f"no network at {path}")
    target = quantised_path(beside)
    crops, drawn_from = crops_for(args.crops, args.seed)
    in_floats = quantise(source, target, calibration_blob(crops), args.all_int8, head_in_floats)
    import onnxruntime

    # Its provenance, beside the float network's (vision/models/tile_embed.json).
    record = {
        "file": target.name,
        "calibration_crops": len(crops),
        "calibration_sets": drawn_from,
        "seed": args.seed,
        "in_floats": in_floats,
        "weights": weights_record(source, beside),
        "onnxruntime": onnxruntime.__version__,
        "command": "bench/vision/quantize_embedder.py " + " ".join(sys.argv[1:]),
    }
    meta_path = beside.with_suffix(".json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["quantised"] = record
    text = json.dumps(meta, indent=2, ensure_ascii=False)
    meta_path.write_text(text + "\n", encoding="utf-8")
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
