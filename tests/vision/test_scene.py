"""The simulator's camera: a game state placed on the table, rendered, and read back by the
real pipeline (calibration from the frame, scan, watcher)."""

from __future__ import annotations

from controller.inputs import ObservationKind
from vision.calibration import calibrate
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.observe import TableWatcher
from vision.scan import Scanner
from vision.scene import TableScene


def test_game_state_round_trips_through_the_camera() -> None:
    scene = TableScene(art="kde-classic", seed=3)
    camera = scene.source()
    scanner = Scanner(calibrate(camera.read()), Recogniser.load(DEFAULT_MODEL_DIR))
    watcher = TableWatcher(stable_frames=2)
    seen = []
    for _ in range(2):
        seen += watcher.update(scanner.scan(camera.read()))
    assert seen == []  # an empty table
    scene.update(discards={"E": ["5C"], "W": ["NW"]}, exposed={"S": [["7B", "7B", "7B"]]},
                 flowers={"N": ["F3"]}, dice=(4, 1))  # fmt: skip
    for _ in range(3):
        seen += watcher.update(scanner.scan(camera.read()))
    got = {(o.kind, o.seat, o.tiles) for o in seen}
    assert (ObservationKind.DISCARD, "E", ("5C",)) in got
    assert (ObservationKind.DISCARD, "W", ("NW",)) in got
    assert (ObservationKind.EXPOSURE, "S", ("7B", "7B", "7B")) in got
    assert (ObservationKind.FLOWER, "N", ("F3",)) in got
    assert any(o.kind is ObservationKind.DICE and o.dice == (1, 4) for o in seen)
    camera.close()
