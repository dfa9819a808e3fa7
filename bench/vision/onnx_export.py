"""Exporting a trained crop network to ONNX, as the runtime (vision/embedder.py) loads it.

One call for every model trained here: BGR 0-255 crops of ``CROP_H x CROP_W`` in, any number
of them at once, one output named as the model says; opset 13 and the TorchScript exporter,
which the Pi's ONNX Runtime and OpenCV's dnn module both read.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from vision.crops import CROP_H, CROP_W


def export_crop_model(model: nn.Module, path: Path, output: str) -> None:
    """Write ``model`` (crops in, one tensor out) to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, CROP_H, CROP_W),),
        str(path),
        dynamo=False,
        input_names=["crop"],
        output_names=[output],
        dynamic_axes={"crop": {0: "n"}, output: {0: "n"}},
        opset_version=13,
    )
