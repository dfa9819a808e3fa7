"""The art sets load from the installed packages with every face, distinct and the right size."""

from __future__ import annotations

import numpy as np
import pytest

from vision.labels import BACK, CHINESE_LABELS, JOKER
from vision.synth.artwork import ART_SETS, FACE_H, FACE_W, load_set


@pytest.mark.parametrize("name", list(ART_SETS))
def test_every_set_has_all_faces_and_generated_extras(name: str) -> None:
    faces = load_set(name)
    expected = set(CHINESE_LABELS)
    if name in ("kde-egypt", "gnome-postmodern"):  # bonus tiles alike or unnamed: left out
        expected -= {lab for lab in CHINESE_LABELS if lab[0] in "FS" and len(lab) == 2}
    assert expected <= set(faces)
    assert {JOKER, BACK} <= set(faces)
    for label, face in faces.items():
        assert face.shape == (FACE_H, FACE_W, 3), label
        assert face.dtype == np.uint8


@pytest.mark.parametrize(
    "name",
    ["kde-traditional", "xmj-real", "symbola", "xmj-dorothys", "gnome-smooth", "gnome-postmodern"],
)
def test_faces_of_a_set_differ_from_each_other(name: str) -> None:
    """A wrong grid cut or a broken SVG element would give blank or repeated faces."""
    faces = load_set(name)
    suited = [faces[lab].astype(np.int16) for lab in CHINESE_LABELS[:34]]
    for i in range(len(suited)):
        for j in range(i + 1, len(suited)):
            diff = np.abs(suited[i] - suited[j]).mean()
            assert diff > 2.0, (name, CHINESE_LABELS[i], CHINESE_LABELS[j])
        # Every face carries an engraving: not one flat colour (the white dragon has a frame).
        assert suited[i].std() > 8, (name, CHINESE_LABELS[i])


@pytest.mark.parametrize("name", ["gnome-smooth", "gnome-postmodern"])
def test_gnome_sheet_order_puts_each_dragon_in_its_place(name: str) -> None:
    """The GNOME sheets are cut by position: a shifted order would move the red dragon."""
    faces = load_set(name)

    def red_pixels(label: str) -> int:
        b, g, r = (faces[label].astype(np.int16)[:, :, i] for i in range(3))
        return int(((r - g > 60) & (r - b > 60)).sum())

    def green_pixels(label: str) -> int:
        b, g, r = (faces[label].astype(np.int16)[:, :, i] for i in range(3))
        return int(((g - r > 40) & (g - b > 20)).sum())

    assert red_pixels("RD") > 3 * max(red_pixels("GD"), red_pixels("WD"), red_pixels("NW"))
    assert green_pixels("GD") > 3 * max(green_pixels("RD"), green_pixels("WD"), 1)
