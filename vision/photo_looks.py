"""Several looks at a photo before abstaining on it.

A single-tile photo (wider than the scanner's ``CROP_W`` cut: the scanner's crops are never
touched) that the recogniser would abstain on is seen again as a few *views*, each made at
the photo's own pixels and then brought to the networks' size: moved a little each way,
a little nearer and farther, turned a little each way, and with its own contrast stretched.
The views' vectors, averaged with the photo's own, give a first look again; the bonus-tile
reader's probabilities, averaged over the photo and its views, give its reading again; and
the bonus gate decides from those two (vision/gate_decision.py ``decide``) as it does from
one. A photo so named takes that answer; any other keeps its abstention.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.bonus import readings_from
from vision.crops import CROP_W, normalise_crop
from vision.embedder import Vectors, unit
from vision.gate_decision import decide
from vision.identity import DOUBTED, OTHER_UNSURE, SIDES, UNSURE, Identity
from vision.image import Image

if TYPE_CHECKING:
    from vision.identify import Recogniser

# Each view's moves, as fractions of the photo's width (shifts) or factors (scales), or
# degrees (turns). 3 px of the scanner's 48-px cut is the finder's localisation error.
SHIFT = 0.06
SCALES = (0.9, 1.1)
TURNS = (-4.0, 4.0)
# The photo's luminance stretched from this percentile to its mirror (its own contrast).
STRETCH_PERCENTILE = 1.0


def _affine(photo: Image, matrix: np.ndarray) -> Image:
    h, w = photo.shape[:2]
    return np.asarray(
        cv2.warpAffine(photo, matrix, (w, h), borderMode=cv2.BORDER_REPLICATE), np.uint8
    )


def _shifts(photo: Image) -> list[Image]:
    px = SHIFT * photo.shape[1]
    moves = ((px, 0.0), (-px, 0.0), (0.0, px), (0.0, -px))
    return [_affine(photo, np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]])) for dx, dy in moves]


def _about_centre(photo: Image, angle: float, scale: float) -> Image:
    h, w = photo.shape[:2]
    return _affine(photo, np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)))


def _scales(photo: Image) -> list[Image]:
    return [_about_centre(photo, 0.0, s) for s in SCALES]


def _turns(photo: Image) -> list[Image]:
    return [_about_centre(photo, a, 1.0) for a in TURNS]


def _contrast(photo: Image) -> list[Image]:
    """The photo with its luminance stretched between its own low and high percentiles (a
    dim or washed-out photo as a well-lit one), its colours' hues kept."""
    lab = cv2.cvtColor(photo, cv2.COLOR_BGR2LAB)
    light = lab[:, :, 0].astype(np.float32)
    low, high = np.percentile(light, (STRETCH_PERCENTILE, 100 - STRETCH_PERCENTILE))
    if high - low < 1:
        return [photo]  # a flat photo: nothing to stretch
    lab[:, :, 0] = np.clip((light - low) * (255.0 / (high - low)), 0, 255).astype(np.uint8)
    return [np.asarray(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), np.uint8)]


VIEWS: dict[str, Callable[[Image], list[Image]]] = {
    "shifts": _shifts,
    "scales": _scales,
    "turns": _turns,
    "contrast": _contrast,
}
# The abstentions looked at again: the gate's doubts and the looks disagreeing on the side,
# and the first look unsure. Not the bonus side's "which one" (UNREAD): on the calibration
# group the ways of looking named up to 10 of those each, 1 of 33 right (bench/vision/README.md,
# "several looks").
REASONS = (DOUBTED, SIDES, UNSURE, OTHER_UNSURE)


@dataclass(frozen=True)
class PhotoLooks:
    """Which views of a photo are looked at before abstaining (names of :data:`VIEWS`; none:
    off), whether the first look (``embed``) and the bonus-tile reader (``read``) each take
    them (the other keeps its single look), and the narrowest photo looked at again
    (``min_width``: wider than the scanner's cut)."""

    views: tuple[str, ...] = ()
    embed: bool = True
    read: bool = True
    min_width: int = CROP_W + 1

    def __post_init__(self) -> None:
        unknown = [v for v in self.views if v not in VIEWS]
        if unknown:
            raise ValueError(
                f"PhotoLooks.views: unknown view {', '.join(unknown)} (known: {', '.join(VIEWS)})"
            )
        if self.views and not (self.embed or self.read):
            raise ValueError(
                "PhotoLooks: views given, but neither the first look nor the reader takes them"
            )
        if self.min_width <= CROP_W:
            raise ValueError(
                f"PhotoLooks.min_width {self.min_width}: the scanner's {CROP_W}-px cuts are never"
                " looked at again"
            )

    def wanted(self, photo: Image, answer: Identity) -> bool:
        """Whether ``answer`` on ``photo`` is an abstention these looks may change."""
        return (
            bool(self.views)
            and answer.label is None
            and answer.why in REASONS
            and photo.shape[1] >= self.min_width
        )

    def of(self, photo: Image) -> list[Image]:
        """The photo's views, each at the networks' size."""
        return [normalise_crop(v) for name in self.views for v in VIEWS[name](photo)]


def picked(looks: PhotoLooks, crops: Sequence[Image], answers: Sequence[Identity]) -> list[int]:
    """The crops whose answers :class:`PhotoLooks` looks at again."""
    return [n for n, a in enumerate(answers) if looks.wanted(crops[n], a)]


def answered_from_views(
    recogniser: Recogniser, crops: Sequence[Image], answers: list[Identity], vectors: Vectors
) -> list[Identity]:
    """``answers`` with each abstention the recogniser's :attr:`Recogniser.photo_looks` looks
    at again (:func:`picked`) answered from its views where the gate names it from them
    (:func:`decide` on the views' first look and reading); the rest as they were.
    ``vectors``: the crops' own."""
    looks, reader = recogniser.photo_looks, recogniser.bonus_reader
    if not looks.views:  # off (the default): the scan's answers are not walked at all
        return answers
    chosen = picked(looks, crops, answers)
    if not chosen or reader is None:
        return answers
    views = [looks.of(crops[n]) for n in chosen]
    own = vectors[chosen]
    if looks.embed:
        seen = recogniser.embedder.embed([v for vs in views for v in vs])
        seen = seen.reshape(len(chosen), len(views[0]), -1)
        own = unit(np.concatenate([own[:, None], seen], axis=1).mean(axis=1))
    shown = [[crops[n], *(views[i] if looks.read else [])] for i, n in enumerate(chosen)]
    kinds, numbers = reader.probabilities([v for vs in shown for v in vs])
    each = len(shown[0])
    kinds, numbers = reader.temperatures.apply(
        kinds.reshape(len(chosen), each, -1).mean(axis=1),
        numbers.reshape(len(chosen), each, -1).mean(axis=1),
    )
    out = list(answers)
    firsts = recogniser.identify_embeddings(own)
    threshold, retry, bars = recogniser.threshold, recogniser.retry_below, recogniser.bars
    for n, first, reading in zip(chosen, firsts, readings_from(kinds, numbers), strict=True):
        answer = decide(first, reading, None, threshold, retry, bars)
        if answer.label is not None:
            out[n] = replace(answer, how=f"looks: {answer.how or 'first look'}")
    return out
