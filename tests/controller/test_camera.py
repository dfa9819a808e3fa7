"""The camera loop on vision's real pipeline: rendered frames of a table -> scanner ->
watcher -> observations; a missing camera is reported and retried, never fatal."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from controller.camera import CameraLoop
from controller.inputs import ObservationKind, RecordedInputs


def _wait(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.05)
    return bool(predicate())


def test_rendered_table_gives_dice_and_a_discard_by_the_right_seat() -> None:
    from vision.geometry import TableGeometry
    from vision.synth.layout import DiePlacement, Layout, TilePlacement
    from vision.synth.render import Style
    from vision.synth.source import RenderedSource

    rng = np.random.default_rng(3)
    geometry = TableGeometry()
    style = Style.random(rng, "kde-traditional")
    layout = Layout(tiles=[], dice=[])
    sink = RecordedInputs()
    asked: list[int] = []

    def showing() -> dict[str, int]:
        # The table's word on hands shown, read across threads: a failure to answer (here
        # every other frame) costs that frame's context, never the camera.
        asked.append(1)
        if len(asked) % 2:
            raise RuntimeError("the mirror changed under the reader")
        return {}

    loop = CameraLoop(
        "render:3", sink, fps=30,
        open_source=lambda spec: RenderedSource(3, lambda: (layout, style, geometry)),
        showing=showing,
    )
    loop.start()
    try:
        assert _wait(lambda: loop.frames >= 2, 60), loop.status()  # calibrated from markers
        assert sink.observations == []  # an empty table shows nothing
        # East's discard lands in front of East; the dice are in the tray.
        layout.tiles.append(TilePlacement("RD", x=450, y=640, angle=0))
        layout.dice.extend([DiePlacement(3, 440, 450), DiePlacement(5, 470, 455)])
        assert _wait(lambda: len(sink.observations) >= 2, 90), loop.status()
    finally:
        loop.stop()
    kinds = {o.kind: o for o in sink.observations}
    assert kinds[ObservationKind.DICE].dice == (3, 5)
    discard = kinds[ObservationKind.DISCARD]
    assert discard.seat == "E" and discard.zone == "discards" and len(discard.tiles) == 1
    assert 0.0 <= discard.confidence <= 1.0
    assert loop.status()["state"] == "running" and len(asked) >= loop.frames - 1


def test_a_missing_camera_is_reported_and_retried() -> None:
    from vision.capture import CameraUnavailable

    attempts: list[str] = []

    def broken(spec: str) -> Any:
        attempts.append(spec)
        raise CameraUnavailable("no camera on v4l2:7")

    loop = CameraLoop("v4l2:7", RecordedInputs(), open_source=broken)
    loop.start()
    try:
        assert _wait(lambda: loop.state == "unavailable", 5)
        assert "no camera on v4l2:7" in loop.status()["detail"]
        assert _wait(lambda: len(attempts) >= 2, 5)  # it keeps trying
    finally:
        loop.stop()


def test_the_loop_asks_the_camera_for_the_tables_frame_size(monkeypatch: Any) -> None:
    """``camera.width`` x ``camera.height`` reach vision's own opener (the service passes
    them; tests/controller/test_config.py has the settings)."""
    import vision.capture

    asked: list[tuple[str, Any]] = []

    def opener(spec: str, size: Any = None) -> Any:
        asked.append((spec, size))
        raise vision.capture.CameraUnavailable("no camera on v4l2:3")

    monkeypatch.setattr(vision.capture, "open_source", opener)
    loop = CameraLoop("v4l2:3", RecordedInputs(), frame_size=(2304, 1296))
    loop.start()
    try:
        assert _wait(lambda: loop.state == "unavailable", 5), loop.status()
    finally:
        loop.stop()
    assert asked[0] == ("v4l2:3", (2304, 1296))


def test_a_calibration_made_for_another_frame_size_is_made_anew(tmp_path: Any) -> None:
    """A saved calibration maps table mm to one frame size's pixels: a camera that now gives
    another (camera.width/height changed) is calibrated again from the markers, and saved."""
    from vision.calibration import Calibration, calibrate
    from vision.geometry import TableGeometry
    from vision.synth.layout import Layout
    from vision.synth.render import Style
    from vision.synth.source import RenderedSource

    geometry = TableGeometry()
    style = Style.random(np.random.default_rng(3), "kde-traditional")
    scene = lambda: (Layout(tiles=[], dice=[]), style, geometry)  # noqa: E731
    path = tmp_path / "calibration.json"
    calibrate(RenderedSource(3, scene).read()).save(path)
    assert Calibration.load(path).image_size == (1920, 1080)

    loop = CameraLoop(
        "render:3", RecordedInputs(), calibration=str(path), fps=30,
        open_source=lambda spec: RenderedSource(3, scene, size=(2304, 1296)),
    )
    loop.start()
    try:
        assert _wait(lambda: loop.frames >= 2, 60), loop.status()
    finally:
        loop.stop()
    again = Calibration.load(path)
    assert again.image_size == (2304, 1296) and again.reprojection_error_px < 2.0


def test_a_camera_that_drops_out_and_comes_back_reports_only_what_changed() -> None:
    # The service's camera starts on a table in play (back after a power cut): what lies
    # there is known. A loose cable then drops the camera; a discard lands meanwhile, and the
    # camera is put back a little moved. Back, calibrated anew from the markers, it reports
    # that discard, and nothing that was already on the table.
    from vision.capture import CameraUnavailable
    from vision.geometry import TableGeometry
    from vision.synth.layout import Layout, TilePlacement
    from vision.synth.render import Style
    from vision.synth.source import RenderedSource

    rng = np.random.default_rng(5)
    geometry = TableGeometry()
    style = Style.random(rng, "kde-traditional")
    layout = Layout(tiles=[TilePlacement("RD", x=450, y=640, angle=0)], dice=[])
    opened: list[int] = []

    class LooseCable(RenderedSource):
        def __init__(self, seed: int, reads: int | None) -> None:
            super().__init__(seed, lambda: (layout, style, geometry))
            self.reads = reads

        def read(self) -> Any:
            if self.reads is not None:
                if self.reads == 0:
                    raise CameraUnavailable("the camera is gone from USB")
                self.reads -= 1
            return super().read()

    def open_source(spec: str) -> Any:
        opened.append(1)
        return LooseCable(5, reads=8) if len(opened) == 1 else LooseCable(6, reads=None)

    sink = RecordedInputs()
    loop = CameraLoop("v4l2:0", sink, fps=30, open_source=open_source)
    loop.start()
    try:
        assert _wait(lambda: loop.state == "unavailable", 120), loop.status()
        layout.tiles.append(TilePlacement("3B", x=450, y=300, angle=0))
        assert _wait(lambda: len(sink.observations) >= 1, 120), loop.status()
        frames = loop.frames
        assert _wait(lambda: loop.frames >= frames + 4, 60), loop.status()
    finally:
        loop.stop()
    assert len(opened) == 2 and loop.status()["state"] == "running"
    assert not np.allclose(LooseCable(5, None).pose.corners_px, LooseCable(6, None).pose.corners_px)
    (discard,) = sink.observations
    assert discard.kind is ObservationKind.DISCARD and discard.tiles == ("3B",)
    assert discard.seat == "W"


def test_the_simulated_camera_gives_the_frame_the_table_asks_for(tmp_path: Any) -> None:
    """`mjtable simulate --camera` renders the frame camera.width x camera.height asks, so a
    simulated table is seen as its configured camera would see it."""
    from types import SimpleNamespace

    from config.load import load_config
    from controller.sim_camera import RenderedCamera

    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "t7"\n[camera]\nwidth = 2304\nheight = 1296\n')
    table = SimpleNamespace(settings=SimpleNamespace(ruleset="code1924/mixed"))
    service: Any = SimpleNamespace(cfg=load_config(path), table=table)
    camera = RenderedCamera(service, seed=3, enrol=False)
    assert camera.loop._open is not None
    assert camera.loop._open("render:3").read().shape == (1296, 2304, 3)
