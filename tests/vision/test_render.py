"""The renderer: reproducible from its seed, full-HD frames, and procedural art sets whose
faces are all different."""

from __future__ import annotations

import numpy as np

from vision.geometry import TableGeometry
from vision.labels import CHINESE_LABELS, LABELS
from vision.synth.artwork import FACE_H, FACE_W
from vision.synth.bonus_faces import HELD_OUT_FONTS, HELD_OUT_HANDS, TRAINING_FONTS
from vision.synth.layout import random_layout
from vision.synth.procedural import procedural_set
from vision.synth.render import Style, render
from vision.synth.unfamiliar import UnfamiliarStyle


def _frame(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    geometry = TableGeometry()
    style = Style.random(rng, "symbola")
    return render(random_layout(rng, LABELS, geometry, hand=0.5), style, rng, geometry).image


def test_same_seed_same_frame_other_seed_other_frame() -> None:
    a, b, c = _frame(1), _frame(1), _frame(2)
    assert a.shape == (1080, 1920, 3)
    assert np.array_equal(a, b)
    assert np.abs(a.astype(int) - c.astype(int)).mean() > 1


def test_layouts_never_overlap_tiles() -> None:
    """Tiles are solid: two centres closer than a tile's width would mean a drawn overlap."""
    geometry = TableGeometry()
    for seed in range(5):
        layout = random_layout(np.random.default_rng(seed), LABELS, geometry)
        xy = np.array([[t.x, t.y] for t in layout.tiles])
        d = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy)) * 1e3
        assert d.min() >= geometry.tile_w_mm - 0.5


def test_procedural_sets_have_distinct_faces_and_differ_from_each_other() -> None:
    a, b = procedural_set(1), procedural_set(2)
    assert set(CHINESE_LABELS) <= set(a)
    for face in a.values():
        assert face.shape == (FACE_H, FACE_W, 3)
    faces = [a[label].astype(np.int16) for label in CHINESE_LABELS]
    for i in range(len(faces)):
        for j in range(i + 1, len(faces)):
            assert np.abs(faces[i] - faces[j]).mean() > 1.0, (CHINESE_LABELS[i], CHINESE_LABELS[j])
    assert np.abs(a["5D"].astype(int) - b["5D"].astype(int)).mean() > 3


def test_varied_procedural_sets_keep_every_kind_apart_and_change_the_look() -> None:
    """The varied grammar (training's wider choices) still draws every kind differently from
    every other, and a set drawn with it looks unlike the same seed drawn without."""
    for seed in (3, 4, 5):
        varied, plain = procedural_set(seed, varied=True), procedural_set(seed)
        assert set(varied) == set(plain)
        faces = [varied[label].astype(np.int16) for label in CHINESE_LABELS]
        for i in range(len(faces)):
            for j in range(i + 1, len(faces)):
                diff = np.abs(faces[i] - faces[j]).mean()
                assert diff > 1.0, (seed, CHINESE_LABELS[i], CHINESE_LABELS[j])
        changed = [
            label
            for label in CHINESE_LABELS
            if np.abs(varied[label].astype(int) - plain[label].astype(int)).mean() > 3
        ]
        assert len(changed) > len(CHINESE_LABELS) // 2, (seed, changed)


def test_a_cornered_set_letters_only_its_bonus_tiles_in_a_corner() -> None:
    """A cornered set's bonus tiles differ from the same seed's drawn without it, each from
    every other, and the other faces are the same to the pixel."""
    cornered, plain = procedural_set(6, cornered=True), procedural_set(6)
    bonus = [label for label in CHINESE_LABELS if label[0] in "FS" and label[1].isdigit()]
    for label in CHINESE_LABELS:
        same = np.array_equal(cornered[label], plain[label])
        assert same == (label not in bonus), label
    for i, a in enumerate(bonus):
        for b in bonus[i + 1 :]:
            assert np.abs(cornered[a].astype(int) - cornered[b].astype(int)).mean() > 1.0, (a, b)


def test_a_cornered_sets_corner_font_changes_only_its_bonus_names() -> None:
    """Lettered in a held-out hand, the same cornered set's bonus tiles change and nothing
    else does."""
    own = procedural_set(6, cornered=True)
    hand = procedural_set(6, cornered=True, corner_font="SetoFont")
    for label in CHINESE_LABELS:
        same = np.array_equal(own[label], hand[label])
        assert same == (label[0] not in "FS" or not label[1].isdigit()), label


def test_unfamiliar_sets_redraw_the_suits_and_honours_and_keep_every_kind_apart() -> None:
    """Unfamiliar art (for measuring only) changes every suit and honour face from the same
    seed drawn plainly and with training's varied grammar, and still draws each kind unlike
    every other."""
    for seed in (3, 4):
        unfamiliar = procedural_set(seed, unfamiliar=True)
        plain, varied = procedural_set(seed), procedural_set(seed, varied=True)
        assert set(unfamiliar) == set(plain)
        faces = [unfamiliar[label].astype(np.int16) for label in CHINESE_LABELS]
        for i in range(len(faces)):
            for j in range(i + 1, len(faces)):
                diff = np.abs(faces[i] - faces[j]).mean()
                assert diff > 1.0, (seed, CHINESE_LABELS[i], CHINESE_LABELS[j])
        suits_and_honours = [label for label in CHINESE_LABELS if label[0] not in "FS"]
        for label in suits_and_honours:
            for other in (plain, varied):
                diff = np.abs(unfamiliar[label].astype(int) - other[label].astype(int)).mean()
                assert diff > 3, (seed, label)


def test_unfamiliar_art_letters_in_training_fonts_only() -> None:
    """No unfamiliar set letters in a held-out font or hand (those measure the reader)."""
    held_out = set(HELD_OUT_FONTS) | set(HELD_OUT_HANDS)
    fonts = {UnfamiliarStyle.draw(seed).font for seed in range(300)}
    assert len(fonts) > 10
    assert fonts <= set(TRAINING_FONTS) and not fonts & held_out
