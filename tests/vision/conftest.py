"""Shared rendered scenes for the vision tests (rendered once per session: rendering is the
slow part)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from controller.scene import shown_hand_layout
from vision.calibration import calibrate
from vision.finder import find, tile_crops
from vision.geometry import TableGeometry
from vision.image import Image
from vision.labels import CHINESE_LABELS, LABELS
from vision.synth.layout import random_layout
from vision.synth.render import Rendered, Style, render

RED_CLOTH = (40, 40, 120)  # BGR: one of the renderer's cloths

# Art sets held out of the bundled network's training (vision/models/tile_embed.json).
HELD_OUT_ART = "xmj-real"


def rendered_table(seed: int, art: str, **layout_options: object) -> Rendered:
    rng = np.random.default_rng(seed)
    geometry = TableGeometry()
    style = Style.random(rng, art)
    layout = random_layout(rng, LABELS, geometry, **layout_options)  # type: ignore[arg-type]
    return render(layout, style, rng, geometry)


def scanned_tile_crops(table: Rendered) -> list[Image]:
    """The crops a scan cuts from a rendered table: calibrated from its markers, every tile
    the finder finds, cut as the scanner cuts it."""
    cal = calibrate(table.image, table.geometry)
    return tile_crops(table.image, cal, [f for f in find(table.image, cal) if f.kind == "tile"])


def jade_table(seed: int = 506) -> Rendered:
    """``kde-jade``'s dark red-brown tiles on the renderer's dark red cloth, the light falling
    off by 30 % across the table: the colour of the bodies is near the cloth's."""
    rng = np.random.default_rng(seed)
    geometry = TableGeometry()
    style = replace(Style.random(rng, "kde-jade"), felt=RED_CLOTH, gradient=0.3)
    layout = random_layout(rng, LABELS, geometry)
    return render(layout, style, rng, geometry)


def hand_laid_out(seed: int, art: str, apart: float = 0.0) -> Rendered:
    """14 tiles in a row on a seat's rack strip (which seat's, by the seed), touching or up
    to ``apart`` mm apart, as a winning hand is laid out to be scored."""
    rng = np.random.default_rng(seed)
    gaps = rng.uniform(0, apart, 13)
    labels = [CHINESE_LABELS[int(k)] for k in rng.integers(0, 34, 14)]
    seat = "ESWN"[int(rng.integers(4))]
    style = Style.random(rng, art)
    geometry = TableGeometry()
    return render(shown_hand_layout(labels, seat, gaps, geometry), style, rng, geometry)


@pytest.fixture(scope="session")
def tables() -> list[Rendered]:
    arts = ["xmj-real", "kde-traditional", "symbola", "kde-jade"]
    return [rendered_table(500 + i, arts[i % len(arts)]) for i in range(4)]
