"""`mjtable vision enroll|classify|scan` and `mjtable calibrate` per contracts.md."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.scan import ObstructionSeen
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop
from vision.synth.render import Rendered

from .conftest import HELD_OUT_ART, rendered_table


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 photos per kind of a set held out of training, mixed-case folder names."""
    root = tmp_path_factory.mktemp("samples")
    rng = np.random.default_rng(31)
    for label, face in load_set(HELD_OUT_ART).items():
        if label in ("BLANK", "BACK"):
            continue
        folder = root / (label.lower() if label[0].isdigit() else label)
        folder.mkdir()
        for i in range(3):
            # Any size: enrolment photos are not crops of the recogniser's size.
            crop = cv2.resize(synthetic_crop(face, rng), (90, 120))
            cv2.imwrite(str(folder / f"{i}.png"), crop)
    return root


def test_enroll_then_classify(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    code, out = _run(capsys, "vision", "enroll", "--out", str(model), str(samples))
    assert code == 0
    assert out == [{"kinds": 43, "images": 129}]  # 42 + the Joker
    rng = np.random.default_rng(99)
    faces = load_set(HELD_OUT_ART)
    paths, truth = [], []
    for label in ("7D", "RD", "S2", "J", "9B"):
        path = tmp_path / f"t_{label}.png"
        cv2.imwrite(str(path), synthetic_crop(faces[label], rng))
        paths.append(str(path))
        truth.append(label)
    missing = str(tmp_path / "nope.png")
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG not really")
    argv = [*paths[:2], missing, str(broken), *paths[2:]]
    code, lines = _run(capsys, "vision", "classify", "--model", str(model), *argv)
    assert code == 0
    assert [line["image"] for line in lines] == argv  # input order, paths echoed exactly
    assert lines[2] == {"image": missing, "tile": None, "error": "no such file"}
    assert lines[3]["tile"] is None and "error" in lines[3]
    answers = [lines[i] for i in (0, 1, 4, 5, 6)]
    for answer, label in zip(answers, truth, strict=True):
        assert answer["tile"] in (label, None)
        assert 0.0 <= float(answer["confidence"]) <= 1.0  # type: ignore[arg-type]
    assert sum(a["tile"] == label for a, label in zip(answers, truth, strict=True)) >= 4


def test_enroll_refuses_a_folder_that_names_no_tile(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad"
    (bad / "10B").mkdir(parents=True)
    cv2.imwrite(str(bad / "10B" / "a.png"), np.zeros((20, 20, 3), np.uint8))
    code, out = _run(capsys, "vision", "enroll", "--out", str(tmp_path / "m"), str(bad))
    assert code == 2
    assert "10B" in str(out[0]["error"]) and str(out[0]["where"]).endswith("10B")
    code, out = _run(
        capsys, "vision", "enroll", "--out", str(tmp_path / "m"), str(tmp_path / "absent")
    )
    assert code == 2 and out[0]["where"] == "SAMPLES_DIR"


def test_classify_with_a_missing_model_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(capsys, "vision", "classify", "--model", str(tmp_path), "x.png")
    assert code == 2 and out[0]["where"] == "--model"


def test_calibrate_then_scan(
    tables: list[Rendered], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tables[1]
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), table.image)
    cal = tmp_path / "cal.json"
    code, out = _run(capsys, "calibrate", "--out", str(cal), str(image))
    assert code == 0
    assert out[0]["markers"] == 4 and float(out[0]["reprojection_error_px"]) < 2  # type: ignore[arg-type]
    code, out = _run(capsys, "vision", "scan", "--calibration", str(cal), str(image))
    assert code == 0
    result = out[0]
    assert result["image"] == str(image)
    tiles = result["tiles"]
    assert isinstance(tiles, list)
    code, out = _run(
        capsys, "vision", "scan", "--calibration", str(cal), "--model", str(tmp_path), str(image)
    )
    assert code == 2 and out[0]["where"] == "--model"
    assert len(tiles) >= 0.9 * len(table.layout.tiles)
    for tile in tiles:
        assert set(tile) >= {"tile", "zone", "x_mm", "y_mm", "orientation", "confidence"}
        assert 0 <= tile["x_mm"] <= 900 and 0 <= tile["y_mm"] <= 900
    assert sum(t.get("face_down", False) for t in tiles) >= 0.8 * sum(
        1 for t in table.layout.tiles if t.label == "BACK"
    )
    assert len(result["dice"]) == 2  # type: ignore[arg-type]


def test_scan_reports_a_hand_over_the_table_with_its_rectangle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = rendered_table(77, "symbola", hand=1.0)
    assert table.layout.hand is not None
    image = tmp_path / "hand.png"
    cv2.imwrite(str(image), table.image)
    cal = tmp_path / "cal.json"
    assert _run(capsys, "calibrate", "--out", str(cal), str(image))[0] == 0
    code, out = _run(capsys, "vision", "scan", "--calibration", str(cal), str(image))
    assert code == 0
    obstructions = out[0]["obstructions"]
    assert isinstance(obstructions, list) and len(obstructions) == 1
    hand: dict[str, float] = obstructions[0]
    assert set(hand) == {"x_mm", "y_mm", "w_mm", "h_mm", "angle"}
    spot = ObstructionSeen(hand["x_mm"], hand["y_mm"], hand["angle"], hand["w_mm"], hand["h_mm"])
    assert spot.covers(*table.layout.hand)


def test_scan_and_calibrate_refuse_bad_input(
    tables: list[Rendered], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(capsys, "vision", "scan", "--calibration", str(tmp_path / "none.json"), "x")
    assert code == 2 and out[0]["where"] == "--calibration"
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((1080, 1920, 3), 90, np.uint8))
    code, out = _run(capsys, "calibrate", "--out", str(tmp_path / "c.json"), str(blank))
    assert code == 2 and "not found" in str(out[0]["error"])
    assert not (tmp_path / "c.json").exists()
    # A frame of another size than the calibration's.
    cal = tmp_path / "cal.json"
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), tables[0].image)
    assert _run(capsys, "calibrate", "--out", str(cal), str(good))[0] == 0
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(tables[0].image, (960, 540)))
    code, out = _run(capsys, "vision", "scan", "--calibration", str(cal), str(small))
    assert code == 2 and "calibrate again" in str(out[0]["error"])
    code, out = _run(capsys, "vision", "scan", "--calibration", str(cal), str(tmp_path / "no.png"))
    assert code == 2 and out[0]["where"] == "IMAGE"


def test_calibrate_from_a_camera_at_the_tables_frame_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cal = tmp_path / "cal.json"
    code, out = _run(
        capsys, "calibrate", "--out", str(cal), "--source", "render:5", "--size", "2304x1296"
    )
    assert code == 0 and out[0]["image_size"] == [2304, 1296]
    for size, says in (("12", "WIDTHxHEIGHT"), ("100x1296", "width"), ("2304x9000", "height")):
        code, out = _run(
            capsys, "calibrate", "--out", str(cal), "--source", "render:5", "--size", size
        )
        assert code == 2 and out[0]["where"] == "--size" and says in str(out[0]["error"])
    code, out = _run(capsys, "calibrate", "--out", str(cal), "--size", "2304x1296", "x.png")
    assert code == 2 and out[0]["where"] == "--size"


def test_print_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = tmp_path / "markers.png"
    code, out = _run(capsys, "calibrate", "--print-markers", str(sheet))
    assert code == 0 and out[0]["ids"] == [0, 1, 2, 3]
    assert cv2.imread(str(sheet)) is not None
