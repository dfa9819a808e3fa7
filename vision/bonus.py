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
number it reads agrees. How sure the network is, as the gate's bars see it, is set by its
temperatures (:class:`Temperatures`), fitted on training crops and stored with the network.
Like the embedding, it runs in 8-bit integers through ONNX Runtime where the quantised copy
lies beside the float network (bench/vision/quantize_embedder.py --network reader).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.embedder import (
    MODELS_DIR,
    Forward,
    ModelError,
    _dnn_forward,
    _ort_forward,
    both_ways_up,
    quantised_path,
)
from vision.halves import in_two
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


# Probabilities are floored here before their logarithms are taken (a float32 softmax gives 0).
_FLOOR = 1e-12


@dataclass(frozen=True)
class Temperatures:
    """How far the reader's probabilities are softened (above 1) or sharpened (below 1) before
    they are read, one temperature a part: ``name``, which of the eight bonus tiles (their
    shares of the bonus probability); ``category``, some bonus tile or none (the log-odds of
    the bonus probability); ``number``, the number printed. All 1: the network's own.
    Fitted on training crops by ``bench/vision/fit_temperature.py`` and stored in the
    network's ``.json`` ("temperature")."""

    name: float = 1.0
    category: float = 1.0
    number: float = 1.0

    @classmethod
    def from_meta(cls, meta: object, where: str) -> Temperatures:
        """The temperatures a network's ``.json`` stores (none stored: all 1), or a
        :class:`ModelError` naming ``where`` and what is wrong."""
        if not isinstance(meta, dict):
            raise ModelError(f"{where}: not a JSON object")
        stored = meta.get("temperature")
        if stored is None:
            return cls()
        if not isinstance(stored, dict):
            raise ModelError(f'{where}: "temperature" is {stored!r:.80}, not an object')
        values: dict[str, float] = {}
        for part in (f.name for f in fields(cls)):
            value = stored.get(part)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ModelError(f'{where}: "temperature" {part} is {value!r:.80}, not a number')
            if not (math.isfinite(value) and 0.05 <= value <= 20):
                raise ModelError(
                    f'{where}: "temperature" {part} is {value}, outside 0.05-20 (a typo?)'
                )
            values[part] = float(value)
        return cls(**values)

    @classmethod
    def of_network(cls, onnx_path: Path, quantised: bool = False) -> Temperatures:
        """The temperatures stored beside the float network ``onnx_path`` (no ``.json``: all
        1); ``quantised``: its 8-bit copy's, stored in the same ``.json`` under "quantised"
        (its probabilities are not the float network's, so neither are its temperatures)."""
        meta_path = onnx_path.with_suffix(".json")
        if not meta_path.exists():
            return cls()
        try:
            meta: Any = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise ModelError(f"{meta_path}: not readable JSON: {exc!s:.200}") from None
        if quantised and isinstance(meta, dict):
            return cls.from_meta(meta.get("quantised", {}), f'{meta_path} "quantised"')
        return cls.from_meta(meta, str(meta_path))

    def apply(self, kind_p: np.ndarray, number_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the two heads' probabilities (n x 9, n x 4) at these temperatures."""
        if self == Temperatures():
            return kind_p, number_p
        nb = len(BONUS_KINDS)
        kind_p, number_p = kind_p.astype(np.float64), number_p.astype(np.float64)
        bonus = np.clip(kind_p[:, :nb].sum(axis=1), _FLOOR, 1.0 - _FLOOR)
        odds = (np.log(bonus) - np.log1p(-bonus)) / self.category
        bonus = 1.0 / (1.0 + np.exp(-odds))
        shares = softmax(np.log(np.maximum(kind_p[:, :nb], _FLOOR)) / self.name)
        kinds = np.concatenate([shares * bonus[:, None], (1.0 - bonus)[:, None]], axis=1)
        numbers = softmax(np.log(np.maximum(number_p, _FLOOR)) / self.number)
        return kinds.astype(np.float32), numbers.astype(np.float32)


def softmax(logits: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each row's softmax (the first look's kinds in vision/identify.py too)."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


class BonusReader:
    """The reader's network, run by ONNX Runtime (in 8 bits where the quantised copy lies
    beside ``onnx_path`` and ``quantised`` is true; or in floats by OpenCV's dnn module
    without ONNX Runtime), at the temperatures stored with the copy run (or
    ``temperatures``: ``Temperatures()`` reads the network's own probabilities)."""

    def __init__(
        self,
        onnx_path: Path = MODELS_DIR / BONUS_FILE,
        temperatures: Temperatures | None = None,
        quantised: bool = True,
    ) -> None:
        if not onnx_path.exists():
            raise ModelError(f"bonus-tile reader {onnx_path} is missing")
        self.path = onnx_path
        int8 = quantised_path(onnx_path)
        forward: Forward | None = None
        if quantised and int8.exists():
            forward = _ort_forward(int8, 1)
        self.quantised = forward is not None
        if forward is None:
            forward = _ort_forward(onnx_path, 1) or _dnn_forward(onnx_path)
        self._forward = forward
        self.temperatures = temperatures or Temperatures.of_network(onnx_path, self.quantised)

    def probabilities(
        self, crops: Sequence[Image], helper: Executor | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The network's own probabilities (n x 9 kinds, n x 4 numbers), each crop read both
        ways up (a tile may lie either way) and the two averaged; no temperature.
        ``helper``: an idle thread that runs the crops turned over while this one runs them
        as they lie (each row of a run is its own: the same numbers as one run of all, to
        the bit, from one row on), so that even a lone crop is read in two halves."""
        if not crops:
            return np.zeros((0, len(READ_KINDS)), np.float32), np.zeros((0, 4), np.float32)
        n = len(crops)
        blob = both_ways_up(crops)

        def run(rows: slice) -> NDArray[np.float32]:
            return self._forward(blob[rows])

        out = np.concatenate(in_two(run, 2 * n, helper, n)).reshape(2 * n, -1)
        probs = np.asarray((out[:n] + out[n:]) / 2, np.float32)
        return probs[:, : len(READ_KINDS)], probs[:, len(READ_KINDS) :]

    def read(self, crops: Sequence[Image], helper: Executor | None = None) -> list[BonusReading]:
        """Each crop's reading, at the reader's temperatures (``helper``: as for
        :meth:`probabilities`)."""
        kinds, numbers = self.temperatures.apply(*self.probabilities(crops, helper))
        return readings_from(kinds, numbers)


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
    return readings_from(kind_p[None], number_p[None])[0]


def readings_from(kind_p: np.ndarray, number_p: np.ndarray) -> list[BonusReading]:
    """Each crop's reading from its row of the two heads' probabilities (n x 9, n x 4), all
    rows at once: each figure the same to the bit as worked out row by row, without a
    dozen small numpy calls a crop."""
    nb = len(BONUS_KINDS)
    rows = np.arange(len(kind_p))
    k, m = kind_p.argmax(axis=1), number_p.argmax(axis=1)
    bonus_p = kind_p[:, :nb].sum(axis=1)
    shares = kind_p[:, :nb] / np.maximum(bonus_p, 1e-9)[:, None]
    b = shares.argmax(axis=1)
    # In floats of the sum's own precision, as the group's share is compared and taken.
    flowers = shares[:, :4].sum(axis=1).astype(np.float64)
    # Each bonus kind's share times its number's probability (F1 and S1 are 1, ...).
    joint = shares * np.tile(number_p, 2)
    joint = joint / np.maximum(joint.sum(axis=1), 1e-9)[:, None]
    j = joint.argmax(axis=1)
    columns = zip(
        k.tolist(),
        kind_p[rows, k].tolist(),
        m.tolist(),
        number_p[rows, m].tolist(),
        bonus_p.tolist(),
        b.tolist(),
        shares[rows, b].tolist(),
        flowers.tolist(),
        np.maximum(flowers, 1.0 - flowers).tolist(),
        j.tolist(),
        joint[rows, j].tolist(),
        strict=True,
    )
    return [
        BonusReading(
            READ_KINDS[ki],
            kc,
            mi + 1,
            mc,
            bp,
            BONUS_KINDS[bi],
            bs,
            "F" if fl >= 0.5 else "S",
            gs,
            BONUS_KINDS[ji],
            js,
        )
        for ki, kc, mi, mc, bp, bi, bs, fl, gs, ji, js in columns
    ]
