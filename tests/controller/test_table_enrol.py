"""The simulated table enrols its own rendered set, and its camera then names what it sees:
the game's public view laid out as the simulator lays it (controller/scene.py), rendered."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from controller.scene import table_layout
from vision.calibration import calibrate
from vision.geometry import TableGeometry
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.scan import Scanner
from vision.synth.layout import Layout
from vision.synth.render import CameraPose, Style
from vision.synth.source import RenderedSource
from vision.synth.table_enrol import enrol_rendered_table

SEED = 11
GEOMETRY = TableGeometry()


def _layout(seats: Mapping[str, Any]) -> Layout:
    layout: Layout = table_layout({"seats": seats}, geometry=GEOMETRY)
    return layout


def _named_right(model: Path, layout: Layout, style: Style, frames: int) -> tuple[int, int]:
    camera = RenderedSource(SEED, scene=lambda: (layout, style, GEOMETRY))
    scanner = Scanner(calibrate(camera.read(), GEOMETRY), Recogniser.load(model))
    right = total = 0
    for _ in range(frames):
        truth = layout.tiles
        xy = np.array([[t.x, t.y] for t in truth])
        seen = scanner.scan(camera.read()).tiles
        for t in seen:
            d = np.linalg.norm(xy - [t.x, t.y], axis=1)
            right += bool(d.min() < 10 and t.tile == truth[int(d.argmin())].label)
        total += len(truth)
    return right, total


def test_enrolled_rendered_set_is_named_where_the_bundled_model_abstains(
    tmp_path: Path,
) -> None:
    style = Style.random(np.random.default_rng(SEED), "kde-traditional")
    pose = CameraPose.overhead(np.random.default_rng(SEED))  # the pose RenderedSource draws
    model = enrol_rendered_table("kde-traditional", style, pose, SEED, cache=tmp_path)
    assert (model / "meta.json").exists()
    # A second call reuses the cached enrolment.
    stamp = (model / "prototypes.npz").stat().st_mtime_ns
    again = enrol_rendered_table("kde-traditional", style, pose, SEED, cache=tmp_path)
    assert again == model and (model / "prototypes.npz").stat().st_mtime_ns == stamp
    # A camera of another frame size (camera.width/height) is enrolled from its own photos.
    larger = CameraPose.overhead(np.random.default_rng(SEED), 2304, 1296)
    other = enrol_rendered_table("kde-traditional", style, larger, SEED, cache=tmp_path)
    assert other != model and (other / "meta.json").exists()

    layout = _layout(
        {
            "E": {"discards": ["1D", "4D", "5D", "6D", "7B", "9B"]},
            "S": {
                "discards": ["NW", "RD", "3C", "8C"],
                "melds": [{"kind": "pung", "tiles": ["7B", "7B", "7B"], "exposed": True}],
            },
            "W": {"discards": ["2B", "GD", "WD", "EW", "5C"], "flowers": ["F2", "S3"]},
            "N": {
                "discards": ["SW", "WW", "9D", "1C"],
                "melds": [{"kind": "chow", "tiles": ["2C", "3C", "4C"], "exposed": True}],
            },
        }
    )
    right, total = _named_right(model, layout, style, frames=2)
    assert total == 2 * 27
    assert right >= 0.9 * total, f"{right} of {total} named right after enrolment"
    before, _ = _named_right(DEFAULT_MODEL_DIR, layout, style, frames=2)
    assert right > before
