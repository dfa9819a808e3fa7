"""The camera's crop of a doubtful tile, cut from the very frame vision's pipeline scanned
(the rendered table), kept for the referee's console (controller/crops.py)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from controller.camera import CameraLoop
from controller.crops import SIDE_PX, TileCrops, pick_tile
from controller.inputs import Observation, ObservationKind, RecordedInputs
from tests.waiting import wait_until
from vision.calibration import Calibration
from vision.geometry import TableGeometry
from vision.scan import TileSeen


def seen(tile: str | None, x: float, y: float, confidence: float, zone: str = "discards",
         face_down: bool = False) -> TileSeen:
    return TileSeen(tile, confidence, x, y, 0.0, zone, None, False, face_down=face_down)


def test_the_tile_an_observation_is_about() -> None:
    tiles = [seen("5B", 450, 640, 0.97), seen("RD", 470, 640, 0.62),
             seen(None, 300, 450, 0.3), seen(None, 450, 660, 0.2, face_down=True),
             seen("RD", 450, 200, 0.5)]  # West's side of the table
    east_red = Observation(ObservationKind.DISCARD, "E", ("RD",), 0.62, zone="discards")
    assert pick_tile(east_red, tiles, 900.0) is tiles[1]
    # a discard not read: the unread face-up tile on that seat's side (North's, here)
    unread = Observation(ObservationKind.DISCARD, "N", (), 0.0, zone="discards")
    assert pick_tile(unread, tiles, 900.0) is tiles[2]


def test_a_doubtful_discard_is_cut_from_the_rendered_frame() -> None:
    from vision.geometry import TableGeometry
    from vision.synth.layout import DiePlacement, Layout, TilePlacement
    from vision.synth.render import Style
    from vision.synth.source import RenderedSource

    rng = np.random.default_rng(3)
    geometry = TableGeometry()
    style = Style.random(rng, "kde-traditional")
    layout = Layout(tiles=[], dice=[])
    sink = RecordedInputs()
    crops = TileCrops()
    loop = CameraLoop("render:3", sink, fps=30, crops=crops,
                      open_source=lambda spec: RenderedSource(3, lambda: (layout, style,
                                                                          geometry)))
    loop.start()
    try:
        assert wait_until(lambda: loop.frames >= 2, 60), loop.status()
        layout.tiles.append(TilePlacement("RD", x=450, y=640, angle=0))
        layout.dice.extend([DiePlacement(3, 440, 450), DiePlacement(5, 470, 455)])
        assert wait_until(lambda: len(sink.observations) >= 2, 90), loop.status()
    finally:
        loop.stop()
    kinds = {o.kind: o for o in sink.observations}
    assert crops.get(kinds[ObservationKind.DICE].to_json()) is None  # no tile to show
    png = crops.get(kinds[ObservationKind.DISCARD].to_json())
    assert png is not None and png.startswith(b"\x89PNG")
    image: Any = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (SIDE_PX, SIDE_PX, 3)
    # the tile (its pale face) in the middle, the cloth round it: the crop is of that tile
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
    middle = grey[SIDE_PX // 3: 2 * SIDE_PX // 3, SIDE_PX // 3: 2 * SIDE_PX // 3].mean()
    corners = np.mean([grey[:12, :12].mean(), grey[:12, -12:].mean(), grey[-12:, :12].mean(),
                       grey[-12:, -12:].mean()])
    assert middle > corners + 40, (middle, corners)


def test_only_the_latest_are_kept() -> None:
    crops = TileCrops(keep=2)
    frame = np.zeros((200, 200, 3), np.uint8)

    # a camera straight above a 900 mm table, 200 px across it
    flat = Calibration(np.diag([200 / 900, 200 / 900, 1.0]), (200, 200), 0.0, TableGeometry())
    for t in range(3):
        obs = Observation(ObservationKind.DISCARD, "E", ("RD",), 0.5, time_us=t,
                          zone="discards")
        assert crops.keep(obs, [seen("RD", 450, 640, 0.5)], frame, flat)
    assert len(crops) == 2
    first = Observation(ObservationKind.DISCARD, "E", ("RD",), 0.5, time_us=0, zone="discards")
    assert crops.get(first.to_json()) is None
