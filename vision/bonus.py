"""The bonus-tile reader: a second look at crops that are, or may be, bonus tiles.

The embedding (vision/identify.py) knows a set's flowers and seasons by their pictures, and
every maker draws those its own way: of a set never enrolled, most bonus tiles were abstained
on or named as another. What every set prints on them alike is what a person reads them by:
the number, 1 to 4 (Arabic or Chinese), and the name, one character (梅 蘭 菊 竹, 春 夏 秋 冬)
or an English word (PLUM, ORCHID, SPRING). This small network, trained on those drawn in many
fonts and on the packaged sets' art (bench/vision/train_bonus.py), reads both from the crop:
which of the eight it is, or that it is no bonus tile at all, and the number on it. The
recogniser's bonus gate (``vision.identify.gate``) weighs its "some bonus tile or not"
together with the first look's, so that a bonus tile is never named as a suit tile nor the
reverse unless both looks agree; the reader's name counts only when it is sure of it and the
number it reads agrees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.crops import CROP_H, CROP_W, normalise_crop
from vision.embedder import MODELS_DIR, Forward, ModelError, _dnn_forward, _ort_forward
from vision.image import Image

BONUS_FILE = "bonus_read.onnx"
BONUS_KINDS = ("F1", "F2", "F3", "F4", "S1", "S2", "S3", "S4")
NOT_BONUS = "not-bonus"
READ_KINDS = (*BONUS_KINDS, NOT_BONUS)
# Named only when the name is this sure (both ways up averaged) and the number read is the
# name's. Measured on the held-out sets and fonts (bench/vision/README.md, bonus tiles).
DEFAULT_SURE = 0.8


@dataclass(frozen=True)
class BonusReading:
    """What the reader made of one crop."""

    kind: str  # one of READ_KINDS: the likeliest
    confidence: float
    number: int  # 1-4: the likeliest number printed on it
    number_confidence: float
    # The probability that it is some bonus tile (1 - that of NOT_BONUS), the likeliest of
    # the eight, and that one's share of the bonus probability.
    bonus_probability: float = 0.0
    best_bonus: str = BONUS_KINDS[0]
    best_bonus_share: float = 0.0
    # Read by parts: the group ("F" flowers, "S" seasons) and its share of the bonus
    # probability; and the kind the name and the number give together (each bonus kind's share
    # times the probability of its number, renormalised), with that probability. Where the
    # name cannot be read, the number still picks one of the group's four.
    group: str = "F"
    group_share: float = 0.0
    fused: str = BONUS_KINDS[0]
    fused_share: float = 0.0

    def label(self, sure: float = DEFAULT_SURE) -> str | None:
        """The bonus tile it names, or None: not sure, the number disagrees, or no bonus
        tile."""
        if self.kind == NOT_BONUS or self.confidence < sure:
            return None
        return self.kind if int(self.kind[1]) == self.number else None

    def fused_label(self, sure: float = DEFAULT_SURE) -> str | None:
        """The bonus tile the name and number give together, or None: not ``sure`` of it (its
        share of the bonus probability times that probability)."""
        if self.bonus_probability * self.fused_share < sure:
            return None
        return self.fused


class BonusReader:
    """The reader's network, run by ONNX Runtime (or OpenCV's dnn module without it)."""

    def __init__(self, onnx_path: Path = MODELS_DIR / BONUS_FILE) -> None:
        if not onnx_path.exists():
            raise ModelError(f"bonus-tile reader {onnx_path} is missing")
        self.path = onnx_path
        forward: Forward | None = _ort_forward(onnx_path, 1)
        self._forward = forward or _dnn_forward(onnx_path)

    def read(self, crops: Sequence[Image]) -> list[BonusReading]:
        """Each crop read both ways up (a tile may lie either way), the two averaged."""
        if not crops:
            return []
        chunk = np.stack([_input_crop(c) for c in crops])
        n = len(chunk)
        blob = np.empty((2 * n, 3, CROP_H, CROP_W), np.float32)
        blob[:n] = chunk.transpose(0, 3, 1, 2)
        blob[n:] = chunk[:, ::-1, ::-1].transpose(0, 3, 1, 2)
        out = self._forward(blob).reshape(2 * n, -1)
        probs = np.asarray((out[:n] + out[n:]) / 2, np.float32)
        return [reading_from(p[: len(READ_KINDS)], p[len(READ_KINDS) :]) for p in probs]


_DEFAULT: list[BonusReader | None] = []


def default_bonus_reader() -> BonusReader | None:
    """The package's reader, loaded once; None where it is not installed (a model without
    it names bonus tiles by the embedding alone)."""
    if not _DEFAULT:
        path = MODELS_DIR / BONUS_FILE
        _DEFAULT.append(BonusReader(path) if path.exists() else None)
    return _DEFAULT[0]


def reading_from(kind_p: np.ndarray, number_p: np.ndarray) -> BonusReading:
    """One crop's reading from its two heads' probabilities."""
    k, m = int(kind_p.argmax()), int(number_p.argmax())
    bonus_p = float(kind_p[: len(BONUS_KINDS)].sum())
    shares = kind_p[: len(BONUS_KINDS)] / max(bonus_p, 1e-9)
    b = int(shares.argmax())
    flowers = float(shares[:4].sum())
    # Each bonus kind's share times its number's probability (F1 and S1 are 1, ...).
    joint = shares * np.tile(number_p, 2)
    joint = joint / max(float(joint.sum()), 1e-9)
    j = int(joint.argmax())
    return BonusReading(
        READ_KINDS[k],
        float(kind_p[k]),
        m + 1,
        float(number_p[m]),
        bonus_p,
        BONUS_KINDS[b],
        float(shares[b]),
        "F" if flowers >= 0.5 else "S",
        max(flowers, 1.0 - flowers),
        BONUS_KINDS[j],
        float(joint[j]),
    )


def _input_crop(crop: Image) -> Image:
    if crop.shape == (CROP_H, CROP_W, 3) and crop.dtype == np.uint8:
        return crop
    return normalise_crop(crop)
