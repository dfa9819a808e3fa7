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
from dataclasses import dataclass

import cv2
import numpy as np

from vision.crops import CROP_W, normalise_crop
from vision.identity import DOUBTED, OTHER_UNSURE, SIDES, UNSURE, Identity
from vision.image import Image

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
