"""`mjtable doctor`: one JSON answer per check, against the emulated board (`mjtable emulate`
in its own process), a real Mosquitto, the rendered camera and real store and model files."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller import cli
from controller.broker import LocalMosquitto, free_port
from controller.store import EventStore


class EmulatorProcess:
    """`mjtable emulate --link PATH` as the board, scripted over its stdin."""

    def __init__(self, link: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "emulate", "--link", str(link), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self.proc.stdout is not None
        self.ready = json.loads(self.proc.stdout.readline())

    def ask(self, op: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(op) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        if self.proc.poll() is None:
            self.ask({"op": "quit"})
            self.proc.wait(10)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[EmulatorProcess]:
    emulator = EmulatorProcess(tmp_path / "mahjong-mcu")
    yield emulator
    emulator.close()


def _table(tmp_path: Path, **sections: str) -> Path:
    parts = {
        "table": 'id = "t9"',
        "board": f'serial = "{tmp_path / "mahjong-mcu"}"',
        "camera": 'source = "render:3"\nwidth = 2304\nheight = 1296',
        "mqtt": f'host = "127.0.0.1"\nport = {free_port()}',
        "store": f'path = "{tmp_path / "table.sqlite3"}"',
    }
    parts.update(sections)
    path = tmp_path / "table.toml"
    path.write_text("".join(f"[{name}]\n{body}\n" for name, body in parts.items()))
    return path


def _doctor(capsys: pytest.CaptureFixture[str], config: Path, *args: str
            ) -> tuple[int, dict[str, dict[str, Any]]]:
    code = cli.main(["doctor", "--config", str(config), "--led-step", "0", *args])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    found = {line["check"]: line for line in lines}
    assert len(found) == len(lines), "one answer per check"
    return code, found


def test_a_table_whose_parts_all_answer(
    tmp_path: Path, board: EmulatorProcess, broker: LocalMosquitto,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = EventStore(tmp_path / "table.sqlite3")
    store.append([{"seq": 1, "hand": 1, "type": "HandStarted"}], [("t9/events", b"{}", 1)])
    store.close()
    config = _table(tmp_path, mqtt=f'host = "{broker.host}"\nport = {broker.port}')
    code, found = _doctor(capsys, config)
    assert list(found) == ["camera", "markers", "board", "leds", "broker", "store", "enrolled"]
    assert code == 0
    assert found["camera"]["status"] == "ok" and found["camera"]["frame"] == [2304, 1296]
    markers = found["markers"]
    assert markers["status"] == "ok" and markers["reprojection_error_px"] < 2
    assert 26 <= markers["tile_px"] <= 31  # docs/build/mounting.md: 28 px at 2304x1296
    assert found["board"]["status"] == "ok"
    assert found["board"]["firmware"] == found["board"]["reference_firmware"] == "mjfw-1.0.0"
    assert found["leds"]["status"] == "ok" and found["leds"]["board_segments"] == [
        18, 18, 18, 18, 24, 72]
    for segment in range(6):  # each segment was lit and put out again
        shown = board.ask({"op": "leds", "segment": segment})
        assert shown["animation"] is not None, segment
        assert all(pixel == [0, 0, 0] for pixel in shown["pixels"]), segment
    assert found["broker"]["status"] == "ok"
    assert found["store"]["status"] == "ok"
    assert (found["store"]["events"], found["store"]["outbox"]) == (1, 1)
    # The bundled prototypes work, but are not this table's tiles.
    assert found["enrolled"]["status"] == "warn" and "enrol" in found["enrolled"]["message"]


def test_missing_and_mismatched_parts_fail_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "table.sqlite3").write_bytes(b"not a database at all" * 100)
    config = _table(tmp_path)  # no board on the link, nothing on the broker's port
    code, found = _doctor(capsys, config, "--timeout", "1")
    assert code == 1
    assert found["board"]["status"] == "fail" and "no handshake" in found["board"]["message"]
    assert found["board"]["hint"] == "docs/build/flashing.md"
    assert found["leds"]["status"] == "skipped"
    assert found["broker"]["status"] == "fail" and "refused" in found["broker"]["message"]
    assert found["store"]["status"] == "fail" and "table.sqlite3" in found["store"]["message"]


def test_led_segments_that_do_not_match_the_board_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emulator = EmulatorProcess(tmp_path / "mahjong-mcu", "--segments", "18,18,18,18,24,60")
    try:
        code, found = _doctor(capsys, _table(tmp_path), "--check", "leds")
    finally:
        emulator.close()
    assert code == 1 and list(found) == ["leds"]
    assert found["leds"]["status"] == "fail"
    assert "[18, 18, 18, 18, 24, 72]" in found["leds"]["message"]
    assert "60" in found["leds"]["message"]


def test_a_board_with_other_firmware_is_to_be_flashed_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware_bridge.board import BoardSpec
    from firmware_bridge.emulator import EmulatedBoard

    link = tmp_path / "mahjong-mcu"
    with EmulatedBoard(spec=BoardSpec(firmware="mjfw-0.9.0"), link_path=link):
        code, found = _doctor(capsys, _table(tmp_path), "--check", "board")
    assert code == 1 and found["board"]["status"] == "fail"
    assert "mjfw-0.9.0" in found["board"]["message"] and "flash" in found["board"]["message"]


def test_markers_hidden_or_too_few_pixels_on_a_tile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.geometry import TableGeometry
    from vision.synth.source import RenderedSource

    # A full-HD camera: 24 px on a tile, under the 28 the guide aims at.
    config = _table(tmp_path, camera='source = "render:3"\nwidth = 1920\nheight = 1080')
    code, found = _doctor(capsys, config, "--check", "markers")
    assert code == 0 and found["markers"]["status"] == "warn"
    assert 22 <= found["markers"]["tile_px"] < 26

    # The bottom-right marker covered by a cloth: named, and nothing else judged.
    frame = RenderedSource(3, size=(2304, 1296)).read()
    from vision.calibration import calibrate

    calibration = calibrate(frame, TableGeometry())
    corners = calibration.to_frame(np.array(TableGeometry().marker_corners()[2], np.float64))
    cv2.fillConvexPoly(frame, corners.astype(np.int32), (40, 90, 40))
    photo = tmp_path / "covered.png"
    cv2.imwrite(str(photo), frame)
    config = _table(tmp_path, camera=f'source = "file:{photo}"')
    code, found = _doctor(capsys, config, "--check", "markers")
    assert code == 1 and found["markers"]["status"] == "fail"
    assert "[2]" in found["markers"]["message"]


def test_enrolled_set_must_cover_the_tables_tiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.synth.artwork import load_set
    from vision.synth.crops import synthetic_crop

    samples = tmp_path / "samples"
    faces = load_set("kde-traditional")
    rng = np.random.default_rng(5)
    for label in ("1B", "RD"):  # two kinds of a set of 42
        (samples / label).mkdir(parents=True)
        for i in range(3):
            cv2.imwrite(str(samples / label / f"{i}.png"), synthetic_crop(faces[label], rng))
    model = tmp_path / "model"
    assert cli.main(["vision", "enroll", "--out", str(model), str(samples)]) == 0
    capsys.readouterr()
    config = _table(tmp_path, camera=f'source = "render:3"\nmodel = "{model}"',
                    table='id = "t9"\nruleset = "classical"')
    code, found = _doctor(capsys, config, "--check", "enrolled")
    assert code == 1 and found["enrolled"]["status"] == "fail"
    missing = found["enrolled"]["missing"]
    assert len(missing) == 40 and "1B" not in missing and {"9C", "F4", "S1"} <= set(missing)


def test_a_table_file_it_cannot_use_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\nid = "t9"\n[camera]\ntiles = "japanese"\n')
    code = cli.main(["doctor", "--config", str(bad)])
    out = capsys.readouterr().out.splitlines()
    assert code == 2 and len(out) == 1
    assert json.loads(out[0])["where"].endswith("camera.tiles")
