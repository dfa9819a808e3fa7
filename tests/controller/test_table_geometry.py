"""The table's geometry as settings ([camera] in the table file), and the marker sheet printed
at true scale (a PNG carrying its DPI, a PDF whose page is A4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from config.load import ConfigError, load_config
from controller import cli
from controller.table_geometry import table_geometry

A4_POINTS = (595.28, 841.89)  # 210 x 297 mm at 72 points an inch


def _table(tmp_path: Path, camera: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\nid = "t1"\n[board]\nserial = "emulated"\n[camera]\n{camera}\n')
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = cli.main(list(argv))
    return code, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("camera", "tile"),
    [
        ("", (22.0, 30.0)),
        ('tiles = "american"', (28.0, 38.0)),
        ('tiles = "american"\ntile_w_mm = 27.5\ntile_h_mm = 36', (27.5, 36.0)),
    ],
)
def test_tile_size_defaults_by_set_and_a_measured_one(
    tmp_path: Path, camera: str, tile: tuple[float, float]
) -> None:
    geometry = table_geometry(load_config(_table(tmp_path, camera)).camera)
    assert (geometry.tile_w_mm, geometry.tile_h_mm) == tile
    assert geometry.marker_inset_mm == 12.0 and geometry.size_mm == 900.0


def test_a_smaller_table_moves_its_markers_and_zones(tmp_path: Path) -> None:
    geometry = table_geometry(load_config(_table(tmp_path, "table_mm = 800")).camera)
    assert geometry.marker_corners()[2][2] == (800 - 12, 800 - 12)
    assert geometry.zone_at(799, 400) is not None and geometry.zone_at(801, 400) is None


@pytest.mark.parametrize(
    ("camera", "key", "words"),
    [
        ("tile_w_mm = 32", "camera", "width (32.0 mm) must be less than its height"),
        ("marker_mm = 120\nmarker_inset_mm = 100\ntable_mm = 500", "camera", "take half"),
        ('tiles = "japanese"', "camera.tiles", "chinese"),
    ],
)
def test_bad_geometry_names_the_key(tmp_path: Path, camera: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_table(tmp_path, camera))
    assert any(p.where.endswith(key) and words in str(p) for p in caught.value.problems), str(
        caught.value
    )


def _marker_side_px(sheet: np.ndarray) -> list[float]:
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(sheet)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    return [float(np.linalg.norm(c[0][0] - c[0][1])) for c in corners]


def test_png_sheet_carries_its_dpi_and_markers_measure_true(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "markers.png"
    code, out = _run(capsys, "calibrate", "--print-markers", str(sheet), "--dpi", "150")
    assert code == 0 and out["dpi"] == 150 and out["size_mm"] == 50.0
    with Image.open(sheet) as image:
        dpi = image.info["dpi"]
        size = image.size
        pixels = np.asarray(image.convert("L"))
    assert dpi == pytest.approx((150, 150), abs=0.05)
    # The page is A4 at that DPI, and each marker's side is 50 mm on it.
    assert size == (round(210 / 25.4 * 150), round(297 / 25.4 * 150))
    for side in _marker_side_px(pixels):
        assert side / dpi[0] * 25.4 == pytest.approx(50.0, abs=0.5)


def test_pdf_sheet_is_one_a4_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = tmp_path / "markers.pdf"
    code, out = _run(capsys, "calibrate", "--print-markers", str(sheet))
    assert code == 0 and out["dpi"] == 300
    boxes = re.findall(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", sheet.read_bytes())
    assert len(boxes) == 1
    assert (float(boxes[0][0]), float(boxes[0][1])) == pytest.approx(A4_POINTS, abs=1.0)


@pytest.mark.parametrize(("name", "where"), [("markers.jpg", "--print-markers")])
def test_sheet_of_another_kind_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, where: str
) -> None:
    code, out = _run(capsys, "calibrate", "--print-markers", str(tmp_path / name))
    assert code == 2 and out["where"] == where and ".pdf or .png" in str(out["error"])
    assert not (tmp_path / name).exists()


def test_calibrate_takes_the_geometry_of_the_table_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.synth.source import RenderedSource

    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), RenderedSource(3).read())  # markers 12 mm in, as by default
    american = _table(tmp_path, 'tiles = "american"')
    cal = tmp_path / "cal.json"
    code, out = _run(capsys, "calibrate", "--config", str(american), "--out", str(cal), str(photo))
    assert code == 0, out
    assert json.loads(cal.read_text())["geometry"]["tile_w_mm"] == 28.0
    # Markers said to lie 40 mm in do not match the photo: refused, nothing written.
    wrong = _table(tmp_path, "marker_inset_mm = 40")
    code, out = _run(capsys, "calibrate", "--config", str(wrong), "--out", str(tmp_path / "w.json"),
                     str(photo))
    assert code == 2 and "reprojection error" in str(out["error"])
    assert not (tmp_path / "w.json").exists()
