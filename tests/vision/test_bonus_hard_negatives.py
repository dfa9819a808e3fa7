"""The bonus reader's hard negatives (bench/vision/bonus_data.py): drawn only from what
training may see. How a batch weighs them and how they are mined: test_bonus_hard_training.py."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

import bonus_data
from bonus_data import (
    HARD_KINDS,
    HELD_OUT_SETS,
    KINDS,
    hard_faces,
    procedural_font,
    training_pools,
    training_sets,
)

from vision.bonus import NOT_BONUS
from vision.synth.artwork import FACE_H, FACE_W, load_set
from vision.synth.bonus_faces import BONUS_KINDS, HELD_OUT_FONTS, HELD_OUT_HANDS, TRAINING_FONTS
from vision.synth.honour_faces import HONOURS, honour_faces

NONE = KINDS.index(NOT_BONUS)
HELD_OUT_LETTERING = set(HELD_OUT_FONTS) | set(HELD_OUT_HANDS)


def test_the_hard_negative_pool_never_draws_a_held_out_set_or_font(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every set the training pools (the hard pool among them) load is a training set, every
    drawn set is lettered in a training font, and the dragons and winds are lettered in the
    training fonts only."""
    loaded: list[str] = []
    lettered: list[tuple[str, ...]] = []

    def recorded_load(name: str) -> dict[str, np.ndarray]:
        loaded.append(name)
        return load_set(name)

    def recorded_honours(seed: int, count: int, fonts: tuple[str, ...]) -> list:  # type: ignore[type-arg]
        lettered.append(fonts)
        face = np.full((96, 72, 3), 200, np.uint8)
        return [("GD", face)] * count

    monkeypatch.setattr(bonus_data, "load_set", recorded_load)
    monkeypatch.setattr(bonus_data, "honour_faces", recorded_honours)
    monkeypatch.setattr(bonus_data, "require_fonts", lambda fonts: None)
    monkeypatch.setattr(bonus_data, "sized_font_faces", lambda *args: ([], []))
    pools = training_pools(0, 6, 33, honours=300)
    assert loaded and not set(loaded) & set(HELD_OUT_SETS)
    drawn = [name for name in loaded if name.startswith("procedural#")]
    assert len(set(drawn)) == 6
    for name in drawn:
        font = procedural_font(int(name.split("#")[1]))
        assert font in TRAINING_FONTS and font not in HELD_OUT_LETTERING
    assert lettered and all(set(f) == set(TRAINING_FONTS) for f in lettered)
    assert not set(TRAINING_FONTS) & HELD_OUT_LETTERING
    assert len(pools["hard"]) == len(set(loaded)) * len(HARD_KINDS) + 300
    assert {answer for answer, _ in pools["hard"]} == {NONE}


def test_the_training_sets_leave_the_held_out_ones_out() -> None:
    packaged, drawn = training_sets(12)
    assert packaged and not set(packaged) & set(HELD_OUT_SETS)
    assert all(procedural_font(int(n.split("#")[1])) in TRAINING_FONTS for n in drawn)


def test_hard_faces_are_a_sets_look_alikes_answered_none() -> None:
    faces = hard_faces(["procedural#3"])
    drawn = load_set("procedural#3")
    assert len(faces) == len(HARD_KINDS)
    for kind, (answer, face) in zip(HARD_KINDS, faces, strict=True):
        assert answer == NONE
        assert np.array_equal(face, drawn[kind])
    assert not set(HARD_KINDS) & set(BONUS_KINDS)
    assert set(HONOURS) <= set(HARD_KINDS)


def test_honour_faces_are_the_dragons_and_winds_asked_for() -> None:
    faces = honour_faces(5, 20, TRAINING_FONTS[:2])
    assert len(faces) == 20
    assert {kind for kind, _ in faces} <= set(HONOURS) and len({k for k, _ in faces}) > 2
    for _, face in faces:
        assert face.shape == (FACE_H, FACE_W, 3) and face.dtype == np.uint8
        assert int(face.min()) < 120 < int(face.max())  # a character drawn on the body
    again = honour_faces(5, 20, TRAINING_FONTS[:2])
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(faces, again, strict=True))
