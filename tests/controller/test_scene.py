"""The simulated camera's table: a public view laid out as players lay it, rendered, and found
by vision's scanner in the right zones and on the right sides."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from controller.inputs import ObservationKind
from controller.scene import SEAT_ANGLE, reaching_hand, shown_hand_layout, table_layout
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
    from vision.scan import Scanner
    from vision.synth.render import CameraPose, Style, render

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

    # Each discard lies on its seat's side of the table, which is how the watcher names the
    # discarder.
    sides = Counter(_side(t.x, t.y) for t in scan.tiles if t.zone == "discards")
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


HAND = ["1C", "2C", "3C", "7D", "7D", "WD", "WD", "3C"]  # two sets laid before: 8 shown


def _with_sets(seat: str) -> dict[str, object]:
    sets = [{"kind": "pung", "tiles": [t] * 3, "exposed": True} for t in ("9B", "EW")]
    return {"seats": {seat: {"discards": ["5D", "NW", "6B"], "melds": sets, "flowers": []}}}


def test_the_hand_shown_lies_on_the_rack_strip_its_drawn_tile_turned_at_the_right() -> None:
    from controller.scene import lay_hand_shown
    from vision.geometry import TableGeometry

    geometry = TableGeometry()
    for seat in "ESWN":
        before = table_layout(_with_sets(seat), (), geometry)
        sets = list(before.tiles)
        layout = lay_hand_shown(before, seat, HAND, "3C", geometry)
        hand = layout.tiles[len(sets) :]
        assert sorted(t.label for t in hand) == sorted(HAND)
        zones = {geometry.zone_at(t.x, t.y) for t in hand}
        assert {(z.name, z.seat) for z in zones if z is not None} == {("exposed", seat)}
        assert None not in zones
        # Upright as the seat reads them, but the last: sideways, at the seat's right.
        upright = SEAT_ANGLE[seat]
        assert [t.angle for t in hand[:-1]] == [upright] * 7
        assert hand[-1].label == "3C" and hand[-1].angle == (upright + 90) % 360
        ahead = {"E": (1, 0), "S": (0, -1), "W": (-1, 0), "N": (0, 1)}[seat]
        along = [t.x * ahead[0] + t.y * ahead[1] for t in hand]
        assert along == sorted(along)
        # Clear of the sets laid before (tiles 22 x 30 mm; the row is in front of them).
        for t in hand:
            for s in sets:
                if s.label in ("9B", "EW"):
                    assert abs(t.x - s.x) >= 22 or abs(t.y - s.y) >= 30


def test_the_camera_reads_a_hand_shown_behind_two_sets(tmp_path: Path) -> None:
    """Rendered, scanned with the table's own set enrolled and watched: the 8 tiles shown are
    one hand when the table says East is showing (ten would be needed otherwise), and the
    tile laid sideways is the one drawn last (Law 80)."""
    from controller.scene import lay_hand_shown
    from vision.calibration import calibrate
    from vision.identify import Recogniser
    from vision.observe import TableWatcher
    from vision.scan import Scanner
    from vision.synth.render import CameraPose, Style, render
    from vision.synth.table_enrol import enrol_rendered_table

    seed = 12
    geometry = TableGeometry()
    style = Style.random(np.random.default_rng(seed), "kde-traditional")
    pose = CameraPose.overhead(np.random.default_rng(seed))
    model = enrol_rendered_table("kde-traditional", style, pose, seed, cache=tmp_path)

    def frame(hand: bool, on_end: bool = False) -> np.ndarray:
        layout = table_layout(_with_sets("E"), (), geometry)
        if hand:
            lay_hand_shown(layout, "E", HAND, "3C", geometry, stood_on_end=on_end)
        return render(layout, style, np.random.default_rng(seed + 1), geometry, pose).image

    before, after, law_80 = frame(False), frame(True), frame(True, on_end=True)
    with Scanner(calibrate(before), Recogniser.load(model)) as scanner:
        scans = [scanner.scan(before), scanner.scan(after)]
        stood = scanner.scan(law_80)
    for showing, kinds in (({"E": 8}, [ObservationKind.HAND_SHOWN]), (None, None)):
        watcher = TableWatcher(stable_frames=2)
        for _ in range(3):
            watcher.update(scans[0])
        seen = [
            o
            for _ in range(3)
            for o in watcher.update(scans[1], showing=showing)
            if o.zone == "rack-E"
        ]
        if kinds is not None:
            assert [o.kind for o in seen] == kinds
            assert sorted(seen[0].tiles) == sorted(HAND) and seen[0].winning == "3C"
        else:  # no word from the table: 8 tiles are not a hand
            assert seen and ObservationKind.HAND_SHOWN not in [o.kind for o in seen]
    # The drawn tile stood on end, as Law 80 has it: its end is no tile the camera can name
    # (and no hand over the table). The seven read go to the table unsure, which asks.
    assert not stood.obstructions
    watcher = TableWatcher(stable_frames=2, hand_patience=4)
    for _ in range(3):
        watcher.update(scans[0])
    seen = [
        o for _ in range(8) for o in watcher.update(stood, showing={"E": 8}) if o.zone == "rack-E"
    ]
    assert [(o.kind, o.confidence) for o in seen] == [(ObservationKind.HAND_SHOWN, 0.0)]
    assert sorted(seen[0].tiles) == sorted(HAND[:-1]) and seen[0].winning == ""


def test_a_game_state_round_trips_through_the_rendered_camera() -> None:
    # The simulator's camera: the view laid out, rendered afresh on every read, calibrated
    # from its own first frame and scanned; the watcher reports what the game put down.
    from vision.calibration import calibrate
    from vision.identify import DEFAULT_MODEL_DIR, Recogniser
    from vision.observe import TableWatcher
    from vision.scan import Scanner
    from vision.synth.render import Style
    from vision.synth.source import RenderedSource

    geometry = TableGeometry()
    style = Style.random(np.random.default_rng(3), "kde-classic")
    table: dict[str, Any] = {"view": {"seats": {}}, "dice": ()}
    camera = RenderedSource(
        3, scene=lambda: (table_layout(table["view"], table["dice"], geometry), style, geometry)
    )
    scanner = Scanner(calibrate(camera.read()), Recogniser.load(DEFAULT_MODEL_DIR))
    watcher = TableWatcher(stable_frames=2)
    seen = [o for _ in range(2) for o in watcher.update(scanner.scan(camera.read()))]
    assert seen == []  # an empty table
    pung = {"kind": "pung", "tiles": ["7B", "7B", "7B"], "exposed": True}
    table["view"] = {
        "seats": {
            "E": {"discards": ["5C"]},
            "S": {"melds": [pung]},
            "W": {"discards": ["NW"]},
            "N": {"flowers": ["F3"]},
        }
    }
    table["dice"] = (4, 1)
    seen = [o for _ in range(3) for o in watcher.update(scanner.scan(camera.read()))]
    got = {(o.kind, o.seat, o.tiles) for o in seen}
    assert (ObservationKind.DISCARD, "E", ("5C",)) in got
    assert (ObservationKind.DISCARD, "W", ("NW",)) in got
    assert (ObservationKind.EXPOSURE, "S", ("7B", "7B", "7B")) in got
    assert (ObservationKind.FLOWER, "N", ("F3",)) in got
    assert any(o.kind is ObservationKind.DICE and o.dice == (1, 4) for o in seen)
    camera.close()


def test_a_player_reaching_for_the_wall_hides_only_his_own_side() -> None:
    # The simulated camera's next player reaches over the table after a discard: the
    # watcher holds still what lies under the hand, and must still see the other discards.
    from vision.calibration import calibrate
    from vision.finder import find
    from vision.observe import TableWatcher
    from vision.scan import ObstructionSeen
    from vision.synth.render import CameraPose, Style, render

    geometry = TableGeometry()
    margin = TableWatcher().hidden_margin_mm
    for k, seat in enumerate("ESWN"):
        rng = np.random.default_rng(10 + k)
        layout = table_layout(VIEW, geometry=geometry)
        layout.hand = reaching_hand(seat, 100.0 - 70 * k, geometry)
        frame = render(
            layout, Style.random(rng, "kde-traditional"), rng, geometry, CameraPose.overhead(rng)
        ).image
        found = find(frame, calibrate(frame))
        seen = [ObstructionSeen.of(f) for f in found if f.kind == "obstruction"]
        (hand,) = [o for o in seen if o.covers(*layout.hand)]
        for tile in layout.tiles:
            if _side(tile.x, tile.y) != seat:
                assert not hand.covers(tile.x, tile.y, margin), (seat, tile)


def _side(x: float, y: float) -> str:
    """The seat whose side of the 900 mm table a point is on: its nearest edge (E bottom,
    S right, W top, N left)."""
    edges = {"E": 900 - y, "S": 900 - x, "W": y, "N": x}
    return min(edges, key=lambda k: edges[k])


def _american_view(discards: int) -> dict[str, object]:
    """An American public view: every seat with ``discards`` discards (flowers among them)
    and W with a pung and a kong holding Jokers."""
    kinds = ["1C", "2D", "F", "3B", "NW", "GD", "8C", "F", "9D", "J", "4B", "WD", "7C"]
    seats: dict[str, object] = {
        seat: {"count": 13, "exposures": [], "declared_dead": False,
               "discards": [kinds[(i + k) % len(kinds)] for i in range(discards)]}
        for k, seat in enumerate("ESWN")
    }
    seats["W"] = {**seats["W"],  # type: ignore[dict-item]
                  "exposures": [["5B", "J", "5B"], ["F", "F", "J", "F"]]}
    return {"ruleset": "american", "seats": seats}


def test_an_american_table_lays_25_discards_a_seat_clear_of_the_others_and_the_dice() -> None:
    """American C-5 play leaves up to 25 discards a seat (152 tiles less the deal): rows of
    seven, four deep, on the seat's own side, overlapping no other tile and not the tray."""
    g = TableGeometry()
    layout = table_layout(_american_view(25), dice=(3, 4), geometry=g, set_size=152)
    assert not [t for t in layout.tiles if t.label == "F"]  # drawn with the set's pictures
    assert {t.label for t in layout.tiles} >= {"F1", "F2", "J", "5B"}
    boxes = []
    for t in layout.tiles:
        w, h = (g.tile_w_mm, g.tile_h_mm) if t.angle % 180 == 0 else (g.tile_h_mm, g.tile_w_mm)
        boxes.append((t.x - w / 2, t.y - h / 2, t.x + w / 2, t.y + h / 2))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    tray = next(z for z in g.zones if z.name == "dice")
    discards = [t for t in layout.tiles if abs(t.x - 450) < 280 and abs(t.y - 450) < 280]
    assert len(discards) == 100
    for t in discards:
        assert not (tray.x0 - 11 < t.x < tray.x1 + 11 and tray.y0 - 15 < t.y < tray.y1 + 15)
    assert Counter(_side(t.x, t.y) for t in discards) == dict.fromkeys("ESWN", 25)
    # The exposure's Joker keeps its place: an exchange puts the natural where it lay.
    w_rack = sorted((t for t in layout.tiles if t.y < 60), key=lambda t: -t.x)
    assert [t.label for t in w_rack[:3]] == ["5B", "J", "5B"]


def test_the_camera_reads_an_american_table_four_rows_deep() -> None:
    """Rendered and scanned: the discards of the deepest rows are found on their seats'
    sides, and each is reported as a discard of that seat's."""
    from vision.calibration import calibrate
    from vision.identify import DEFAULT_MODEL_DIR, Recogniser
    from vision.observe import TableWatcher
    from vision.scan import Scanner
    from vision.synth.render import CameraPose, Style, render

    rng = np.random.default_rng(8)
    geometry = TableGeometry()
    layout = table_layout(_american_view(25), geometry=geometry, set_size=152)
    frame = render(
        layout, Style.random(rng, "kde-traditional"), rng, geometry, CameraPose.overhead(rng)
    ).image
    scan = Scanner(calibrate(frame), Recogniser.load(DEFAULT_MODEL_DIR)).scan(frame)
    sides = Counter(_side(t.x, t.y) for t in scan.tiles if t.zone == "discards")
    assert sides == dict.fromkeys("ESWN", 25)
    # Held still, the watcher (152 tiles) reports discards and W's sets only (a tile the
    # recogniser abstains on is not reported: its accuracy is measured in vision's tests).
    watcher = TableWatcher(stable_frames=3, set_size=152)
    seen = [o for _ in range(3) for o in watcher.update(scan)]
    assert {o.kind for o in seen} <= {ObservationKind.DISCARD, ObservationKind.EXPOSURE}
    by_seat = Counter(o.seat for o in seen if o.kind is ObservationKind.DISCARD)
    assert set(by_seat) == set("ESWN") and max(by_seat.values()) <= 25
    assert all(o.seat == "W" for o in seen if o.kind is ObservationKind.EXPOSURE)


def test_the_camera_counts_charleston_passes_laid_face_down() -> None:
    """Rendered: E and N lay their passes face down before them (controller.scene.lay_pass);
    the real scanner finds the backs in the discard area and the watcher, told who owes a
    pass, reports each seat's pass of three; S, which passed already, is not asked about."""
    from controller.scene import lay_pass
    from vision.calibration import calibrate
    from vision.identify import DEFAULT_MODEL_DIR, Recogniser
    from vision.labels import BACK
    from vision.observe import TableWatcher
    from vision.scan import Scanner
    from vision.synth.layout import Layout
    from vision.synth.render import CameraPose, Style, render

    geometry = TableGeometry()
    layout = Layout(tiles=[], dice=[])
    for seat in ("E", "N", "S"):
        lay_pass(layout, seat, 3, geometry)
    assert [t.label for t in layout.tiles] == [BACK] * 9
    rng = np.random.default_rng(12)
    frame = render(
        layout, Style.random(rng, "kde-traditional"), rng, geometry, CameraPose.overhead(rng)
    ).image
    scan = Scanner(calibrate(frame), Recogniser.load(DEFAULT_MODEL_DIR)).scan(frame)
    backs = [t for t in scan.tiles if t.face_down and t.zone == "discards"]
    assert Counter(_side(t.x, t.y) for t in backs) == {"E": 3, "N": 3, "S": 3}
    watcher = TableWatcher(stable_frames=3, set_size=152)
    seen = [o for _ in range(5) for o in watcher.update(scan, passing={"E", "N", "W"})]
    # Each as sure as its backs were read (the bundled prototypes here, not the set's own).
    assert sorted((o.kind, o.seat, o.count, o.confidence > 0.5) for o in seen) == [
        (ObservationKind.PASS, "E", 3, True), (ObservationKind.PASS, "N", 3, True)
    ]
