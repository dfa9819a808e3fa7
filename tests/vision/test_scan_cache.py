"""The live-table scan cache: a frame like the last one, or a tile whose crop has not changed
since the network named it alike three times, is not named again; a tile that changed (a
discard landing on its spot, turned over, swapped for a look-alike) or not yet named alike
three times (one frame's misreading) is named afresh, exactly as an uncached scan names it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.calibration import Calibration, calibrate
from vision.finder import rectify
from vision.geometry import TableGeometry
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.labels import BACK, LABELS
from vision.observe import TableWatcher
from vision.scan import Scanner, ScanResult, TileSeen
from vision.scan_cache import CacheStats, signatures, thumbnail
from vision.synth.layout import Layout, TilePlacement, random_layout
from vision.synth.render import Style, render_still

GEOMETRY = TableGeometry()
SEED = 41


def film(layout: Layout, style: Style, noise_seed: int, gain: float = 1.0) -> np.ndarray:
    """A frame of the still table: new sensor noise for each ``noise_seed``."""
    return render_still(layout, style, SEED, noise_seed, GEOMETRY, gain).image


@pytest.fixture(scope="module")
def table() -> tuple[Layout, Style, np.ndarray, Calibration, Recogniser]:
    rng = np.random.default_rng(SEED)
    # A set the bundled model knows (few abstentions: abstained tiles are never kept).
    style = dataclasses.replace(Style.random(rng, "kde-classic"), noise=4.0, jpeg=85)
    layout = random_layout(rng, LABELS, GEOMETRY, discards=32, exposures=2, walls=False)
    first = film(layout, style, 1)
    return layout, style, first, calibrate(first, GEOMETRY), Recogniser.load(DEFAULT_MODEL_DIR)


def _discard_index(layout: Layout, named: ScanResult) -> int:
    """A face-up discard in the middle of a row that the scan named (so that the cache
    holds it: a tile the recogniser abstained on is looked at again anyway)."""
    for i, t in enumerate(layout.tiles):
        zone = GEOMETRY.zone_at(t.x, t.y)
        if zone is not None and zone.name == "discards" and i % 6 in (2, 3):
            seen = _at(named, t.x, t.y)
            if seen.tile is not None and np.hypot(seen.x - t.x, seen.y - t.y) < 2:
                return i
    raise AssertionError("no named discard in the scene")


def abstained(scan: ScanResult) -> int:
    return len(scan.tiles) - _kept(scan)


def _kept(scan: ScanResult) -> int:
    """Tiles the cache keeps: all but abstentions."""
    return sum(1 for t in scan.tiles if _kept_tile(t))


def _kept_tile(tile: TileSeen) -> bool:
    return tile.tile is not None or tile.face_down or tile.blank


def _at(scan: ScanResult, x: float, y: float) -> TileSeen:
    return min(scan.tiles, key=lambda t: (t.x - x) ** 2 + (t.y - y) ** 2)


def _free_spot(layout: Layout) -> tuple[float, float]:
    """A place in the discards as far as can be from every tile and die."""
    return max(
        ((float(x), float(y)) for x in range(240, 661, 10) for y in range(240, 661, 10)),
        key=lambda p: min(np.hypot(o.x - p[0], o.y - p[1]) for o in layout.tiles + layout.dice),
    )


def _warm(
    table: tuple[Layout, Style, np.ndarray, Calibration, Recogniser],
) -> tuple[Scanner, list[ScanResult]]:
    """A cached scanner that has named the table's tiles as often as it must before it
    recalls them (the light changing between frames, so that each frame is looked at), and
    those scans; its counts start again from there."""
    layout, style, first, cal, recogniser = table
    scanner = Scanner(cal, recogniser, cache=True)
    assert scanner.memory is not None
    scans = [scanner.scan(first)]
    for n in range(1, scanner.memory.confirm):
        scans.append(scanner.scan(film(layout, style, 10 + n, gain=1.0 if n % 2 == 0 else 0.92)))
    assert scanner.memory.stats.frames_reused == 0
    scanner.memory.stats = CacheStats()
    return scanner, scans


def _reading(tile: TileSeen) -> tuple[str | None, bool, bool]:
    return tile.tile, tile.face_down, tile.blank


def confirmed(scans: list[ScanResult]) -> int:
    """Tiles of the last scan named alike (never an abstention) in every one of ``scans``:
    those the cache recalls from then on."""
    last = scans[-1]
    return sum(
        1
        for t in last.tiles
        if _kept_tile(t)
        and all(_reading(_at(s, t.x, t.y)) == _reading(t) for s in scans[:-1])
    )


def test_an_unchanged_frame_is_not_scanned_again(table) -> None:  # type: ignore[no-untyped-def]
    layout, style, first, cal, recogniser = table
    scanner = Scanner(cal, recogniser, cache=True)
    warm = scanner.scan(first)
    assert scanner.memory is not None
    named = scanner.memory.stats.tiles_named
    assert named == len(warm.tiles) > 25
    again = scanner.scan(film(layout, style, 2))  # the same table, new sensor noise
    assert scanner.memory.stats.frames_reused == 1
    assert scanner.memory.stats.tiles_named == named
    plain = Scanner(cal, recogniser).scan(first)
    assert again.to_json() == plain.to_json()


def test_unchanged_tiles_keep_their_identity_through_a_change_of_light(table) -> None:  # type: ignore[no-untyped-def]
    """The exposure drops: every pixel changed, no tile did. The frame is scanned again
    (positions are measured), but only the tiles not named alike in every earlier frame
    (abstained on, or read as a look-alike once) go through the network again."""
    layout, style, _, cal, recogniser = table
    scanner, scans = _warm(table)
    warm = scans[-1]
    assert scanner.memory is not None
    assert confirmed(scans) >= 0.8 * len(warm.tiles)
    darker = film(layout, style, 3, gain=0.92)
    cached = scanner.scan(darker)
    assert scanner.memory.stats.frames_reused == 0
    assert scanner.memory.stats.tiles_recalled == confirmed(scans)
    plain = Scanner(cal, recogniser).scan(darker)
    assert [(t.x, t.y, t.zone) for t in cached.tiles] == [(t.x, t.y, t.zone) for t in plain.tiles]
    named = {(t.x, t.y): t for t in warm.tiles}
    for tile in cached.tiles:  # the remembered identities are those of the first frame
        first = min(named.values(), key=lambda t: (t.x - tile.x) ** 2 + (t.y - tile.y) ** 2)
        if first.tile is not None:
            assert (tile.tile, tile.confidence) == (first.tile, first.confidence)


def _changed(
    table: tuple[Layout, Style, np.ndarray, Calibration, Recogniser], change: str
) -> tuple[TileSeen, TileSeen, Scanner, ScanResult]:
    """Scan the table, make one change at the spot of one discard it named, scan again with
    the cache and without: (the cached scan's tile there, the uncached scan's, the cached
    scanner, the scan before the change)."""
    layout, style, _, cal, recogniser = table
    scanner, scans = _warm(table)
    warm = scans[-1]
    assert scanner.memory is not None
    k = _discard_index(layout, warm)
    old = layout.tiles[k]
    tiles = list(layout.tiles)
    if change == "turned over":
        tiles[k] = dataclasses.replace(old, label=BACK)
    elif change == "swapped for a look-alike":
        tiles[k] = dataclasses.replace(old, label="3C" if old.label == "5C" else "5C")
    elif change == "turned end for end":
        tiles[k] = dataclasses.replace(old, angle=old.angle + 180.0)
    elif change == "another discard landed on its spot":
        # The tile is taken away and another lands on the same spot, 0.6 mm off.
        label = "RD" if old.label != "RD" else "GD"
        tiles[k] = TilePlacement(label, old.x + 0.5, old.y - 0.3, old.angle)
    frame = film(Layout(tiles, list(layout.dice)), style, 4)
    cached = scanner.scan(frame)
    plain = Scanner(cal, recogniser).scan(frame)
    assert _same_places(cached, plain)  # nothing lost, nothing added
    return _at(cached, old.x, old.y), _at(plain, old.x, old.y), scanner, warm


def _same_places(a: ScanResult, b: ScanResult, tol_mm: float = 3.0) -> bool:
    """Whether two scans saw as many tiles, dice and obstructions, each of one within
    ``tol_mm`` of one of the other (a tile not looked at again keeps the place it was
    measured at; measured in another frame it moves by up to 2 mm; a tile lost or added
    would be a tile's width away)."""
    for kind in ("tiles", "dice", "obstructions"):
        pa, pb = (
            np.array([(p.x, p.y) if hasattr(p, "x") else p for p in getattr(s, kind)]).reshape(
                -1, 2
            )
            for s in (a, b)
        )
        if len(pa) != len(pb):
            return False
        if len(pa) == 0:
            continue
        dist = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1])
        if dist.min(axis=0).max() > tol_mm or dist.min(axis=1).max() > tol_mm:
            return False
    return True


@pytest.mark.parametrize(
    "change",
    [
        "another discard landed on its spot",
        "turned over",
        "swapped for a look-alike",
        "turned end for end",
    ],
)
def test_a_changed_tile_is_named_again(table, change: str) -> None:  # type: ignore[no-untyped-def]
    cached, plain, scanner, warm = _changed(table, change)
    assert scanner.memory is not None
    stats = scanner.memory.stats
    assert stats.frames_reused == 0  # the frame is not taken for the old one
    # What an uncached scan of that frame says there (the same crop, within the rounding
    # of warping a part of the table rather than the whole, through the same network), not
    # what was there before.
    assert (cached.tile, cached.best, cached.face_down) == (plain.tile, plain.best, plain.face_down)
    assert (cached.x, cached.y) == pytest.approx((plain.x, plain.y), abs=0.01)
    assert cached.confidence == pytest.approx(plain.confidence, abs=1e-3)
    if change == "turned over":
        assert cached.face_down
    # Only the changed part of the table was looked at again, and the changed tile named
    # afresh (with a neighbour or two of a touching row, measured a little elsewhere).
    assert stats.frames_partly_scanned == 1
    assert 1 <= stats.tiles_named - abstained(warm) <= 6


def test_one_frames_misreading_is_not_kept(table) -> None:  # type: ignore[no-untyped-def]
    """Under one frame's light the network can take a tile for its look-alike and read it
    right in the next (here the exposure drops to 45 % for a frame: a 4 of characters read as
    a 1). Recalled from that one naming, the misreading would stand for as long as the tile
    lies there (in frames of `mjtable simulate --camera --seed 1`, a 5 of characters of an
    exposed pung read as a 3 in one frame stayed a 3 in every frame after); an uncached scan
    shows it for that frame only, and the watcher never reports it. The frame after is named
    as an uncached scan names it."""
    layout, style, _, cal, recogniser = table
    scanner = Scanner(cal, recogniser, cache=True)
    dim = scanner.scan(film(layout, style, 3, gain=0.45))
    frame = film(layout, style, 2, gain=0.92)
    cached = scanner.scan(frame)
    plain = Scanner(cal, recogniser).scan(frame)
    misread = [t for t in plain.tiles if t.tile and _at(dim, t.x, t.y).tile not in (None, t.tile)]
    assert misread, "the dim frame names no tile otherwise: no case to test"
    assert [(t.tile, t.best, t.x, t.y) for t in cached.tiles] == [
        (t.tile, t.best, t.x, t.y) for t in plain.tiles
    ]


def test_a_tile_is_recalled_once_named_alike_three_times(table) -> None:  # type: ignore[no-untyped-def]
    """Each frame under new light is looked at whole; a tile goes through the network until
    it has been named alike three times in a row, and is recalled from then on."""
    layout, style, first, cal, recogniser = table
    scanner = Scanner(cal, recogniser, cache=True)
    assert scanner.memory is not None and scanner.memory.confirm == 3
    stats = scanner.memory.stats
    scans = [scanner.scan(first)]
    named = [stats.tiles_named]
    for noise, gain in ((11, 0.92), (12, 1.0), (3, 0.92)):
        before = stats.tiles_named
        scans.append(scanner.scan(film(layout, style, noise, gain=gain)))
        named.append(stats.tiles_named - before)
    assert stats.frames_reused == 0
    assert named[:3] == [len(scans[0].tiles)] * 3  # the first three: every tile named
    # Then all but those named alike all three times (an abstention, or a tile read as
    # its look-alike under one frame's light, is named again).
    assert confirmed(scans[:3]) >= 0.8 * len(scans[0].tiles)
    assert named[3] == len(scans[3].tiles) - confirmed(scans[:3])


def test_a_new_recogniser_forgets_everything(table) -> None:  # type: ignore[no-untyped-def]
    first = table[2]
    scanner, scans = _warm(table)
    assert scanner.memory is not None
    scanner.recogniser = Recogniser.load(DEFAULT_MODEL_DIR)  # e.g. after an enrolment
    scanner.scan(first)
    assert scanner.memory.stats.frames_reused == 0
    assert scanner.memory.stats.tiles_recalled == 0
    assert scanner.memory.stats.tiles_named == len(scans[-1].tiles)


def test_signatures_ignore_exposure_but_not_content() -> None:
    rng = np.random.default_rng(0)
    crop = rng.integers(40, 220, size=(64, 48, 3)).astype(np.uint8)
    brighter = np.clip(crop.astype(np.float32) * 1.1 + 5, 0, 255).astype(np.uint8)
    other = crop.copy()
    other[20:28, 16:24] = 0  # one stroke more
    a, b, c = signatures([crop, brighter, other])
    assert np.abs(a - b).max() < 0.1
    assert np.abs(a - c).max() > 1.0


def test_an_abstention_is_looked_at_again(table) -> None:  # type: ignore[no-untyped-def]
    """A tile the recogniser would not name is not remembered as unnamed: the next frame
    is another chance (here a recogniser sure of nothing)."""
    layout, style, first, cal, recogniser = table
    unsure = dataclasses.replace(recogniser, threshold=1.01)
    scanner = Scanner(cal, unsure, cache=True)
    warm = scanner.scan(first)
    assert scanner.memory is not None
    abstained = sum(1 for t in warm.tiles if t.tile is None and not t.face_down)
    assert abstained > 20
    scanner.scan(film(layout, style, 3, gain=0.92))
    assert scanner.memory.stats.tiles_recalled == len(warm.tiles) - abstained
    assert scanner.memory.stats.tiles_named == len(warm.tiles) + abstained


def test_a_new_discard_is_looked_at_alone(table) -> None:  # type: ignore[no-untyped-def]
    """A discard lands on free cloth: only that part of the table is looked at again, the
    new tile alone goes through the network, and the scan holds what an uncached one does."""
    layout, style, _, cal, recogniser = table
    scanner, scans = _warm(table)
    assert scanner.memory is not None
    spot = _free_spot(layout)
    assert min(np.hypot(t.x - spot[0], t.y - spot[1]) for t in layout.tiles) > 60
    landed = Layout([*layout.tiles, TilePlacement("7B", *spot, 0.4)], list(layout.dice))
    frame = film(landed, style, 5)
    cached = scanner.scan(frame)
    plain = Scanner(cal, recogniser).scan(frame)
    assert scanner.memory.stats.frames_partly_scanned == 1
    assert scanner.memory.stats.tiles_named == 1
    assert len(cached.tiles) == len(scans[-1].tiles) + 1
    assert _same_places(cached, plain)
    new, truth = _at(cached, *spot), _at(plain, *spot)
    assert (new.tile, new.best, new.zone) == (truth.tile, truth.best, "discards")
    # The same table again: the part looked at is now the reference, nothing to do.
    scanner.scan(film(landed, style, 6))
    assert scanner.memory.stats.frames_reused == 1


def test_a_hand_over_the_table_is_seen(table) -> None:  # type: ignore[no-untyped-def]
    layout, style, _, cal, recogniser = table
    scanner, _ = _warm(table)
    reaching = Layout(list(layout.tiles), list(layout.dice), hand=(450.0, 640.0))
    frame = film(reaching, style, 7)
    cached = scanner.scan(frame)
    assert cached.obstructions
    assert _same_places(cached, Scanner(cal, recogniser).scan(frame))


@pytest.mark.parametrize("hand", [(450.0, 640.0), (560.0, 620.0), (330.0, 660.0)])
def test_a_hand_withdrawn_is_gone_at_once(table, hand) -> None:  # type: ignore[no-untyped-def]
    # Its blob took in the tiles it touched, so its centre lay outside the change its leaving
    # made: it was kept until the next whole scan, holding that part of the table still.
    # And the seat's discards two rows deep, looked at again alone, were taken for a hand.
    layout, style, _, cal, recogniser = table
    scanner, _ = _warm(table)
    reaching = Layout(list(layout.tiles), list(layout.dice), hand=hand)
    for k in (7, 8):
        assert scanner.scan(film(reaching, style, k)).obstructions
    frame = film(layout, style, 9)
    cached = scanner.scan(frame)
    assert scanner.memory is not None and scanner.memory.stats.frames_partly_scanned
    assert cached.obstructions == []
    assert _same_places(cached, Scanner(cal, recogniser).scan(frame))


def test_deep_discard_rows_looked_at_again_alone_are_not_a_hand() -> None:
    # A seat's seven discards (a row of six and one behind) are judged by the body colour
    # of the set's other tiles; the part of the table a withdrawn hand changed held too few
    # of them, and the rows were taken for a hand until the next whole scan.
    rng = np.random.default_rng(5104)
    style = Style.random(rng, "gnome-smooth")
    layout = random_layout(rng, LABELS, GEOMETRY, discards=28, exposures=3, walls=True)
    reaching = Layout(list(layout.tiles), list(layout.dice), hand=(522.0, 615.0))
    frames = [
        render_still(reaching if 1 <= k <= 2 else layout, style, 5604, k, GEOMETRY).image
        for k in range(4)
    ]
    cal = calibrate(frames[0], GEOMETRY)
    scanner = Scanner(cal, Recogniser.load(DEFAULT_MODEL_DIR), cache=True)
    assert [bool(scanner.scan(f).obstructions) for f in frames] == [False, True, True, False]
    assert scanner.memory is not None and scanner.memory.stats.frames_partly_scanned >= 1


def test_part_of_the_table_is_that_part_of_the_whole(table) -> None:  # type: ignore[no-untyped-def]
    _, _, first, cal, _ = table
    whole = rectify(first, cal)
    part = rectify(first, cal, (300, 420, 520, 700))
    assert part.shape == (280, 220, 3)
    assert int(np.abs(part.astype(int) - whole[420:700, 300:520]).max()) <= 1


def test_the_thumbnail_is_block_means() -> None:
    rng = np.random.default_rng(1)
    frame = rng.integers(0, 256, size=(1080, 1920, 3)).astype(np.uint8)
    means = frame.reshape(270, 4, 480, 4, 3).mean(axis=(1, 3))
    assert np.abs(thumbnail(frame).astype(float) - means).max() <= 1.0


def test_the_watcher_sees_a_new_discard_once_through_the_cache(table) -> None:  # type: ignore[no-untyped-def]
    """The camera loop's path: a still table scanned with the cache, frame after frame, into
    the watcher; a discard lands and is reported once, as the uncached scan names it."""
    layout, style, _, cal, recogniser = table
    scanner = Scanner(cal, recogniser, cache=True)
    watcher = TableWatcher(stable_frames=3)
    for n in range(4):  # the table as it is: its tiles become known
        watcher.update(scanner.scan(film(layout, style, 10 + n)))
    assert scanner.memory is not None and scanner.memory.stats.frames_reused == 3
    spot = _free_spot(layout)
    landed = Layout([*layout.tiles, TilePlacement("7B", *spot, 0.4)], list(layout.dice))
    reports = []
    for n in range(5):
        frame = film(landed, style, 20 + n)
        reports += watcher.update(scanner.scan(frame))
    assert scanner.memory.stats.frames_partly_scanned == 1  # then the same table again
    assert scanner.memory.stats.frames_reused == 3 + 4
    uncached = _at(Scanner(cal, recogniser).scan(frame), *spot)
    assert uncached.tile is not None
    assert [(r.kind.value, r.tiles) for r in reports] == [("discard", (uncached.tile,))]
