"""The text recogniser at a live table: a tile the bonus gate leaves to the text is read once
in the background, its reading remembered while the tile lies unchanged and forgotten when it
moves, changes or the recogniser changes; the reader reads nothing it was told to drop."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from vision.bonus_ocr import BonusOcr, OcrBars, may_change, with_ocr
from vision.calibration import calibrate
from vision.finder import Found
from vision.geometry import TableGeometry
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.identity import SIDES, UNREAD, UNSURE, Identity
from vision.labels import LABELS
from vision.scan import Scanner, ScanResult, TileSeen
from vision.scan_cache import ScanMemory, signatures
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop
from vision.synth.layout import Layout, TilePlacement, random_layout
from vision.synth.render import CameraPose, Style, render_still
from vision.table_text import TextMemory, at_the_cut
from vision.text_reader import TextReader

GEOMETRY = TableGeometry()
SPOT = Found("tile", 300.0, 400.0, 0.0, 24.0, 32.0)


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return dataclasses.replace(Recogniser.load(DEFAULT_MODEL_DIR), bonus_ocr=BonusOcr())


def cut(kind: str, seed: int = 1) -> np.ndarray:
    """The scanner's 48 x 64 cut of a ``kde-traditional`` tile 40 camera pixels wide (a set
    no network here trained on; it prints PLUM, ORC, ... at the foot)."""
    return synthetic_crop(load_set("kde-traditional")[kind], np.random.default_rng(seed), 1.0, 40)


def unsure(best: str) -> Identity:
    """The gate's answer on a bonus tile whose name neither look is sure of."""
    return Identity(None, 0.45, best, bonus_share=0.9, best_bonus=best, why=UNREAD)


def look(
    text: TextMemory, recogniser: Recogniser, crop: np.ndarray, spot: Found = SPOT
) -> Identity:
    """One look at the tile at ``spot``, named ``unsure`` again, as the scan cache looks."""
    asked = text.places([spot], 2.0, 5.0)[0]
    if asked >= 0 and float(np.abs(signatures([crop])[0] - text.signature(asked)).max()) > 0.8:
        asked = -1
    named = [(spot, crop, signatures([crop])[0], unsure("F3"), asked)]
    return text.revise(named, {asked} - {-1}, recogniser)[0]


def settle(text: TextMemory) -> None:
    for asked in text._asked:
        assert asked.ticket.wait(30.0)


def test_a_tile_left_to_the_text_is_read_once_and_named_while_unchanged(
    recogniser: Recogniser,
) -> None:
    text = TextMemory()
    crop = cut("F1")
    first = look(text, recogniser, crop)
    assert first.label is None  # the scan does not wait for the reading
    settle(text)
    answers = [look(text, recogniser, crop) for _ in range(5)]
    assert [a.label for a in answers] == ["F1"] * 5
    assert answers[0].how == "bonus: name read as text"
    assert text.reader.read_count == 1
    text.close()


def test_read_nothing_is_remembered_too(recogniser: Recogniser) -> None:
    text = TextMemory()
    crop = cut("5B")  # a suit tile's cut: no bonus name on it
    look(text, recogniser, crop)
    settle(text)
    assert [look(text, recogniser, crop).label for _ in range(4)] == [None] * 4
    assert text.reader.read_count == 1
    text.close()


def test_no_bonus_name_read_at_the_cut_names_no_suit_tile(recogniser: Recogniser) -> None:
    # The gate could not place these crops, though the first look named each plainly. On a
    # single-tile photo, text naming no bonus tile names such a crop its first look's kind;
    # at the scanner's cut (24-43 camera pixels) little is read of most prints: it stays
    # abstained, read or not.
    text = TextMemory()
    kinds = ("5B", "2D", "7C", "WD", "NW", "GD")
    crops = [cut(kind) for kind in kinds]
    looks = [
        Identity(None, 0.9, kind, bonus_share=0.01, best_other=kind, why=SIDES) for kind in kinds
    ]
    named = [
        (dataclasses.replace(SPOT, x=SPOT.x + 40.0 * n), crop, signatures([crop])[0], look, -1)
        for n, (crop, look) in enumerate(zip(crops, looks, strict=True))
    ]
    assert [a.label for a in text.revise(named, set(), recogniser)] == [None] * len(kinds)
    settle(text)
    as_on_a_photo = [
        with_ocr(a.identity, a.ticket.reading, recogniser.ocr_bars).label
        for a in text._asked
        if a.ticket.reading is not None
    ]
    assert set(as_on_a_photo) - {None}  # the photos' rule would name some of them
    again = [(*tile[:4], k) for k, tile in enumerate(named)]
    answers = text.revise(again, set(range(len(kinds))), recogniser)
    assert [a.label for a in answers] == [None] * len(kinds)
    # A first look merely unsure of an honour is not even asked about at the cut (on a
    # photo, its print would be read).
    unsure_honour = Identity(None, 0.4, "SW", bonus_share=0.01, best_other="SW", why=UNSURE)
    assert may_change(unsure_honour, recogniser.ocr_bars)
    crop = cut("SW")
    lone = dataclasses.replace(SPOT, y=SPOT.y + 200.0)
    named = [*again, (lone, crop, signatures([crop])[0], unsure_honour, -1)]
    assert text.revise(named, set(range(len(kinds))), recogniser)[-1].label is None
    assert text.asked == len(kinds)
    text.close()


def test_a_tile_moved_or_changed_is_read_again(recogniser: Recogniser) -> None:
    text = TextMemory()
    look(text, recogniser, cut("F1"))
    settle(text)
    moved = dataclasses.replace(SPOT, x=SPOT.x + 10.0)
    assert look(text, recogniser, cut("F1"), moved).label is None  # asked anew, not yet read
    settle(text)
    assert look(text, recogniser, cut("S2", 3), moved).label is None  # swapped: asked anew
    settle(text)
    assert look(text, recogniser, cut("S2", 3), moved).label == "S2"
    assert text.reader.read_count == 3
    assert text.asked == 1  # the places left behind are forgotten
    text.close()


def test_a_new_recogniser_forgets_what_was_read(recogniser: Recogniser) -> None:
    memory = ScanMemory(text=TextMemory())
    assert memory.text is not None
    memory.changes(np.zeros((4, 4, 3), np.uint8), recogniser)  # the table's recogniser
    look(memory.text, recogniser, cut("F1"))
    settle(memory.text)
    memory.changes(np.zeros((4, 4, 3), np.uint8), recogniser)
    assert memory.text.asked == 1
    memory.changes(np.zeros((4, 4, 3), np.uint8), dataclasses.replace(recogniser))
    assert memory.text.asked == 0
    assert look(memory.text, recogniser, cut("F1")).label is None  # read again
    memory.close()


def test_a_reading_finished_since_names_the_tile_on_the_last_result(
    recogniser: Recogniser,
) -> None:
    text = TextMemory()
    look(text, recogniser, cut("S4"))
    settle(text)
    last = ScanResult([TileSeen(None, 0.45, SPOT.x, SPOT.y, 0.0, None, None, False, best="F3")])
    shown = text.show(last, 2.0)
    assert shown.tiles[0].tile == "S4"
    assert last.tiles[0].tile is None  # the result given out earlier is left as it was
    text.close()


def test_a_request_dropped_or_refused_is_not_read(recogniser: Recogniser) -> None:
    ocr = recogniser.bonus_ocr
    assert ocr is not None
    reader = TextReader(capacity=1)
    tickets = [reader.ask(ocr, cut("F1", seed)) for seed in range(4)]
    assert None in tickets  # the queue holds one: a full queue refuses, the scan goes on
    for ticket in tickets[1:]:
        if ticket is not None:
            ticket.drop()
    first = tickets[0]
    assert first is not None and first.wait(30.0)
    reader.close()
    assert all(not t.done for t in tickets[1:] if t is not None)
    assert reader.read_count == 1
    with pytest.raises(ValueError, match="capacity 0"):
        TextReader(capacity=0)


def test_a_live_table_reads_its_unsure_tiles_once_across_frames(recogniser: Recogniser) -> None:
    # A table of a set the bundled model never trained on: the gate leaves some of its tiles
    # to the text. Changes of light (whole scans, the crops alike) do not read them again.
    rng = np.random.default_rng(41)
    style = dataclasses.replace(Style.random(rng, "kde-traditional"), noise=4.0, jpeg=85)
    layout = random_layout(rng, LABELS, GEOMETRY, discards=32, exposures=2, walls=False)

    def frame(n: int, gain: float = 1.0) -> np.ndarray:
        return render_still(layout, style, 41, n, GEOMETRY, gain).image

    calibration = calibrate(frame(1), GEOMETRY)
    with Scanner(calibration, recogniser, cache=True) as scanner:
        assert scanner.memory is not None and scanner.memory.text is not None
        text = scanner.memory.text
        for n, gain in ((1, 1.0), (2, 0.92)):  # the queue refuses some at the first look
            scanner.scan(frame(n, gain))
            settle(text)
        assert text.reader.read_count == text.asked > 0
        tickets = {id(a.ticket) for a in text._asked}
        for n, gain in ((3, 1.0), (4, 0.92), (5, 1.0)):
            scanner.scan(frame(n, gain))
        settle(text)
        # Every tile asked about is still remembered, none read twice (a tile the gate
        # leaves to the text for the first time at a later look is read then).
        assert tickets <= {id(a.ticket) for a in text._asked}
        assert text.reader.read_count == text.asked
    assert Scanner(calibration, recogniser).memory is None  # the one-shot scan reads no cut


def test_a_recogniser_that_cannot_load_says_why_and_names_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "rec.onnx"
    broken.write_bytes(b"not a network")
    reader = TextReader()
    ticket = reader.ask(BonusOcr(model=broken, lazy=True), cut("F1"))
    assert ticket is not None and ticket.wait(30.0)
    assert ticket.reading is None
    assert (
        ticket.error is not None and "rec.onnx" in ticket.error and "not loadable" in ticket.error
    )
    assert reader.error == ticket.error
    reader.close()


def test_a_tile_swapped_where_one_was_read_is_not_given_its_reading(
    recogniser: Recogniser,
) -> None:
    # At 3840 x 2160 (tiles 48 pixels wide) the text names some of kde-traditional's flowers
    # and seasons, which the bundled model abstains on. One of them swapped for another bonus
    # tile, on which the model abstains as well, must be read anew, not named as the first.
    rng = np.random.default_rng(41)
    style = dataclasses.replace(Style.random(rng, "kde-traditional"), noise=4.0, jpeg=85)
    layout = random_layout(rng, LABELS, GEOMETRY, discards=32, exposures=2, walls=False)
    pose = CameraPose.overhead(np.random.default_rng(1), 3840, 2160)

    def frame(shown: Layout, n: int, gain: float = 1.0) -> np.ndarray:
        return render_still(shown, style, 41, n, GEOMETRY, gain, pose).image

    with Scanner(calibrate(frame(layout, 1), GEOMETRY), recogniser, cache=True) as scanner:
        assert scanner.memory is not None and scanner.memory.text is not None
        for n, gain in ((1, 1.0), (2, 0.92), (3, 1.0)):
            scanner.scan(frame(layout, n, gain))
            settle(scanner.memory.text)
        read = [k for k in scanner.memory._known if k.identity.how == "bonus: name read as text"]
        assert read, "the text named none of the table's tiles"
        spot, was = read[0].spot, read[0].identity.label
        swapped = copy.deepcopy(layout)
        k = min(range(len(layout.tiles)), key=lambda j: _far(layout.tiles[j], spot))
        swapped.tiles[k] = dataclasses.replace(layout.tiles[k], label="S4" if was != "S4" else "F1")
        for n, gain in ((4, 0.92), (5, 1.0)):
            seen = scanner.scan(frame(swapped, n, gain))
            tile = min(seen.tiles, key=lambda t: _far(t, spot))
            assert tile.tile != was, (was, swapped.tiles[k].label, tile)
            settle(scanner.memory.text)


def _far(tile: TilePlacement | TileSeen, spot: Found) -> float:
    return float(np.hypot(tile.x - spot.x, tile.y - spot.y))


def test_the_cut_is_never_read_at_its_corners() -> None:
    # The corner look was chosen on photos wider than the cut; the table's bars keep it off.
    assert at_the_cut(OcrBars(corners_below=0.8)).corners_below == 0.0


def test_the_cut_takes_no_faint_name_by_its_number() -> None:
    # Chosen on photos wider than the cut: the table's bars keep it off.
    assert at_the_cut(OcrBars()).numbered_sure == 0.0


def test_the_cut_names_no_tile_by_the_print_read_best() -> None:
    # Chosen on photos wider than the cut: the table's bars keep it off.
    assert OcrBars().anew_sure > 0
    assert at_the_cut(OcrBars()).anew_sure == 0.0
    assert OcrBars().numbered_sure > 0
