"""The simulated camera's table: a public view laid out as players lay it, rendered, and found
by vision's scanner in the right zones and on the right sides."""

from __future__ import annotations

from collections import Counter

import numpy as np

from controller.inputs import ObservationKind
from controller.scene import shown_hand_layout, table_layout
from vision.geometry import TableGeometry

VIEW = {
    "seats": {
        "E": {"discards": ["1C", "2C", "3C", "4C", "5C", "6C", "7C"], "melds": [], "flowers": []},
        "S": {"discards": ["RD"], "melds": [], "flowers": ["F2"]},
        "W": {
            "discards": [],
            "melds": [
                {"kind": "pung", "tiles": ["9B", "9B", "9B"], "exposed": True},
                {"kind": "kong", "tiles": ["EW"] * 4, "exposed": False},
            ],
            "flowers": [],
        },
        "N": {"discards": ["GD", "WD"], "melds": [], "flowers": []},
    }
}


def test_layout_places_discards_before_each_seat_and_sets_on_its_rack() -> None:
    layout = table_layout(VIEW, dice=(2, 5))
    faces = Counter(t.label for t in layout.tiles)
    assert faces["9B"] == 3 and faces["BACK"] == 4  # a concealed kong shows no face
    assert faces["F2"] == 1 and len(layout.dice) == 2
    positions = [(t.x, t.y) for t in layout.tiles]
    assert len(set(positions)) == len(positions)  # no two tiles on one spot


def test_vision_finds_the_layout_in_the_right_zones() -> None:
    from vision.calibration import calibrate
    from vision.geometry import TableGeometry
    from vision.identify import DEFAULT_MODEL_DIR, Recogniser
    from vision.observe import TableWatcher
    from vision.render import CameraPose, Style, render
    from vision.scan import Scanner

    rng = np.random.default_rng(4)
    geometry = TableGeometry()
    frame = render(
        table_layout(VIEW),
        Style.random(rng, "kde-traditional"),
        rng,
        geometry,
        CameraPose.overhead(rng),
    ).image
    scan = Scanner(calibrate(frame), Recogniser.load(DEFAULT_MODEL_DIR)).scan(frame)
    where = Counter((t.zone, t.seat) for t in scan.tiles)
    assert where[("discards", None)] == 10
    assert where[("exposed", "W")] == 7  # the pung and the face-down kong
    assert where[("exposed", "S")] == 1  # the flower

    # Each discard lies on its seat's side of the table (nearest edge: E bottom, S right,
    # W top, N left), which is how the watcher names the discarder.
    def side(x: float, y: float) -> str:
        edges = {"E": 900 - y, "S": 900 - x, "W": y, "N": x}
        return min(edges, key=lambda k: edges[k])

    sides = Counter(side(t.x, t.y) for t in scan.tiles if t.zone == "discards")
    assert sides == {"E": 7, "S": 1, "N": 2}
    # Held still for three frames, what the watcher reports names the right seats (a tile the
    # recogniser abstains on is not reported: vision's accuracy is measured in its own tests).
    watcher = TableWatcher(stable_frames=3, set_size=144)
    seen = [o for _ in range(3) for o in watcher.update(scan)]
    assert seen and all(o.seat in ("E", "S", "N", "W") for o in seen)
    assert {o.seat for o in seen if o.kind is ObservationKind.DISCARD} <= {"E", "S", "N"}
    assert all(o.seat == "W" for o in seen if o.kind is ObservationKind.EXPOSURE)
    assert all(o.seat == "S" for o in seen if o.kind is ObservationKind.FLOWER)


def test_a_shown_hand_lies_on_the_seats_rack_strip_centred_facing_it() -> None:
    g = TableGeometry()
    tiles = ["1C", "2C", "3C", "4C"]
    east = shown_hand_layout(tiles, "E", geometry=g).tiles
    assert [t.label for t in east] == tiles
    assert all(t.y == g.size_mm - 40 and t.angle == 0 for t in east)
    xs = [t.x for t in east]
    assert np.allclose(np.diff(xs), g.tile_w_mm)  # touching, left to right for East
    assert np.isclose((xs[0] + xs[-1]) / 2, g.size_mm / 2)
    # North sits on the left edge, facing in: its row runs down the table, 1 and 2 mm apart.
    north = shown_hand_layout(tiles, "N", [1.0, 2.0, 0.0], g).tiles
    assert all(t.x == 40 and t.angle == 270 for t in north)
    assert np.allclose(np.diff([t.y for t in north]), [23.0, 24.0, 22.0])
