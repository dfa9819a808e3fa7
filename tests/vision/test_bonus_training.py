"""What the bonus-tile reader's training draws (bench/vision/bonus_data.py,
vision/synth/bonus_faces.py): pale inks, softened crops, and the measures' fonts kept out."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from bonus_data import TINY_NAME_PX, TRAINING_LATIN_ALL, sized_font_faces, softened

from vision.synth.bonus_faces import (
    HELD_OUT_FONTS,
    HELD_OUT_HANDS,
    HELD_OUT_LATIN,
    TRAINING_FONTS,
    bonus_faces,
    drawn_bonus_faces,
    pale_ink,
)


def test_a_pale_ink_lies_between_the_ink_and_the_body() -> None:
    assert pale_ink("#000000", "#ffffff", 0.5) == "#808080"
    assert pale_ink("#1b3fa0", "#f4efe0", 0.0) == "#1b3fa0"
    assert pale_ink("#1b3fa0", "#f4efe0", 1.0) == "#f4efe0"


def test_the_latin_faces_trained_on_keep_the_measured_ones_out() -> None:
    assert set(HELD_OUT_LATIN).isdisjoint(TRAINING_LATIN_ALL)
    assert set(HELD_OUT_FONTS + HELD_OUT_HANDS).isdisjoint(TRAINING_LATIN_ALL)
    assert set(HELD_OUT_FONTS + HELD_OUT_HANDS).isdisjoint(TRAINING_FONTS)


def test_a_softened_crop_is_flatter_and_keeps_its_light() -> None:
    rng = np.random.default_rng(3)
    crop = np.zeros((64, 48, 3), np.uint8)
    crop[:, ::4] = 220  # thin strokes, as a small name is
    for _ in range(20):
        soft = softened(crop, rng)
        assert soft.shape == crop.shape and soft.dtype == np.uint8
        assert soft.std() < 0.85 * crop.std()
        assert abs(float(soft.mean()) - float(crop.mean())) < 3


def test_the_faces_with_their_name_sizes_are_the_faces_drawn_before() -> None:
    """The held-out faces are drawn seed for seed as before; each name's size is the one a
    layout letters (8-58 px on the 72 px face), and the tiny ones are kept apart."""
    plain = bonus_faces(77, 32, TRAINING_FONTS, None, 0.4)
    sized = drawn_bonus_faces(77, 32, TRAINING_FONTS, None, 0.4)
    assert [k for k, _ in plain] == [f.kind for f in sized]
    assert all(np.array_equal(f, s.image) for (_, f), s in zip(plain, sized, strict=True))
    sizes = [f.name_px for f in sized]
    assert all(3 <= s <= 58 for s in sizes)
    assert min(sizes) < TINY_NAME_PX <= max(sizes)
    big, tiny = sized_font_faces(32, TRAINING_FONTS, 5, TRAINING_LATIN_ALL, 0.4)
    assert len(big) + len(tiny) == 32 and big and tiny
