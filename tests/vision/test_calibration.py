"""Calibration from the corner markers: round trip against the renderer's true homography,
save/load, and refusals that say why."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import Calibration, CalibrationError, calibrate, marker_sheet
from vision.geometry import TableGeometry
from vision.synth.render import Rendered


def test_homography_round_trip_within_a_pixel(tables: list[Rendered]) -> None:
    points = np.array([[100.0, 100.0], [450.0, 450.0], [820.0, 300.0], [200.0, 880.0]])
    for table in tables:
        cal = calibrate(table.image, table.geometry)
        assert cal.reprojection_error_px < 2.0
        truth = cv2.perspectiveTransform(points.reshape(-1, 1, 2), table.homography).reshape(-1, 2)
        assert np.abs(cal.to_frame(points) - truth).max() < 1.5
        back = cal.to_table(cal.to_frame(points))
        assert np.abs(back - points).max() < 1e-6


def test_save_and_load_keep_everything(tables: list[Rendered], tmp_path: Path) -> None:
    cal = calibrate(tables[0].image, tables[0].geometry)
    path = tmp_path / "cal.json"
    cal.save(path)
    again = Calibration.load(path)
    assert np.allclose(again.homography, cal.homography)
    assert again.image_size == (1920, 1080)
    assert again.geometry == cal.geometry
    assert again.reprojection_error_px == pytest.approx(cal.reprojection_error_px, abs=1e-3)


def test_a_covered_marker_is_named(tables: list[Rendered]) -> None:
    image = tables[0].image.copy()
    corner = tables[0].homography @ np.array([860.0, 860.0, 1.0])  # marker 2, bottom right
    x, y = (corner[:2] / corner[2]).astype(int)
    cv2.rectangle(image, (x - 60, y - 60), (x + 40, y + 40), (40, 80, 140), -1)
    with pytest.raises(CalibrationError, match=r"marker\(s\) \[2\] not found"):
        calibrate(image, tables[0].geometry)


def test_a_wrong_table_size_is_refused_by_reprojection_error(tables: list[Rendered]) -> None:
    wrong = TableGeometry(size_mm=800.0)  # the markers are not where this geometry says
    cal = calibrate(tables[0].image, wrong, max_error_px=1000)
    assert cal.reprojection_error_px > 2.0
    with pytest.raises(CalibrationError, match="reprojection error"):
        calibrate(tables[0].image, wrong)


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{",
        '{"version": 1}',
        '{"version": 9}',
        '{"version": 1, "homography_mm_to_px": [[1]], '
        '"image_size": [1, 1], "reprojection_error_px": 0}',
    ],
)
def test_bad_calibration_files_are_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "cal.json"
    path.write_text(content)
    with pytest.raises(CalibrationError):
        Calibration.load(path)
    with pytest.raises(CalibrationError, match="no calibration file"):
        Calibration.load(tmp_path / "missing.json")


def test_printed_sheet_markers_are_detectable() -> None:
    from vision.calibration import detect_markers

    sheet = cv2.cvtColor(marker_sheet(), cv2.COLOR_GRAY2BGR)
    assert sorted(detect_markers(sheet)) == [0, 1, 2, 3]
