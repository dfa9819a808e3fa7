"""Tile finding on rendered tables: every tile found once, at the right place, in the right
zone, the claimed tiles turned sideways, and touching tiles separated."""

from __future__ import annotations

import numpy as np
import pytest

from controller.scene import table_layout
from vision.calibration import calibrate
from vision.finder import find
from vision.geometry import TableGeometry
from vision.scan import ObstructionSeen
from vision.synth.layout import Layout, TilePlacement
from vision.synth.render import Rendered, Style, render

from .conftest import hand_laid_out, jade_table, rendered_table


def _match(table: Rendered) -> tuple[int, int, list[float], list[tuple[TilePlacement, object]]]:
    cal = calibrate(table.image, table.geometry)
    found = [f for f in find(table.image, cal) if f.kind == "tile"]
    truth = np.array([[t.x, t.y] for t in table.layout.tiles])
    used: set[int] = set()
    errors, pairs, false = [], [], 0
    for f in found:
        d = np.linalg.norm(truth - [f.x, f.y], axis=1)
        k = int(d.argmin())
        if d[k] < 8 and k not in used:
            used.add(k)
            errors.append(float(d[k]))
            pairs.append((table.layout.tiles[k], f))
        else:
            false += 1
    return len(used), false, errors, pairs


def test_tiles_found_once_and_placed_within_millimetres(tables: list[Rendered]) -> None:
    total = matched = false = 0
    errors: list[float] = []
    for table in tables:
        m, f, e, _ = _match(table)
        total += len(table.layout.tiles)
        matched += m
        false += f
        errors += e
    assert matched / total >= 0.95
    assert false <= 0.03 * total
    assert float(np.median(errors)) < 2.5


def test_zones_and_sideways_claimed_tiles(tables: list[Rendered]) -> None:
    geometry = tables[0].geometry
    pairs_all = []
    for table in tables:
        pairs_all += _match(table)[3]
    right_zone = right_turn = sideways = 0
    for truth, found in pairs_all:
        right_zone += geometry.zone_at(found.x, found.y) == geometry.zone_at(truth.x, truth.y)  # type: ignore[attr-defined]
        # Orientation of the long side, folded to [0, 180): a quarter turn is sideways.
        want = (-truth.angle) % 180.0
        diff = abs(want - found.angle) % 180.0  # type: ignore[attr-defined]
        right_turn += min(diff, 180 - diff) < 10
        sideways += abs((truth.angle % 180) - 90) < 10 and min(diff, 180 - diff) < 10
    assert right_zone / len(pairs_all) >= 0.98
    assert right_turn / len(pairs_all) >= 0.95
    assert sideways >= 3  # claimed tiles in exposures, and South/North seats' tiles


def test_a_row_of_touching_tiles_is_cut_at_the_seams() -> None:
    rng = np.random.default_rng(3)
    geometry = TableGeometry()
    row = [
        TilePlacement(label, 300 + i * geometry.tile_w_mm, 450)
        for i, label in enumerate(["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D"])
    ]
    # A claimed tile lying sideways, touching an upright one.
    row.append(TilePlacement("RD", 300 + 8 * 22 - 11 + 15, 450 + 4, 90))
    table = render(Layout(tiles=row), Style.random(rng, "kde-classic"), rng, geometry)
    cal = calibrate(table.image, geometry)
    found = sorted((f for f in find(table.image, cal) if f.kind == "tile"), key=lambda f: f.x)
    assert len(found) == 9
    for truth, f in zip(row, found, strict=True):
        assert abs(f.x - truth.x) < 4 and abs(f.y - truth.y) < 4
    assert abs(found[-1].angle - 90) < 10


def test_tiles_laid_a_little_apart_are_cut_upright_where_they_lie() -> None:
    # Discards laid by hand lie 1-4 mm apart; blur and shadow join them into one blob. Cut
    # as if they touched, the cuts drifted off the seams until a piece took the drift as a
    # sideways tile, and that tile was cut out turned and misread.
    geometry = TableGeometry()
    for seed, art in ((5, "xmj-real"), (6, "kde-jade"), (7, "kde-traditional")):
        rng = np.random.default_rng(seed)
        gaps = rng.uniform(1.5, 4.0, size=5)
        xs = 300 + np.concatenate([[0.0], np.cumsum(geometry.tile_w_mm + gaps)])
        labels = ["8D", "4B", "S1", "EW", "9B", "5C"]
        row = [TilePlacement(lab, float(x), 450, 0) for lab, x in zip(labels, xs, strict=True)]
        table = render(Layout(tiles=row), Style.random(rng, art), rng, geometry)
        cal = calibrate(table.image, geometry)
        found = sorted((f for f in find(table.image, cal) if f.kind == "tile"), key=lambda f: f.x)
        assert len(found) == len(row), art
        for truth, f in zip(row, found, strict=True):
            assert abs(f.x - truth.x) < 3 and abs(f.y - truth.y) < 3, (art, truth.label)
            assert min(f.angle, 180 - f.angle) < 10, (art, truth.label, f.angle)


def test_discards_two_rows_deep_are_tiles_with_the_walls_on_the_table() -> None:
    # The walls' backs were taken for the set's body colour: no discard row showed it, and
    # each seat's discards, two rows deep, were reported as a hand over the table.
    table = rendered_table(2001, "kde-default")
    cal = calibrate(table.image, table.geometry)
    found = find(table.image, cal)
    assert not [f for f in found if f.kind == "obstruction"]
    tiles = np.array([[f.x, f.y] for f in found if f.kind == "tile"])
    discards = [t for t in table.layout.tiles if t.label != "BACK"]
    missed = [t for t in discards if np.linalg.norm(tiles - [t.x, t.y], axis=1).min() >= 8]
    assert len(missed) <= 0.02 * len(discards)


@pytest.mark.parametrize(
    ("seed", "art", "apart"),
    [
        # Seams hardly show; charged alike, every cut made fewer, longer pieces cheaper.
        (0, "symbola", 0.0),
        # Where seams do not show at all, the cuts followed the faces' engravings, half a
        # tile off: cut on an even pitch.
        (18, "kde-default", 0.0),
        # Scanned tiles' columns of dots and bamboo looked darker than the seams, judged by
        # each line's brightest quarter: judged by its brightest twentieth, they do not.
        (14, "xmj-real", 0.0),
        # The rack strip near the tiles' colour leaves the row's edges ragged: turned by
        # them 1.5 degrees, the row measured too deep to be a row, and was an obstruction.
        (7, "kde-default", 0.0),
        # Laid a little apart: with the even pitch's credit earned per cut, 15 pieces on a
        # shorter pitch earned more than 14 on the seams.
        (2331, "kde-traditional", 1.5),
        # Jade bodies on a red cloth show only by brightness; on a table bare but for the
        # hand, the printed markers' black and white outweighed them in choosing so.
        (3002, "kde-jade", 0.0),
    ],
)
def test_a_hand_laid_out_is_fourteen_upright_tiles(seed: int, art: str, apart: float) -> None:
    table = hand_laid_out(seed, art, apart)
    cal = calibrate(table.image, table.geometry)
    found = [f for f in find(table.image, cal) if f.kind == "tile"]
    assert len(found) == 14
    for truth in table.layout.tiles:
        f = min(found, key=lambda f: np.hypot(f.x - truth.x, f.y - truth.y))
        assert np.hypot(f.x - truth.x, f.y - truth.y) < 4, truth.label
        assert abs(((f.angle - truth.angle) + 90) % 180 - 90) < 10, truth.label


def test_a_hand_over_the_table_is_an_obstruction_not_tiles() -> None:
    # The second: a hand over jade tiles near a skin's tone, two rows deep, was cut into
    # rows of tile-sized pieces once such blobs were cut where rows can be; the body colour
    # its pieces do not show keeps it an obstruction.
    for seed, art in ((77, "symbola"), (1009, "kde-jade")):
        table = rendered_table(seed, art, hand=1.0)
        assert table.layout.hand is not None
        cal = calibrate(table.image, table.geometry)
        found = find(table.image, cal)
        hx, hy = table.layout.hand
        # Its rectangle holds the fingers, the palm and the forearm over the rack, and none
        # of the tiles across the table (what the watcher holds still is only under it).
        (hand,) = [ObstructionSeen.of(f) for f in found if f.kind == "obstruction"]
        assert all(hand.covers(hx, y) for y in (hy - 15, hy + 45, 880))
        assert not any(hand.covers(t.x, t.y, 40) for t in table.layout.tiles if t.y < 450)
        truth = np.array([[t.x, t.y] for t in table.layout.tiles])
        tiles = [f for f in found if f.kind == "tile"]
        assert all(np.linalg.norm(truth - [f.x, f.y], axis=1).min() < 8 for f in tiles)


def _late_discards(geometry: TableGeometry, per_seat: int) -> Layout:
    """Each seat's discards as the simulated table lays them (controller.scene: rows of six
    facing the seat, 3 mm apart in a row, 4 mm between rows): late in a hand three and four
    rows deep, rows that blur and shadow join into one blob."""
    kinds = ["1B", "5C", "9D", "EW", "RD", "3B", "7C", "2D", "GD", "6B", "4C", "8D", "NW"]
    seats = {
        seat: {"discards": [kinds[(s * 5 + k) % len(kinds)] for k in range(per_seat)]}
        for s, seat in enumerate("ESWN")
    }
    layout: Layout = table_layout({"seats": seats}, geometry=geometry)
    return layout


def test_discards_three_and_four_rows_deep_are_tiles_not_a_hand() -> None:
    """Late in a hand a seat's discard rows join into one blob three or four tiles deep: it
    is cut row by row into its tiles (their faces share the set's body colour), where it
    was once taken for a hand over the table and none of its tiles seen."""
    geometry = TableGeometry()
    # xmj-real, 16 and 13 a seat: a seat's rows were lost to a cut inside the first row, to
    # a row with no sides of its own in the compressed outline, and to the lone last discard
    # lengthened by the blob's shadow (48 and 26 tiles missed; none now). xmj-dorothys, 14
    # and 20: a short last row's lines, mostly cloth, were taken for the seam before it.
    for seed, art, per_seat in (
        (1, "kde-traditional", 18),
        (6, "kde-classic", 24),
        (9, "symbola", 18),
        (1, "xmj-real", 16),
        (1, "xmj-real", 13),
        (1, "xmj-dorothys", 14),
        (1, "xmj-dorothys", 20),
    ):
        rng = np.random.default_rng(seed)
        layout = _late_discards(geometry, per_seat)
        table = render(layout, Style.random(rng, art), rng, geometry)
        matched, false, errors, _ = _match(table)
        found = find(table.image, calibrate(table.image, geometry))
        assert not [f for f in found if f.kind == "obstruction"]
        assert matched == len(layout.tiles) and false == 0
        assert max(errors) < 4


def test_a_second_row_of_discards_started_is_tiles_not_a_hand() -> None:
    """Seven discards a seat: a row of six and the first of the next, joined into one blob.
    The row of six, cut from the lone tile, carries the blob's shadow on its outer side and
    measured 38-39 mm deep: taken for a hand over the table in 8 of 30 renders, which froze
    the camera's watcher. These three were among them."""
    from vision.synth.render import CameraPose

    geometry = TableGeometry()
    for seed in (1, 6, 11):
        style = Style.random(np.random.default_rng(seed), "kde-traditional")
        pose = CameraPose.overhead(np.random.default_rng(seed))
        layout = _late_discards(geometry, 7)
        table = render(layout, style, np.random.default_rng(seed + 1), geometry, pose)
        found = find(table.image, calibrate(table.image, geometry))
        assert not [f for f in found if f.kind == "obstruction"], seed
        matched, false, errors, _ = _match(table)
        assert matched == len(layout.tiles) == 28 and false == 0
        assert max(errors) < 5  # the shadowed row's centres, a little towards the shadow


def test_a_short_row_skewed_by_its_notches_is_one_row_not_a_hand() -> None:
    """Three discards 3 mm apart, joined by blur and shadow: the notches between them turned
    the edges' direction 6.5 degrees, the blob measured 8 mm deeper than a row, and was cut
    into two rows too shallow for tiles (bench_watch.py --laid: the scene, frame 8)."""
    from vision.synth.render import render_still

    geometry = TableGeometry()
    view = {"seats": {"E": {"discards": ["3B", "NW", "7D"]}, "N": {"discards": ["5D"]}}}
    layout = table_layout(view, geometry=geometry)
    style = Style.random(np.random.default_rng(11102), "kde-traditional")
    table = render_still(layout, style, 11602, 8, geometry)
    found = find(table.image, calibrate(table.image, geometry))
    assert not [f for f in found if f.kind == "obstruction"]
    matched, false, errors, _ = _match(table)
    assert matched == len(layout.tiles) == 4 and false == 0
    assert max(errors) < 3


def test_a_row_of_six_with_two_behind_it_skewed_by_the_short_row_is_not_a_hand() -> None:
    """A seat's eight discards, six and two behind, joined by blur and shadow: the short row
    turned the edges' direction 4 degrees, the row of six measured 10 mm deeper than it is
    and was left a hand over the table (bench_watch.py --laid: the scene, frame 29). Cut
    along the blob's smallest rectangle it is two rows of tiles."""
    from vision.labels import CHINESE_LABELS
    from vision.synth.render import render_still

    geometry = TableGeometry()
    style = Style.random(np.random.default_rng(11102), "kde-traditional")

    def laid(n: int) -> Rendered:  # the first n discards, in turn
        discards: dict[str, list[str]] = {s: [] for s in "ESWN"}
        for k in range(n):
            discards["ESWN"[k % 4]].append(CHINESE_LABELS[(k * 7 + 2) % 34])
        view = {"seats": {s: {"discards": d} for s, d in discards.items()}}
        return render_still(table_layout(view, geometry=geometry), style, 11602, n - 1, geometry)

    table = laid(30)
    layout = table.layout
    # Calibrated, as there, from the last frame of the 48 discards: calibrated from this
    # frame, the rectified blob lies a little differently and was cut right before the fix.
    found = find(table.image, calibrate(laid(48).image, geometry))
    assert not [f for f in found if f.kind == "obstruction"]
    matched, false, errors, _ = _match(table)
    assert matched == len(layout.tiles) == 30 and false == 0
    assert float(np.median(errors)) < 2.5


def test_tiles_near_the_cloths_colour_are_found_by_their_brightness() -> None:
    """Dark red-brown jade tiles on a dark red cloth, the light falling off across the table:
    by colour alone only their engravings stood out (29, 1 and 29 of 83, 79 and 84 tiles
    found); brightness against the cloth around them finds them all."""
    for seed in (506, 507, 508):
        table = jade_table(seed)
        matched, false, errors, _ = _match(table)
        assert matched == len(table.layout.tiles)
        assert false == 0
        assert float(np.median(errors)) < 2.5


def test_two_by_two_blocks_are_four_tiles() -> None:
    """Two short rows one behind the other (four discards, turned either way): the cut
    between the rows lies where both are as deep as a row, not on a dark line of engraving
    inside the first (all eight tiles found, within 4 mm and nothing else, on 33 of 36 such
    tables in three arts; 22 of 36 before)."""
    geometry = TableGeometry()
    east = [(635, 483), (669, 482), (635, 507), (669, 504)]  # long sides along x
    south = [(396, 635), (421, 636), (394, 669), (419, 669)]  # long sides along y
    labels = ["2D", "F2", "F4", "7B", "6D", "S4", "S1", "F3"]
    places = [(x, y, 90.0) for x, y in east] + [(x, y, 0.0) for x, y in south]
    layout = Layout(
        tiles=[TilePlacement(lab, x, y, a) for lab, (x, y, a) in zip(labels, places, strict=True)],
        dice=[],
    )
    for seed, art in ((1, "kde-traditional"), (6, "kde-traditional"), (1, "symbola")):
        rng = np.random.default_rng(seed)
        table = render(layout, Style.random(rng, art), rng, geometry)
        matched, false, errors, _ = _match(table)
        assert matched == len(layout.tiles) and false == 0
        assert max(errors) < 4
