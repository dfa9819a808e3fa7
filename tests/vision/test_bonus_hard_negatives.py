"""The bonus reader's hard negatives (bench/vision/bonus_data.py, bonus_mining.py,
train_bonus.py): drawn only from what training may see, weighted where they fall in a batch,
and mined where the reader is surest of a bonus tile."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

import bonus_data
from bonus_data import (
    HARD_KINDS,
    HELD_OUT_SETS,
    KINDS,
    Faces,
    hard_faces,
    procedural_font,
    training_pools,
    training_sets,
)
from bonus_mining import mine_hard_negatives
from train_bonus import batch, loss_of

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


def fake_pools(rng: np.random.Generator) -> dict[str, Faces]:
    """Pools of plain faces; the hard pool's answered 0 so that a test can find its crops."""

    def faces(answer: int, n: int) -> Faces:
        return [(answer, rng.integers(0, 255, (96, 72, 3), dtype=np.uint8)) for _ in range(n)]

    pools = {name: faces(1, 4) for name in ("fonts", "fonts_tiny", "sets_bonus", "drawn_bonus")}
    pools |= {"sets_other": faces(NONE, 4), "other": faces(NONE, 4), "hard": faces(0, 4)}
    return pools


def test_a_batch_weighs_the_hard_negatives_crops_and_only_them() -> None:
    pools = fake_pools(np.random.default_rng(1))
    x, y, w = batch(pools, np.random.default_rng(2), 40, soft=0.0, hard=0.25, hard_weight=3.0)
    assert x.shape[0] == y.shape[0] == w.shape[0] == 40
    assert int((y == 0).sum()) == 10
    assert torch.equal(w == 3.0, y == 0)
    assert bool((w[y != 0] == 1.0).all())


def test_no_hard_share_draws_the_batch_as_before() -> None:
    """With no hard share a batch is the crops drawn before hard negatives existed, seed for
    seed (a resumed run and the weights fitted at its start are unchanged)."""
    pools = fake_pools(np.random.default_rng(1))
    without = {k: v for k, v in pools.items() if k != "hard"}
    x1, y1, w1 = batch(pools, np.random.default_rng(5), 24, soft=0.1)
    x2, y2, _ = batch(without, np.random.default_rng(5), 24, soft=0.1)
    assert torch.equal(x1, x2) and torch.equal(y1, y2)
    assert bool((w1 == 1.0).all())


class BrightIsBonus(nn.Module):
    """A reader sure of a bonus tile on bright crops and of none on dark ones."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        bright = x.mean(dim=(1, 2, 3))
        kind = torch.zeros(x.shape[0], len(KINDS))
        kind[:, 0] = 20 * bright
        kind[:, NONE] = -20 * bright
        return kind, torch.zeros(x.shape[0], 4)


def test_mining_keeps_the_faces_the_reader_is_surest_are_a_bonus_tile() -> None:
    dark = [(NONE, np.full((96, 72, 3), v, np.uint8)) for v in (10, 20, 30)]
    bright = [(NONE, np.full((96, 72, 3), v, np.uint8)) for v in (240, 250)]
    held_out = [(NONE, np.full((96, 72, 3), 255, np.uint8))]
    pools = {"sets_other": dark[:1] + bright[:1], "other": dark[1:] + bright[1:], "x": held_out}
    mined = mine_hard_negatives(BrightIsBonus(), pools, 2, np.random.default_rng(0))
    assert len(mined) == 2
    assert all(int(face.mean()) >= 200 for _, face in mined)
    assert not any(face is held_out[0][1] for _, face in mined)


def test_a_weighted_loss_counts_the_heavier_crops_more() -> None:
    net = BrightIsBonus()
    x = torch.cat([torch.full((1, 3, 64, 48), 0.9), torch.full((1, 3, 64, 48), -0.9)])
    y = torch.tensor([NONE, NONE])  # the first crop read wrongly as a bonus tile, the second not
    plain, _ = loss_of(net, x, y)  # type: ignore[arg-type]
    heavy, _ = loss_of(net, x, y, torch.tensor([3.0, 1.0]))  # type: ignore[arg-type]
    assert heavy > plain


def test_honour_faces_are_the_dragons_and_winds_asked_for() -> None:
    faces = honour_faces(5, 20, TRAINING_FONTS[:2])
    assert len(faces) == 20
    assert {kind for kind, _ in faces} <= set(HONOURS) and len({k for k, _ in faces}) > 2
    for _, face in faces:
        assert face.shape == (FACE_H, FACE_W, 3) and face.dtype == np.uint8
        assert int(face.min()) < 120 < int(face.max())  # a character drawn on the body
    again = honour_faces(5, 20, TRAINING_FONTS[:2])
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(faces, again, strict=True))
