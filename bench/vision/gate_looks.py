"""Calibration crops as the bonus gate sees them (:class:`Look`: each crop looked at once), and
their answers and scores replayed through the gate's own functions under any bars
(bench/vision/choose_bars.py, calibration_scans.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.bonus import BONUS_KINDS, BonusReading  # noqa: E402
from vision.bonus_gate import GateBars  # noqa: E402
from vision.gate_decision import decide  # noqa: E402
from vision.identify import RETRY_SHIFT_PX, Identity, Recogniser  # noqa: E402
from vision.synth.render import Rendered  # noqa: E402
from vision.synth.table_enrol import labelled_crops  # noqa: E402

# What a crop named wrong costs, against 1 for one abstained on.
WRONG_COST = 4


class Look(NamedTuple):
    """One calibration crop as the gate sees it."""

    truth: str
    first: Identity  # after the shifted second look
    shifted: Identity  # the look through shifted copies the gate may ask for
    reading: BonusReading
    retry_below: float
    threshold: float


def looks_of(recogniser: Recogniser, crops: list[np.ndarray], truth: list[str]) -> list[Look]:
    """Each crop's looks, as :meth:`Recogniser.identify` takes them before the gate."""
    reader = recogniser.bonus_reader
    if reader is None:
        raise SystemExit("the bonus-tile reader is not installed")
    if not crops:
        return []
    vectors = recogniser.embed(crops)
    firsts = recogniser.second_look(crops, vectors, recogniser.identify_embeddings(vectors))
    shifted = recogniser.identify_embeddings(
        recogniser.embedder.embed(crops, shift_px=RETRY_SHIFT_PX, unshifted=vectors)
    )
    return [
        Look(t, f, s, r, recogniser.retry_below, recogniser.threshold)
        for t, f, s, r in zip(truth, firsts, shifted, reader.read(crops), strict=True)
    ]


def looks_of_renders(recogniser: Recogniser, renders: Iterable[Rendered]) -> list[Look]:
    """The looks of every tile the finder cut from ``renders`` (rendered tables or hands),
    each named by the renderer's truth."""
    cut = [named for rendered in renders for named in labelled_crops(rendered)]
    return looks_of(recogniser, [crop for _, crop in cut], [truth for truth, _ in cut])


def decided(look: Look, bars: GateBars) -> Identity:
    """The answer the recogniser gives the crop with ``bars`` (Recogniser.bonus_look, before
    the text look), its path in ``how`` (None: never gated)."""
    return decide(look.first, look.reading, look.shifted, look.threshold, look.retry_below, bars)


def answer(look: Look, bars: GateBars) -> str | None:
    """The label the recogniser gives the crop with ``bars``."""
    return decided(look, bars).label


def score(looks: list[Look], bars: GateBars) -> dict[str, Any]:
    """Right / wrong / abstained shares, crossings (a bonus tile named as another kind, or the
    reverse), the bonus tiles named right, and the cost (abstained 1, wrong ``WRONG_COST``)."""
    right = wrong = abstained = crossed = 0
    bonus = bonus_right = 0
    for look in looks:
        named = answer(look, bars)
        if look.truth in BONUS_KINDS:
            bonus += 1
            bonus_right += named == look.truth
        if named is None:
            abstained += 1
        elif named == look.truth:
            right += 1
        else:
            wrong += 1
            crossed += (named in BONUS_KINDS) != (look.truth in BONUS_KINDS)
    n = max(1, len(looks))
    return {
        "n": len(looks),
        "right": round(right / n, 4),
        "wrong": round(wrong / n, 4),
        "abstained": round(abstained / n, 4),
        "crossings": crossed,
        "bonus right": round(bonus_right / max(1, bonus), 4),
        "cost": abstained + WRONG_COST * wrong,
    }
