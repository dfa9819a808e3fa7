"""The simulated table enrols its own rendered set, and its camera then names what it sees."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.calibration import calibrate
from vision.capture import RenderedSource
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.render import CameraPose
from vision.scan import Scanner
from vision.scene import TableScene
from vision.table_enrol import enrol_rendered_table

SEED = 11


def _named_right(model: Path, scene: TableScene, frames: int) -> tuple[int, int]:
    camera = RenderedSource(SEED, scene=scene.frame_parts)
    scanner = Scanner(calibrate(camera.read(), scene.geometry), Recogniser.load(model))
    right = total = 0
    for _ in range(frames):
        truth = scene.layout().tiles
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
    scene = TableScene(art="kde-traditional", seed=SEED)
    pose = CameraPose.overhead(np.random.default_rng(SEED))  # the pose RenderedSource draws
    model = enrol_rendered_table("kde-traditional", scene.style(), pose, SEED, cache=tmp_path)
    assert (model / "meta.json").exists()
    # A second call reuses the cached enrolment.
    stamp = (model / "prototypes.npz").stat().st_mtime_ns
    again = enrol_rendered_table("kde-traditional", scene.style(), pose, SEED, cache=tmp_path)
    assert again == model and (model / "prototypes.npz").stat().st_mtime_ns == stamp
    # A camera of another frame size (camera.width/height) is enrolled from its own photos.
    larger = CameraPose.overhead(np.random.default_rng(SEED), 2304, 1296)
    other = enrol_rendered_table("kde-traditional", scene.style(), larger, SEED, cache=tmp_path)
    assert other != model and (other / "meta.json").exists()

    scene.update(
        discards={
            "E": ["1D", "4D", "5D", "6D", "7B", "9B"],
            "S": ["NW", "RD", "3C", "8C"],
            "W": ["2B", "GD", "WD", "EW", "5C"],
            "N": ["SW", "WW", "9D", "1C"],
        },
        exposed={"S": [["7B", "7B", "7B"]], "N": [["2C", "3C", "4C"]]},
        flowers={"W": ["F2", "S3"]},
    )
    right, total = _named_right(model, scene, frames=2)
    assert total == 2 * 27
    assert right >= 0.9 * total, f"{right} of {total} named right after enrolment"
    before, _ = _named_right(DEFAULT_MODEL_DIR, scene, frames=2)
    assert right > before
