"""bench/vision/abstentions.py: the crops it tabulates are the benchmark's own, each with the
tile width it was drawn at."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from abstentions import BANDS, _WidthsDrawn, band

from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

from .conftest import HELD_OUT_ART


def test_the_widths_are_noted_without_moving_the_benchmarks_draws() -> None:
    """Crops drawn through the noting generator are those the benchmark draws from the same
    seed, to the pixel, and a width is noted for each."""
    faces = list(load_set(HELD_OUT_ART).values())[:8]
    plain = np.random.default_rng(5)
    noted = _WidthsDrawn(np.random.default_rng(5))
    widths = []
    for face in faces:
        expected = synthetic_crop(face, plain)
        got = synthetic_crop(face, noted)  # type: ignore[arg-type]
        widths.append(noted.last)
        assert np.array_equal(got, expected)
    # One width a crop, each within the camera's range, not one left over from before.
    assert all(18 <= width <= 43 for width in widths) and len(set(widths)) > 1


def test_every_width_drawn_falls_in_one_band() -> None:
    names = [band(w) for w in range(18, 44)]
    assert len(set(names)) == len(BANDS)
    assert names[0] == "18-21 px" and names[-1] == "32-43 px"
