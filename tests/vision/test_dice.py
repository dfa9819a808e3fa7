"""Pips counted on rendered dice: every face, any turn, red 1 and 4 included."""

from __future__ import annotations

import numpy as np
import pytest

from vision.calibration import calibrate
from vision.dice import count_pips, die_crop
from vision.geometry import TableGeometry
from vision.render import DiePlacement, Layout, Style, render


@pytest.mark.parametrize("angle", [0.0, 27.0, 45.0])
def test_every_face_counted(angle: float) -> None:
    rng = np.random.default_rng(int(angle))
    geometry = TableGeometry()
    dice = [DiePlacement(v, 330 + 45 * v, 450, angle) for v in range(1, 7)]
    table = render(Layout(dice=dice), Style.random(rng, "symbola"), rng, geometry)
    cal = calibrate(table.image, geometry)
    for die in dice:
        pips, confidence = count_pips(die_crop(table.image, cal, die.x, die.y, -die.angle))
        assert pips == die.value, (die, pips)
        assert 0 < confidence <= 1


def test_a_patch_of_cloth_is_not_a_die() -> None:
    cloth = np.zeros((56, 56, 3), np.uint8)
    cloth[:] = (60, 110, 30)
    assert count_pips(cloth) == (None, 0.0)
