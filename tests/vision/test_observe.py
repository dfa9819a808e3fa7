"""Observations from scans: stable before reported, one report per change, held still under
a hand over the table and seen elsewhere, a fifth copy flagged, dice once per throw; and the
whole chain on rendered frames."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.calibration import calibrate
from vision.geometry import TableGeometry
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.observation import ObservationKind
from vision.observe import TableWatcher
from vision.scan import DieSeen, ObstructionSeen, Scanner, ScanResult, TileSeen
from vision.synth.layout import DiePlacement, Layout, TilePlacement
from vision.synth.render import CameraPose, Style, render


def _tile(
    token: str,
    x: float,
    y: float,
    zone: str = "discards",
    seat: str | None = None,
    conf: float = 0.9,
) -> TileSeen:
    return TileSeen(token, conf, x, y, 0.0, zone, seat, False)


def test_a_discard_is_reported_once_after_it_holds_still() -> None:
    watcher = TableWatcher(stable_frames=3)
    scan = ScanResult(tiles=[_tile("5C", 450.0, 620.0)])
    reports = [watcher.update(scan) for _ in range(6)]
    assert [len(r) for r in reports] == [0, 0, 1, 0, 0, 0]
    obs = reports[2][0]
    assert obs.kind is ObservationKind.DISCARD
    assert obs.tiles == ("5C",) and obs.seat == "E" and obs.zone == "discards"
    assert obs.confidence == 0.9


def test_a_flicker_is_not_a_discard() -> None:
    watcher = TableWatcher(stable_frames=3)
    seen = ScanResult(tiles=[_tile("5C", 450.0, 620.0)])
    empty = ScanResult()
    out = [watcher.update(s) for s in (seen, seen, empty, seen, empty, seen)]
    assert all(not r for r in out)


def test_a_hand_over_the_table_holds_still_what_is_under_it() -> None:
    watcher = TableWatcher(stable_frames=2)
    hand = ObstructionSeen(450.0, 640.0, 0.0, 70.0, 110.0)
    blocked = ScanResult(tiles=[_tile("5C", 450.0, 620.0)], obstructions=[hand])
    assert not any(watcher.update(blocked) for _ in range(4))
    clear = ScanResult(tiles=[_tile("5C", 450.0, 620.0)])
    assert [len(watcher.update(clear)) for _ in range(3)] == [0, 1, 0]


def test_a_discard_away_from_a_hand_over_the_table_is_reported_at_once() -> None:
    # West's discard lands while South reaches for the wall: the call window waits for it.
    watcher = TableWatcher(stable_frames=2)
    hand = ObstructionSeen(700.0, 450.0, 90.0, 70.0, 160.0)
    under = _tile("9D", 690.0, 460.0)
    scan = ScanResult(tiles=[under, _tile("3B", 450.0, 300.0)], obstructions=[hand])
    reports = [watcher.update(scan) for _ in range(3)]
    assert [[o.tiles for o in r] for r in reports] == [[], [("3B",)], []]
    assert reports[1][0].seat == "W"
    clear = ScanResult(tiles=[under, _tile("3B", 450.0, 300.0)])
    assert [[o.tiles for o in watcher.update(clear)] for _ in range(3)] == [[], [("9D",)], []]


def test_what_is_seen_beside_a_hand_is_not_trusted() -> None:
    watcher = TableWatcher(stable_frames=2)
    hand = ObstructionSeen(450.0, 640.0, 0.0, 70.0, 110.0)
    beside = _tile("2C", 450.0 + 35 + 30, 640.0)  # 30 mm from its side: in its shadow
    assert hand.covers(beside.x, beside.y, watcher.hidden_margin_mm)
    assert not hand.covers(beside.x, beside.y)
    blocked = ScanResult(tiles=[beside], obstructions=[hand])
    assert not any(watcher.update(blocked) for _ in range(4))


def test_no_tile_is_taken_as_gone_while_a_hand_is_over_the_table() -> None:
    # Missed far from the hand for a few frames (the hand can change how the whole table is
    # seen): still there, and not reported again once the view is clear.
    watcher = TableWatcher(stable_frames=2)
    known = _tile("5C", 300.0, 620.0)
    assert [len(watcher.update(ScanResult(tiles=[known]))) for _ in range(2)] == [0, 1]
    hand = ObstructionSeen(600.0, 300.0, 0.0, 70.0, 110.0)
    for _ in range(5):
        assert watcher.update(ScanResult(obstructions=[hand])) == []
    assert not any(watcher.update(ScanResult(tiles=[known])) for _ in range(4))
    # On a clear table a tile missed as long is gone: laid again, it is new.
    for _ in range(2):
        watcher.update(ScanResult())
    assert [len(watcher.update(ScanResult(tiles=[known]))) for _ in range(2)] == [0, 1]


def test_a_tile_read_anew_while_a_hand_is_over_the_table_is_not_a_new_tile() -> None:
    # The scans around a hand's arrival name and cut again: a pung's sideways 2C read as a
    # 3C for as long as the hand stays was reported as a set of one once it had gone.
    watcher = TableWatcher(stable_frames=2)
    pung = [_tile("2C", 212.0, 862.0, "exposed", "E"), _tile("2C", 238.0, 858.0, "exposed", "E")]
    pung.append(_tile("2C", 266.0, 862.0, "exposed", "E"))
    abstained = replace(_tile("6B", 444.0, 232.0), tile=None)
    table = [*pung, abstained]
    for _ in range(3):
        watcher.update(ScanResult(tiles=table))
    hand = ObstructionSeen(454.0, 782.0, 19.0, 270.0, 287.0)
    misread = [pung[0], replace(pung[1], tile="3C"), pung[2], _tile("2C", 445.0, 233.0)]
    assert not any(watcher.update(ScanResult(misread, obstructions=[hand])) for _ in range(6))
    assert not any(watcher.update(ScanResult(tiles=table)) for _ in range(4))


def test_a_set_laid_while_a_hand_is_over_the_table_waits_for_a_clear_view() -> None:
    watcher = TableWatcher(stable_frames=1)
    pung = [_tile("7B", 300.0 + 26 * i, 860.0, "exposed", "E") for i in range(3)]
    hand = ObstructionSeen(400.0, 790.0, 0.0, 70.0, 60.0)  # laying the fourth tile of a kong
    assert not hand.covers(pung[0].x, pung[0].y, watcher.hidden_margin_mm)
    for _ in range(3):
        assert watcher.update(ScanResult(tiles=pung, obstructions=[hand])) == []
    kong = [*pung, _tile("7B", 378.0, 860.0, "exposed", "E")]
    assert watcher.update(ScanResult(tiles=kong)) == []  # the fourth: held a frame
    (out,) = watcher.update(ScanResult(tiles=kong))
    assert out.kind is ObservationKind.EXPOSURE and out.tiles == ("7B",) * 4


def test_a_watcher_started_on_a_table_in_play_reports_only_what_changes() -> None:
    # The service back after a power cut: its record holds the hand so far, and the camera's
    # first view of the table is of tiles already known (one of them not named yet).
    unnamed = replace(_tile("S1", 300.0, 300.0), tile=None)
    pung = [_tile("7B", 300.0 + 26 * i, 860.0, "exposed", "E") for i in range(3)]
    table = [_tile("5C", 450.0, 620.0), unnamed, *pung]
    fresh = TableWatcher(stable_frames=2)
    assert sum(len(fresh.update(ScanResult(tiles=table))) for _ in range(4)) == 2  # a watcher
    watcher = TableWatcher(stable_frames=2, known_at_start=True)  # of a new table sees both
    assert not any(watcher.update(ScanResult(tiles=table)) for _ in range(4))
    assert watcher.visible_counts() == {"5C": 1, "7B": 3}  # known, so counted for fifth copies
    # The season is named at last: known, not a discard landing now.
    named = [*table[:1], _tile("S1", 301.0, 302.0), *pung]
    assert not any(watcher.update(ScanResult(tiles=named)) for _ in range(4))
    # A discard where nothing lay is new.
    landed = [*named, _tile("9D", 600.0, 450.0)]
    assert [[o.tiles for o in watcher.update(ScanResult(tiles=landed))] for _ in range(3)] == [
        [],
        [("9D",)],
        [],
    ]
    # The 5C taken (claimed) and its place seen empty: a tile laid there later is new.
    taken = landed[1:]
    for _ in range(2):
        assert watcher.update(ScanResult(tiles=taken)) == []
    again = [*taken, _tile("2D", 451.0, 619.0)]
    assert [[o.tiles for o in watcher.update(ScanResult(tiles=again))] for _ in range(2)] == [
        [],
        [("2D",)],
    ]


def test_a_watcher_started_under_a_hand_waits_for_its_first_clear_view() -> None:
    watcher = TableWatcher(stable_frames=2, known_at_start=True)
    hand = ObstructionSeen(450.0, 640.0, 0.0, 70.0, 110.0)
    away = _tile("3B", 450.0, 300.0)
    under = _tile("5C", 450.0, 620.0)
    blocked = ScanResult(tiles=[away, under], obstructions=[hand])
    assert not any(watcher.update(blocked) for _ in range(4))  # not known to be new either
    assert not any(watcher.update(ScanResult(tiles=[away, under])) for _ in range(4))
    assert watcher.visible_counts() == {"3B": 1, "5C": 1}


def test_a_discard_never_named_is_asked_for_once_and_not_reported_again_when_named() -> None:
    watcher = TableWatcher(stable_frames=3, discard_patience=5)
    unread = replace(_tile("6B", 450.0, 300.0), tile=None)  # West's side
    on_rack = replace(_tile("2C", 300.0, 860.0, "exposed", "E"), tile=None)
    reports = [watcher.update(ScanResult(tiles=[unread, on_rack])) for _ in range(8)]
    assert [len(r) for r in reports] == [0, 0, 0, 0, 1, 0, 0, 0]  # the rack's waits for a set
    (asked,) = reports[4]
    assert asked.kind is ObservationKind.DISCARD and asked.seat == "W" and asked.tiles == ()
    assert asked.confidence == 0.0 and "not read" in watcher.flags[-1]
    named = _tile("6B", 451.0, 301.0)
    assert not any(watcher.update(ScanResult(tiles=[named, on_rack])) for _ in range(5))
    # Taken (claimed), its place seen empty: a tile laid there is a new discard.
    for _ in range(3):
        watcher.update(ScanResult(tiles=[on_rack]))
    out = [watcher.update(ScanResult(tiles=[_tile("7C", 450.0, 300.0), on_rack])) for _ in "123"]
    assert [[o.tiles for o in r] for r in out] == [[], [], [("7C",)]]


def test_a_tile_never_named_on_a_table_in_play_from_the_start_is_not_asked_for() -> None:
    # Known since the first view (the table's record has it), however long it goes unnamed.
    unread = replace(_tile("6B", 450.0, 300.0), tile=None)
    watcher = TableWatcher(stable_frames=3, discard_patience=5, known_at_start=True)
    assert not any(watcher.update(ScanResult(tiles=[unread])) for _ in range(12))
    fresh = TableWatcher(stable_frames=3, discard_patience=5)  # a new table: it is asked for
    assert sum(len(fresh.update(ScanResult(tiles=[unread]))) for _ in range(12)) == 1


def test_a_discard_read_face_down_is_asked_for_but_for_american_passes() -> None:
    # A plain white dragon read as a tile's back (bench_watch.py, gnome-smooth): no game but
    # the American lays a tile face down in the discard area, whose Charleston passes do.
    back = TileSeen(None, 1.0, 360.0, 657.0, 0.0, "discards", None, False, face_down=True)
    for set_size, asked in ((144, [("E", ())]), (152, [])):
        watcher = TableWatcher(stable_frames=3, discard_patience=5, set_size=set_size)
        out = [o for _ in range(12) for o in watcher.update(ScanResult(tiles=[back]))]
        assert [(o.seat, o.tiles) for o in out] == asked
    known = TableWatcher(stable_frames=3, discard_patience=5, known_at_start=True)
    assert not any(known.update(ScanResult(tiles=[back])) for _ in range(12))


def test_a_discard_named_after_a_few_unsure_frames_is_reported_by_its_name() -> None:
    watcher = TableWatcher(stable_frames=3, discard_patience=5)
    unread = replace(_tile("6B", 450.0, 300.0), tile=None)
    named = _tile("6B", 450.0, 300.0)
    scans = [unread] * 4 + [named] * 4
    out = [watcher.update(ScanResult(tiles=[t])) for t in scans]
    assert [[o.tiles for o in r] for r in out] == [[]] * 6 + [[("6B",)], []]
    # Under a hand nothing is counted, however long it stays.
    hand = ObstructionSeen(450.0, 640.0, 0.0, 70.0, 110.0)
    under = replace(_tile("5C", 450.0, 620.0), tile=None)
    for _ in range(8):
        assert watcher.update(ScanResult(tiles=[named, under], obstructions=[hand])) == []


def test_an_obstructions_rectangle_turns_with_it() -> None:
    along_x = ObstructionSeen(500.0, 500.0, 90.0, 40.0, 200.0)  # long side along x
    assert along_x.covers(590.0, 500.0) and not along_x.covers(500.0, 590.0)
    assert along_x.covers(500.0, 525.0, margin_mm=10) and not along_x.covers(500.0, 535.0, 10)
    slanted = ObstructionSeen(0.0, 0.0, 45.0, 20.0, 100.0)  # long side towards -x, +y
    assert slanted.covers(-30.0, 30.0) and not slanted.covers(30.0, 30.0)
    half = (10 + 50) / 2**0.5  # a corner's reach along each axis
    assert np.allclose(along_x.bounds(), (400.0, 480.0, 600.0, 520.0))
    assert np.allclose(slanted.bounds(), (-half, -half, half, half))
    assert slanted.to_json() == {
        "x_mm": 0.0,
        "y_mm": 0.0,
        "w_mm": 20.0,
        "h_mm": 100.0,
        "angle": 45.0,
    }


def test_an_exposure_with_its_claimed_tile_and_a_flower() -> None:
    watcher = TableWatcher(stable_frames=1)
    scan = ScanResult(
        tiles=[
            _tile("7B", 300.0, 860.0, "exposed", "E"),
            _tile("7B", 326.0, 864.0, "exposed", "E"),
            _tile("7B", 352.0, 860.0, "exposed", "E"),
            _tile("F2", 600.0, 860.0, "exposed", "E"),
        ]
    )
    assert watcher.update(scan) == []  # held one frame: the set may still be growing
    out = watcher.update(scan)
    kinds = sorted((o.kind, o.tiles) for o in out)
    assert kinds == [
        (ObservationKind.EXPOSURE, ("7B", "7B", "7B")),
        (ObservationKind.FLOWER, ("F2",)),
    ]
    assert all(o.seat == "E" and o.zone == "rack-E" for o in out)


def test_a_fifth_copy_is_flagged_not_accepted() -> None:
    watcher = TableWatcher(stable_frames=1)
    tiles = [_tile("5C", 300.0 + 30 * i, 620.0) for i in range(4)]
    assert all(o.confidence > 0 for o in watcher.update(ScanResult(tiles=tiles)))
    fifth = watcher.update(ScanResult(tiles=[*tiles, _tile("5C", 600.0, 300.0)]))
    assert len(fifth) == 1 and fifth[0].confidence == 0.0
    assert watcher.flags and "5C" in watcher.flags[0]


def test_dice_once_per_throw() -> None:
    watcher = TableWatcher(stable_frames=2)
    dice = ScanResult(dice=[DieSeen(3, 0.95, 440, 450, "dice"), DieSeen(5, 0.95, 470, 450, "dice")])
    out = [watcher.update(dice) for _ in range(4)]
    assert [len(o) for o in out] == [0, 1, 0, 0]
    assert out[1][0].kind is ObservationKind.DICE and out[1][0].dice == (3, 5)
    watcher.update(ScanResult())  # picked up
    again = [watcher.update(dice) for _ in range(2)]
    assert [len(o) for o in again] == [0, 1]


def test_rendered_frames_through_the_real_pipeline() -> None:
    """The simulator's path: rendered camera -> calibration -> scan -> watcher."""
    rng = np.random.default_rng(12)
    geometry = TableGeometry()
    style = Style.random(rng, "kde-classic")
    pose = CameraPose.overhead(rng)
    before = Layout(
        tiles=[TilePlacement("2D", 420.0, 640.0)],
        dice=[DiePlacement(2, 430, 450), DiePlacement(6, 475, 455)],
    )
    after = Layout(tiles=[*before.tiles, TilePlacement("GD", 446.0, 640.0)], dice=before.dice)
    first = render(before, style, rng, geometry, pose)
    scanner = Scanner(calibrate(first.image, geometry), Recogniser.load(DEFAULT_MODEL_DIR))
    watcher = TableWatcher(stable_frames=2)
    reports = []
    for layout in (before, before, after, after, after):
        frame = render(layout, style, rng, geometry, pose).image
        reports += watcher.update(scanner.scan(frame))
    discards = [o for o in reports if o.kind is ObservationKind.DISCARD]
    assert [o.tiles for o in discards] == [("2D",), ("GD",)]
    dice = [o for o in reports if o.kind is ObservationKind.DICE]
    assert len(dice) == 1 and dice[0].dice == (2, 6)


def test_a_joker_exchange_on_rendered_frames_through_the_real_pipeline() -> None:
    """South's pung of 5B with a Joker, then a 5B in the Joker's place (American J-4)."""
    from controller.scene import table_layout

    rng = np.random.default_rng(12)
    geometry = TableGeometry()
    style = Style.random(rng, "kde-classic")
    pose = CameraPose.overhead(rng)

    def pung(*tiles: str) -> Layout:
        view = {"seats": {"S": {"melds": [{"tiles": list(tiles)}]}}}
        layout: Layout = table_layout(view, geometry=geometry)
        return layout

    before, after = pung("5B", "J", "5B"), pung("5B", "5B", "5B")
    first = render(before, style, rng, geometry, pose)
    scanner = Scanner(calibrate(first.image, geometry), Recogniser.load(DEFAULT_MODEL_DIR))
    watcher = TableWatcher(stable_frames=2, set_size=152)
    reports = []
    for layout in (before,) * 3 + (after,) * 4:
        reports += watcher.update(scanner.scan(render(layout, style, rng, geometry, pose).image))
    assert [(o.kind, o.seat, o.tiles, o.zone) for o in reports] == [
        (ObservationKind.EXPOSURE, "S", ("5B", "J", "5B"), "rack-S"),
        (ObservationKind.JOKER_EXCHANGE, None, ("5B",), "rack-S"),
    ]


def test_american_sets_count_flowers_as_interchangeable() -> None:
    watcher = TableWatcher(stable_frames=1, set_size=152)
    flowers = [_tile(t, 300.0 + 30 * i, 620.0) for i, t in enumerate(["F1", "F1", "S3", "F2"])]
    out = watcher.update(ScanResult(tiles=flowers))
    assert [o.tiles for o in out] == [("F",)] * 4
    assert all(o.confidence > 0 for o in out) and not watcher.flags


def test_a_natural_put_in_for_an_exposures_joker_is_an_exchange() -> None:
    # American J-4: West's pung of 5B with a Joker; the player on turn puts a 5B in for it
    # (his hand over the rack meanwhile) and takes the Joker.
    watcher = TableWatcher(stable_frames=2, set_size=152)
    xs = (120.0, 146.0, 172.0)  # along West's rack strip, at the table's top edge
    pung = [_tile(t, x, 40.0, "exposed", "W") for t, x in zip(("5B", "J", "5B"), xs, strict=True)]
    reports = [watcher.update(ScanResult(tiles=pung)) for _ in range(3)]
    assert [[(o.kind, o.tiles) for o in r] for r in reports] == [
        [],
        [],
        [(ObservationKind.EXPOSURE, ("5B", "J", "5B"))],
    ]
    hand = ObstructionSeen(146.0, 90.0, 0.0, 70.0, 110.0)
    for _ in range(3):
        assert watcher.update(ScanResult(tiles=pung, obstructions=[hand])) == []
    swapped = [pung[0], _tile("5B", 147.0, 41.0, "exposed", "W"), pung[2]]
    out = [watcher.update(ScanResult(tiles=swapped)) for _ in range(4)]
    assert [len(r) for r in out] == [0, 1, 0, 0]
    (exchange,) = out[1]
    assert exchange.kind is ObservationKind.JOKER_EXCHANGE and exchange.tiles == ("5B",)
    assert exchange.seat is None and exchange.zone == "rack-W"  # the table knows whose turn
    # A natural laid beside the pung, not where a Joker was, is a set being laid.
    beside = [*swapped, _tile("5B", 198.0, 40.0, "exposed", "W")]
    out = [watcher.update(ScanResult(tiles=beside)) for _ in range(3)]
    assert [(o.kind, o.tiles) for r in out for o in r] == [(ObservationKind.EXPOSURE, ("5B",))]


def test_a_known_tile_the_recogniser_is_briefly_unsure_of_is_not_reported_again() -> None:
    """A stable discard that abstains for a few frames (lighting, a reflection) has not left
    the table: when it is named again it is the same tile, not a new discard."""
    watcher = TableWatcher(stable_frames=3)
    known = ScanResult(tiles=[_tile("RD", 450.0, 620.0)])
    unsure = ScanResult(tiles=[TileSeen(None, 0.6, 451.0, 620.5, 0.0, "discards", None, False)])
    reports = [watcher.update(s) for s in [known] * 3 + [unsure] * 5 + [known] * 4]
    assert sum(len(r) for r in reports) == 1
    # A tile that really goes (nothing at its place) and comes back is a new sighting.
    gone = [watcher.update(ScanResult(tiles=[])) for _ in range(3)]
    back = [watcher.update(known) for _ in range(3)]
    assert sum(len(r) for r in gone) == 0 and sum(len(r) for r in back) == 1


def test_a_new_tile_named_in_three_frames_with_unsure_ones_between_is_reported_once() -> None:
    watcher = TableWatcher(stable_frames=3)
    named = ScanResult(tiles=[_tile("RD", 450.0, 620.0)])
    unsure = ScanResult(tiles=[TileSeen(None, 0.6, 450.5, 620.0, 0.0, "discards", None, False)])
    frames = [named, unsure, named, unsure, unsure, named, named, unsure, named]
    reports = [watcher.update(s) for s in frames]
    assert [len(r) for r in reports] == [0, 0, 0, 0, 0, 1, 0, 0, 0]


def test_an_exposure_is_reported_in_its_owners_reading_order() -> None:
    """South sits on the right edge facing left: its right hand points up the image (-y), so
    2D 3D 4D laid left to right from South's seat lie at decreasing y."""
    watcher = TableWatcher(stable_frames=3)
    tiles = [
        _tile(t, 860.0, y, "exposed", "S") for t, y in (("2D", 500.0), ("3D", 477.0), ("4D", 454.0))
    ]
    reports = [watcher.update(ScanResult(tiles=tiles)) for _ in range(5)]
    exposures = [o for r in reports for o in r if o.kind is ObservationKind.EXPOSURE]
    assert [o.tiles for o in exposures] == [("2D", "3D", "4D")]


def _row(tokens: list[str], seat_y: float = 824.0, x0: float = 300.0) -> list[TileSeen]:
    """Tiles touching in a row on East's rack strip, the last one turned sideways."""
    tiles = [_tile(t, x0 + 22.0 * i, seat_y, "exposed", "E") for i, t in enumerate(tokens)]
    last = tiles[-1]
    tiles[-1] = TileSeen(last.tile, 0.9, last.x + 8.0, seat_y, 90.0, "exposed", "E", True)
    return tiles


def test_a_hand_shown_by_the_seat_showing_it_names_its_tile_drawn_last() -> None:
    """Two sets laid before: the hand shown holds 8 tiles, short of the ten that say 'hand'
    on their own; the table's word (East is showing a hand of 8) makes them one. The
    sideways tile is the one Law 80 stands on end."""
    tiles = _row(["1C", "2C", "3C", "7D", "7D", "WD", "WD", "3C"])
    watcher = TableWatcher(stable_frames=1)
    assert watcher.update(ScanResult(tiles=tiles), showing={"E": 8}) == []
    (hand,) = watcher.update(ScanResult(tiles=tiles), showing={"E": 8})
    assert hand.kind is ObservationKind.HAND_SHOWN and hand.seat == "E"
    assert sorted(hand.tiles) == sorted(["1C", "2C", "3C", "7D", "7D", "WD", "WD", "3C"])
    assert hand.winning == "3C" and hand.zone == "rack-E"
    # The same tiles laid by a seat the table says is not showing: not a hand.
    other = TableWatcher(stable_frames=1)
    other.update(ScanResult(tiles=tiles), showing={"S": 8})
    later = other.update(ScanResult(tiles=tiles))
    assert later and all(o.kind is not ObservationKind.HAND_SHOWN for o in later)


def test_a_flower_grounded_beside_a_hand_shown_is_not_part_of_it() -> None:
    """Four sets laid before: the hand shown is a pair; a flower laid with it is grounded."""
    watcher = TableWatcher(stable_frames=1)
    pair = [
        _tile("WD", 300.0, 824.0, "exposed", "E"),
        _tile("WD", 322.0, 824.0, "exposed", "E"),
        _tile("F2", 600.0, 824.0, "exposed", "E"),
    ]
    watcher.update(ScanResult(tiles=pair), showing={"E": 2})
    flower, hand = watcher.update(ScanResult(tiles=pair), showing={"E": 2})
    assert (flower.kind, flower.tiles) == (ObservationKind.FLOWER, ("F2",))
    assert hand.kind is ObservationKind.HAND_SHOWN and hand.tiles == ("WD", "WD")
    assert hand.winning == ""


def test_a_hand_tile_named_late_is_waited_for_while_the_seat_shows() -> None:
    """The recogniser abstains on one tile of an 8-tile hand for a few frames: the seven it
    named are held until the eighth joins them, and reported as one hand."""
    tiles = _row(["1C", "2C", "3C", "7D", "7D", "WD", "WD", "3C"])
    unsure = TileSeen(None, 0.3, tiles[3].x, tiles[3].y, 0.0, "exposed", "E", False)
    watcher = TableWatcher(stable_frames=1)
    early = ScanResult(tiles=[*tiles[:3], unsure, *tiles[4:]])
    assert [o for _ in range(4) for o in watcher.update(early, showing={"E": 8})] == []
    whole = ScanResult(tiles=tiles)
    out = [o for _ in range(2) for o in watcher.update(whole, showing={"E": 8})]
    assert [(o.kind, len(o.tiles), o.winning) for o in out] == [
        (ObservationKind.HAND_SHOWN, 8, "3C")
    ]


def test_a_part_hand_is_dropped_when_the_table_moves_on() -> None:
    tiles = _row(["1C", "2C", "3C", "7D", "7D", "WD", "WD", "3C"])[:6]
    watcher = TableWatcher(stable_frames=1)
    for _ in range(3):
        assert watcher.update(ScanResult(tiles=tiles), showing={"E": 8}) == []
    # The referee entered the hand; the next hand's table has nobody showing.
    assert watcher.update(ScanResult(tiles=tiles)) == []
    assert watcher.update(ScanResult(tiles=tiles)) == []


def test_a_hand_never_read_whole_goes_to_the_table_unsure_after_the_patience() -> None:
    """A tile stood on end (Law 80) is never named: 7 of 8 tiles are read. After
    ``hand_patience`` frames they are reported with confidence 0 (the table asks), once."""
    tiles = _row(["1C", "2C", "3C", "7D", "7D", "WD", "WD", "3C"])[:7]
    watcher = TableWatcher(stable_frames=1, hand_patience=5)
    out = [watcher.update(ScanResult(tiles=tiles), showing={"E": 8}) for _ in range(12)]
    reported = [(i, o) for i, frame in enumerate(out) for o in frame]
    assert len(reported) == 1
    i, hand = reported[0]
    assert i == 5  # stable in frame 0; frames 1-5 wait for the eighth, the fifth gives up
    assert hand.kind is ObservationKind.HAND_SHOWN and len(hand.tiles) == 7
    assert hand.confidence == 0.0 and "7 tiles were read" in watcher.flags[-1]


def _back(x: float, y: float) -> TileSeen:
    return TileSeen(None, 1.0, x, y, 0.0, "discards", None, False, face_down=True)


def _pass_of(seat_y: float, n: int) -> list[TileSeen]:
    """``n`` backs laid side by side in a row of the discard area at ``seat_y``."""
    return [_back(425.0 + 25.0 * i, seat_y) for i in range(n)]


def test_a_charleston_pass_is_counted_once_when_its_backs_have_settled() -> None:
    """American CH-2: E lays three backs in its discard area one after another; the pass is
    reported once, when they have all held still, with count 3; then S's."""
    watcher = TableWatcher(stable_frames=2, set_size=152)
    e_pass = _pass_of(640.0, 3)
    reports = []
    for laid in (1, 1, 2, 2, 3, 3, 3, 3, 3):  # a tile laid every other frame
        reports.append(watcher.update(ScanResult(tiles=e_pass[:laid]), passing={"E", "S"}))
    passes = [o for r in reports for o in r]
    assert [(o.kind, o.seat, o.count, o.confidence) for o in passes] == [
        (ObservationKind.PASS, "E", 3, 1.0)
    ]
    assert [bool(r) for r in reports].index(True) == 6  # the frame after the third settled
    s_pass = [replace(t, x=t.y, y=t.x) for t in _pass_of(640.0, 3)]  # S's side: x > 450
    both = ScanResult(tiles=e_pass + s_pass)
    later = [o for _ in range(4) for o in watcher.update(both, passing={"S"})]
    assert [(o.seat, o.count) for o in later] == [("S", 3)]


def test_a_pass_miscounted_is_asked_and_backs_are_nothing_without_a_charleston() -> None:
    # Two backs seen (one hidden or two touching taken for one): not a redeal on the
    # camera's word (CH-7), the table asks.
    watcher = TableWatcher(stable_frames=2, set_size=152)
    (short,) = [o for _ in range(4)
                for o in watcher.update(ScanResult(tiles=_pass_of(640.0, 2)), passing={"E"})]
    assert (short.kind, short.count, short.confidence) == (ObservationKind.PASS, 2, 0.0)
    assert "2 tiles counted" in watcher.flags[-1]
    # The same backs while nobody owes a pass (play, or another family): nothing.
    quiet = TableWatcher(stable_frames=2, set_size=152)
    assert not [o for _ in range(5)
                for o in quiet.update(ScanResult(tiles=_pass_of(640.0, 3)), passing=set())]
    # A pass is not counted while a hand is over the table (it may still be laying it).
    hand = ObstructionSeen(200.0, 200.0, 0.0, 70.0, 110.0)
    busy = TableWatcher(stable_frames=2, set_size=152)
    blocked = ScanResult(tiles=_pass_of(640.0, 3), obstructions=[hand])
    assert not [o for _ in range(4) for o in busy.update(blocked, passing={"E"})]
    assert [o.count for _ in range(2)
            for o in busy.update(ScanResult(tiles=_pass_of(640.0, 3)), passing={"E"})] == [3]
