"""The text recogniser's look at bonus tiles: a held-out set's flowers and seasons read by their
printed names, a suit tile never called a bonus tile by it, and the rule that uses it never
moving a crop between the bonus tiles and the other kinds."""

from __future__ import annotations

import copy
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.bonus import BONUS_KINDS
from vision.bonus_ocr import (
    BonusOcr,
    OcrBars,
    OcrReading,
    may_change,
    read_text,
    with_ocr,
)
from vision.crops import CROP_W
from vision.embedder import ModelError
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.identity import (
    DOUBTED,
    NUMBER,
    OTHER_UNSURE,
    SIDES,
    UNLIKE,
    UNREAD,
    UNSURE,
    Identity,
)
from vision.printed import HONOURS
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop
from vision.synth.procedural import procedural_set

SUITS = [f"{n}{s}" for s in "BCD" for n in range(1, 10)]


@pytest.fixture(scope="module")
def ocr() -> BonusOcr:
    return BonusOcr()


def photo(face: np.ndarray, width: int, seed: int) -> np.ndarray:
    """A single-tile photo of ``face``, ``width`` pixels wide, with the camera's damage."""
    return synthetic_crop(face, np.random.default_rng(seed), camera_width=width, native=True)


def test_a_held_out_sets_bonus_tiles_are_read_by_their_names(ocr: BonusOcr) -> None:
    # kde-traditional prints PLUM, ORC, ..., WIN at the foot; the network never trained here.
    faces = load_set("kde-traditional")
    readings = ocr.read([photo(faces[k], 96, n) for n, k in enumerate(BONUS_KINDS)])
    named = [r.name(OcrBars().name_sure) for r in readings]
    assert sum(n == k for n, k in zip(named, BONUS_KINDS, strict=True)) >= 7, named
    assert all(n in (None, k) for n, k in zip(named, BONUS_KINDS, strict=True)), named


def test_a_traditional_character_is_read(ocr: BonusOcr) -> None:
    # gnome-smooth prints 蘭 (not 兰), 梅, 春, 秋 large in the middle.
    faces = load_set("gnome-smooth")
    for kind in ("F1", "S1", "S3"):
        face = cv2.resize(faces[kind], (96, 128), interpolation=cv2.INTER_LINEAR)
        reading = ocr.read([face])[0]
        assert reading.name(OcrBars().name_sure) == kind, reading


def test_a_photo_taken_sideways_is_read(ocr: BonusOcr) -> None:
    face = cv2.resize(load_set("kde-traditional")["S1"], (96, 128))
    sideways = [
        cv2.rotate(face, turn) for turn in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE)
    ]
    assert [r.name(OcrBars().name_sure) for r in ocr.read(sideways)] == ["S1", "S1"]


def test_suit_tiles_are_not_called_bonus_tiles(ocr: BonusOcr) -> None:
    crops = [
        photo(load_set(name)[kind], 96, n)
        for name in ("xmj-real", "kde-traditional", "gnome-smooth")
        for n, kind in enumerate(SUITS)
    ]
    plain = [r for r in ocr.read(crops) if r.name(OcrBars().confirm_sure) is not None]
    assert not plain


def test_the_recogniser_names_bonus_tiles_it_abstained_on_by_their_text() -> None:
    # Photos of two held-out sets' bonus tiles, named from the bundled prototypes alone.
    with_text = Recogniser.load(DEFAULT_MODEL_DIR)
    assert with_text.bonus_ocr is not None
    without = copy.copy(with_text)
    without.bonus_ocr = None
    crops, truth = [], []
    for name in ("kde-traditional", "gnome-smooth"):
        faces = load_set(name)
        crops += [photo(faces[k], 96, n) for n, k in enumerate(BONUS_KINDS)]
        truth += list(BONUS_KINDS)
    before = [i.label for i in without.identify(crops)]
    after = [i.label for i in with_text.identify(crops)]
    # Only abstentions change, and each to the right bonus tile.
    changed = [(b, a, t) for b, a, t in zip(before, after, truth, strict=True) if a != b]
    assert changed
    assert all(b is None and a == t for b, a, t in changed), changed


def first(label: str | None, why: str | None = None) -> Identity:
    return Identity(label, 0.9, label or "F1", why=why)


READ_F3 = OcrReading("F3", 0.95, 3, 0.9)


@pytest.mark.parametrize("label", SUITS[:3] + ["RD", "GD", "EW"])
def test_a_suit_or_honour_answer_is_never_made_a_bonus_tile(label: str) -> None:
    answer = first(label)
    assert not may_change(answer)
    assert with_ocr(answer, READ_F3) is answer


@pytest.mark.parametrize("why", [UNLIKE, OTHER_UNSURE])
def test_abstentions_off_the_bonus_side_stay(why: str) -> None:
    answer = first(None, why)
    assert with_ocr(answer, READ_F3) is answer


def test_the_bonus_side_takes_the_name_read() -> None:
    assert with_ocr(first(None, NUMBER), READ_F3).label == "F3"
    # A bonus tile the gate named is renamed only when asked to.
    assert with_ocr(first("F1"), READ_F3).label == "F1"
    assert with_ocr(first("F1"), READ_F3, OcrBars(rename=True)).label == "F3"
    # Read less plainly than the bar, its number not plainly its own: the gate's answer stands.
    faint = OcrReading("F3", 0.3, 3, 0.6)
    assert with_ocr(first(None, NUMBER), faint).label is None
    assert with_ocr(first("F1"), faint, OcrBars(rename=True)).label == "F1"


@pytest.mark.parametrize("why", [SIDES, DOUBTED])
def test_between_the_sides_only_a_plain_name_confirms_a_bonus_tile(why: str) -> None:
    answer = first(None, why)
    assert with_ocr(answer, READ_F3).label == "F3"
    half = OcrReading("F3", 0.6, 3, 0.9)
    assert with_ocr(answer, half).label is None


NO_NAME = OcrReading("F1", 0.001, 1, 0.2)


def doubted(best: str, why: str, confidence: float = 0.9, share: float = 0.01) -> Identity:
    """The gate's abstention between the sides on a crop its first look named ``best``."""
    return Identity(None, confidence, best, bonus_share=share, why=why)


@pytest.mark.parametrize("why", [SIDES, DOUBTED])
@pytest.mark.parametrize("best", ["5B", "NW"])
def test_between_the_sides_no_name_read_leaves_the_first_looks_plain_tile(
    why: str, best: str
) -> None:
    answer = with_ocr(doubted(best, why), NO_NAME)
    assert (answer.label, answer.why) == (best, None)
    assert answer.how == "other: no bonus name in its text"


@pytest.mark.parametrize(
    ("answer", "reading", "bars"),
    [
        # The first look put the nameless_share or more on the bonus tiles.
        (doubted("5B", SIDES, share=0.05), NO_NAME, OcrBars()),
        # The first look under the recogniser's bar.
        (doubted("5B", DOUBTED, confidence=0.45), NO_NAME, OcrBars()),
        # Some name read, however faintly past the bar, if not plainly enough to confirm.
        (doubted("5B", SIDES), OcrReading("F1", 0.02, 1, 0.2), OcrBars()),
        # The rule off.
        (doubted("5B", SIDES), NO_NAME, OcrBars(nameless_below=0.0)),
        # Abstained on the bonus side, or as unlike everything: never a suit tile by it.
        (doubted("5B", NUMBER), NO_NAME, OcrBars()),
        (doubted("5B", UNLIKE), NO_NAME, OcrBars()),
    ],
)
def test_no_name_read_names_nothing_else(
    answer: Identity, reading: OcrReading, bars: OcrBars
) -> None:
    assert with_ocr(answer, reading, bars).label is None


def test_no_name_read_never_names_a_bonus_tile_a_suit() -> None:
    # A first look whose best kind is a bonus tile: no name read leaves the abstention.
    assert with_ocr(doubted("F2", SIDES), NO_NAME).label is None


@pytest.mark.parametrize("name", ["kde-traditional", "gnome-smooth"])
def test_a_held_out_sets_honours_are_read_by_their_print(ocr: BonusOcr, name: str) -> None:
    faces = load_set(name)
    readings = ocr.read([photo(faces[k], 96, n) for n, k in enumerate(HONOURS)])
    plain = [
        max(r.printed, key=lambda k: r.printed[k])
        for r in readings
        if max(r.printed.values()) >= 0.5
    ]
    assert len(plain) >= 5, readings
    assert all(k in HONOURS for k in plain)
    for kind, reading in zip(HONOURS, readings, strict=True):
        if reading.printed[kind] < 0.5:
            continue
        assert max(reading.printed, key=lambda k: reading.printed[k]) == kind, reading


def test_a_character_tile_is_told_by_its_numeral(ocr: BonusOcr) -> None:
    # gnome-smooth prints 四 ... 九 above 萬: 萬 is every character tile's, the numeral tells
    # which (一, 二 and 三 are strokes of one another, so left out here).
    faces = load_set("gnome-smooth")
    kinds = [f"{n}C" for n in range(4, 10)]
    faces_96 = [cv2.resize(faces[k], (96, 128), interpolation=cv2.INTER_LINEAR) for k in kinds]
    for kind, reading in zip(kinds, ocr.read(faces_96), strict=True):
        assert max(reading.printed, key=lambda k: reading.printed[k]) == kind, reading.printed


# The printed rule alone (the print read best, anew_sure, tested apart below).
PRINTED_ON = OcrBars(printed_sure=0.5, printed_bonus_below=0.5, anew_sure=0.0)


def printed(kind: str, sure: float, name_read: float = 0.001) -> OcrReading:
    """A reading of ``kind``'s print ``sure`` plainly, and of a bonus name ``name_read``."""
    return OcrReading("F1", name_read, 1, 0.2, {kind: sure})


@pytest.mark.parametrize("why", [SIDES, DOUBTED, UNSURE, OTHER_UNSURE])
@pytest.mark.parametrize("best", ["EW", "GD", "7C"])
def test_an_unplaced_crop_is_the_tile_whose_print_is_read(why: str, best: str) -> None:
    # A first look too unsure, or too near the bonus tiles, for the nameless rule.
    answer = doubted(best, why, confidence=0.4, share=0.3)
    assert may_change(answer, PRINTED_ON)
    named = with_ocr(answer, printed(best, 0.6), PRINTED_ON)
    assert (named.label, named.why, named.how) == (best, None, "other: its print read as text")


@pytest.mark.parametrize(
    ("answer", "reading", "bars"),
    [
        # The rule off (as by default until chosen), or the print read under its bar.
        (
            doubted("EW", SIDES, 0.4, 0.3),
            printed("EW", 0.6),
            OcrBars(printed_sure=0.0, anew_sure=0.0),
        ),
        (doubted("EW", SIDES, 0.4, 0.3), printed("EW", 0.4), PRINTED_ON),
        # Another tile's print read: only the first look's best kind is named by it.
        (doubted("EW", SIDES, 0.4, 0.3), printed("NW", 0.9), PRINTED_ON),
        # A bonus name read printed_bonus_below plainly: it abstains as before.
        (doubted("EW", SIDES, 0.4, 0.3), printed("EW", 0.9, name_read=0.6), PRINTED_ON),
        (doubted("EW", OTHER_UNSURE, 0.4), printed("EW", 0.9, name_read=0.6), PRINTED_ON),
        # Kinds that print no character, and a bonus tile: never named by it.
        (doubted("5B", SIDES, 0.4, 0.3), printed("5B", 0.9), PRINTED_ON),
        (doubted("F1", SIDES, 0.4, 0.3), printed("EW", 0.9), PRINTED_ON),
        # Abstained on the bonus side or as unlike everything.
        (doubted("EW", UNREAD), printed("EW", 0.9), PRINTED_ON),
        (doubted("EW", NUMBER), printed("EW", 0.9), PRINTED_ON),
        (doubted("EW", UNLIKE), printed("EW", 0.9), PRINTED_ON),
    ],
)
def test_a_print_read_names_nothing_else(
    answer: Identity, reading: OcrReading, bars: OcrBars
) -> None:
    assert with_ocr(answer, reading, bars).label is None


def test_a_bonus_name_read_plainly_still_wins_between_the_sides() -> None:
    answer = with_ocr(doubted("EW", SIDES, 0.4, 0.3), printed("EW", 0.9, 0.95), PRINTED_ON)
    assert answer.label == "F1"


def test_the_other_sides_abstentions_are_never_made_bonus_tiles() -> None:
    answer = doubted("EW", OTHER_UNSURE, 0.4)
    assert with_ocr(answer, READ_F3, PRINTED_ON).label is None
    # Nor read at all where the first look's best kind prints no character.
    assert not may_change(doubted("5B", OTHER_UNSURE, 0.4), PRINTED_ON)
    assert not may_change(answer, OcrBars(printed_sure=0.0, anew_sure=0.0))


READ_BEST = OcrBars(printed_sure=0.0, anew_sure=0.9)


@pytest.mark.parametrize("why", [SIDES, DOUBTED, UNSURE, OTHER_UNSURE])
@pytest.mark.parametrize(("best", "read"), [("F2", "9C"), ("3D", "GD"), ("4C", "WW")])
def test_an_abstention_is_the_tile_whose_print_is_read_best(why: str, best: str, read: str) -> None:
    # Whatever the first look liked best (a bonus tile, a dot, another character), the
    # honour or character tile whose print is read plainly and best names it.
    answer = doubted(best, why, confidence=0.4, share=0.6)
    assert may_change(answer, READ_BEST)
    reading = OcrReading("F1", 0.01, 1, 0.2, {read: 0.95, "1C": 0.3})
    named = with_ocr(answer, reading, READ_BEST)
    assert (named.label, named.why, named.how) == (read, None, "other: its print read best")
    assert named.confidence == 0.95


@pytest.mark.parametrize(
    ("answer", "reading", "bars"),
    [
        # Read under its bar, or the rule off.
        (doubted("F2", SIDES, 0.4, 0.6), printed("9C", 0.85), READ_BEST),
        (doubted("F2", SIDES, 0.4, 0.6), printed("9C", 0.95), OcrBars(anew_sure=0.0)),
        # A bonus name read printed_bonus_below plainly: it abstains as before.
        (doubted("F2", SIDES, 0.4, 0.6), printed("9C", 0.95, name_read=0.1), READ_BEST),
        # A kind that prints no character is never named by it, however its "print" is read.
        (doubted("F2", SIDES, 0.4, 0.6), printed("5B", 0.99), READ_BEST),
        # Abstained on the bonus side or as unlike everything.
        (doubted("F2", UNREAD), printed("9C", 0.95), READ_BEST),
        (doubted("F2", NUMBER), printed("9C", 0.95), READ_BEST),
        (doubted("F2", UNLIKE), printed("9C", 0.95), READ_BEST),
    ],
)
def test_the_print_read_best_names_nothing_else(
    answer: Identity, reading: OcrReading, bars: OcrBars
) -> None:
    assert with_ocr(answer, reading, bars).label is None


def test_the_first_looks_own_print_comes_before_the_print_read_best() -> None:
    # Both read plainly: the printed rule names the first look's kind, not the one read best.
    bars = OcrBars(printed_sure=0.5, printed_bonus_below=0.5, anew_sure=0.5)
    reading = OcrReading("F1", 0.01, 1, 0.2, {"EW": 0.6, "NW": 0.9})
    named = with_ocr(doubted("EW", SIDES, 0.4, 0.3), reading, bars)
    assert (named.label, named.how) == ("EW", "other: its print read as text")


class NeverAsked(BonusOcr):
    """A recogniser that fails the test if it is asked to read anything."""

    def __init__(self) -> None:
        pass

    def read(self, crops: object, corners_below: float = 0.0) -> list[OcrReading]:
        raise AssertionError("a crop that must not be read was read")


def test_narrow_crops_and_no_recogniser_leave_the_answers() -> None:
    answers = [first(None, SIDES), first("5B")]
    crops = [np.zeros((20, 15, 3), np.uint8), np.zeros((128, 96, 3), np.uint8)]
    assert read_text(None, crops, answers, [0, 1]) == answers
    # The first under min_width, the second a suit tile: neither is read.
    assert read_text(NeverAsked(), crops, answers, [0, 1], OcrBars(min_width=24)) == answers
    # By default the scanner's own 48 x 64 cut is not read (only wider photos are).
    cut = [np.zeros((64, 48, 3), np.uint8)]
    assert read_text(NeverAsked(), cut, answers[:1], [0]) == answers[:1]


@pytest.mark.parametrize(
    ("bars", "wrong"),
    [
        ({"name_sure": 1.5}, "OcrBars.name_sure 1.5: not in 0-1"),
        ({"min_width": 0}, "OcrBars.min_width 0: not a width"),
        ({"confirm_sure": -0.1}, "OcrBars.confirm_sure -0.1: not in 0-1"),
        ({"nameless_below": 1.5}, "OcrBars.nameless_below 1.5: not in 0-1"),
        ({"nameless_share": -1.0}, "OcrBars.nameless_share -1.0: not in 0-1"),
        ({"printed_sure": 2.0}, "OcrBars.printed_sure 2.0: not in 0-1"),
        ({"printed_bonus_below": -0.5}, "OcrBars.printed_bonus_below -0.5: not in 0-1"),
        ({"anew_sure": 1.5}, "OcrBars.anew_sure 1.5: not in 0-1"),
        ({"numbered_sure": 1.2}, "OcrBars.numbered_sure 1.2: not in 0-1"),
        ({"numbered_number": -0.2}, "OcrBars.numbered_number -0.2: not in 0-1"),
    ],
)
def test_bars_out_of_range_are_named(bars: dict[str, float], wrong: str) -> None:
    with pytest.raises(ValueError, match=wrong):
        OcrBars(**bars)  # type: ignore[arg-type]


def test_a_wrong_character_list_is_named(tmp_path: Path) -> None:
    short = tmp_path / "chars.txt"
    short.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(ModelError, match=r"chars\.txt: 2 characters for a network of"):
        BonusOcr(characters=short)


def test_a_lazy_recogniser_loads_on_its_first_read(tmp_path: Path) -> None:
    short = tmp_path / "chars.txt"
    short.write_text("a\nb\n", encoding="utf-8")
    lazy = BonusOcr(characters=short, lazy=True)  # nothing loaded yet
    with pytest.raises(ModelError, match=r"chars\.txt: 2 characters"):
        lazy.read([np.zeros((128, 96, 3), np.uint8)])


def test_an_unknown_region_is_named() -> None:
    with pytest.raises(ValueError, match="unknown regions \\['corner'\\]"):
        BonusOcr(regions=("whole", "corner"))


def test_a_missing_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not loadable"):
        BonusOcr(model=tmp_path / "none.onnx")


ANEW = OcrBars(printed_sure=0.5, printed_anew=True, anew_sure=0.0)


def test_anew_an_honours_character_names_it_over_the_first_look() -> None:
    # The first look liked 7C best; the text reads 東 plainly.
    reading = OcrReading("F1", 0.001, 1, 0.2, {"EW": 0.95, "7C": 0.1})
    answer = doubted("7C", SIDES, 0.6, 0.2)
    assert with_ocr(answer, reading, PRINTED_ON).label is None
    assert with_ocr(answer, reading, ANEW).label == "EW"


@pytest.mark.parametrize("best", ["6B", "F1"])
def test_anew_never_names_an_honour_over_a_bamboo_or_bonus_tile(best: str) -> None:
    # xmj-real's bamboo sticks read as 北: a first look on the bamboos is never overruled.
    reading = OcrReading("F1", 0.001, 1, 0.2, {"NW": 0.65})
    assert with_ocr(doubted(best, SIDES, 0.6, 0.2), reading, ANEW).label is None


def test_by_default_only_a_print_read_plainly_names_the_tile() -> None:
    answer = doubted("EW", DOUBTED, 0.6, 0.2)
    assert with_ocr(answer, printed("EW", 0.95)).label == "EW"
    assert with_ocr(answer, printed("EW", 0.8)).label is None
    # Under the printed rule's bar, the print read best names it, whatever the first look.
    named = with_ocr(doubted("5D", DOUBTED, 0.6, 0.2), printed("EW", 0.87))
    assert (named.label, named.how) == ("EW", "other: its print read best")
    # A bonus name read faintly, past printed_bonus_below, leaves the abstention.
    assert with_ocr(answer, printed("EW", 0.95, name_read=0.15)).label is None


def cornered_photos() -> tuple[list[np.ndarray], list[str]]:
    """Photos 112 pixels wide of two drawn sets' bonus tiles lettered small in a top corner."""
    crops, truth = [], []
    for seed in (6, 7):
        faces = procedural_set(seed, cornered=True)
        for n, kind in enumerate(BONUS_KINDS):
            crops.append(photo(faces[kind], 112, n))
            truth.append(kind)
    return crops, truth


def test_names_lettered_in_a_corner_are_read_at_the_corners(ocr: BonusOcr) -> None:
    # The three regions read a corner's name a few pixels tall on a line the tile's width:
    # 7 of these 16 at 0.8. Each corner magnified to the line's height reads most of the rest.
    crops, truth = cornered_photos()
    bar = OcrBars().confirm_sure
    regions = [r.name(bar) for r in ocr.read(crops)]
    corners = [r.name(bar) for r in ocr.read(crops, corners_below=bar)]
    assert (
        sum(n == k for n, k in zip(corners, truth, strict=True))
        >= sum(n == k for n, k in zip(regions, truth, strict=True)) + 4
    ), (regions, corners)
    assert all(n in (None, k) for n, k in zip(corners, truth, strict=True)), corners


def test_a_name_read_plainly_by_the_regions_leaves_the_corners_unread(ocr: BonusOcr) -> None:
    # Over the bar the regions' reading stands as it is, to the digit.
    crops, _ = cornered_photos()
    for crop, before in zip(crops, ocr.read(crops), strict=True):
        if before.confidence >= 0.5:
            assert ocr.read([crop], corners_below=0.5)[0] == before


def test_the_scanners_cuts_are_never_read_at_their_corners(ocr: BonusOcr) -> None:
    # A cut is CROP_W (48) pixels wide: its corners are a few pixels, and the scan's reads
    # stay as they were measured whatever the bar.
    faces = procedural_set(7, cornered=True)
    cuts = [synthetic_crop(faces[k], np.random.default_rng(n)) for n, k in enumerate(BONUS_KINDS)]
    assert all(c.shape[1] == CROP_W for c in cuts)
    assert ocr.read(cuts, corners_below=1.0) == ocr.read(cuts)


def test_the_corner_look_names_abstentions_through_read_text(ocr: BonusOcr) -> None:
    # Abstentions between the sides: a name read confirm_sure (0.8) plainly names them.
    crops, truth = cornered_photos()
    sides = [Identity(None, 0.3, "F1", bonus_share=0.6, why=SIDES) for _ in crops]
    looked = range(len(crops))
    off = read_text(ocr, crops, sides, looked, OcrBars())
    on = read_text(ocr, crops, sides, looked, OcrBars(corners_below=0.8))
    right = [sum(a.label == k for a, k in zip(way, truth, strict=True)) for way in (off, on)]
    assert right[1] >= right[0] + 3, right
    assert all(a.label in (None, k) for a, k in zip(on, truth, strict=True))


def test_the_corner_bar_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="corners_below"):
        OcrBars(corners_below=1.5)


NUMBERED_ON = OcrBars(numbered_sure=0.1, numbered_number=0.9)


@pytest.mark.parametrize("why", [UNREAD, NUMBER])
def test_the_bonus_side_takes_a_faint_name_whose_number_is_read(why: str) -> None:
    answer = with_ocr(first(None, why), OcrReading("S2", 0.2, 2, 0.95), NUMBERED_ON)
    assert (answer.label, answer.how) == ("S2", "bonus: name and number read as text")
    off = OcrBars(numbered_sure=0.0)
    assert with_ocr(first(None, why), OcrReading("S2", 0.2, 2, 0.95), off).label is None
    # By default the number read 0.9 plainly lets a name read 0.02 plainly stand.
    assert with_ocr(first(None, why), OcrReading("S2", 0.03, 2, 0.9)).label == "S2"
    assert with_ocr(first(None, why), OcrReading("S2", 0.01, 2, 0.9)).label is None


@pytest.mark.parametrize(
    "reading",
    [
        OcrReading("S2", 0.2, 3, 0.95),  # another number
        OcrReading("S2", 0.2, 2, 0.6),  # the number read faintly
        OcrReading("S2", 0.05, 2, 0.95),  # the name fainter than the bar
    ],
)
def test_a_faint_name_needs_its_own_number_read_plainly(reading: OcrReading) -> None:
    assert with_ocr(first(None, UNREAD), reading, NUMBERED_ON).label is None


@pytest.mark.parametrize("why", [SIDES, DOUBTED])
def test_a_faint_name_with_its_number_places_no_crop_between_the_sides(why: str) -> None:
    reading = OcrReading("S2", 0.2, 2, 0.95)
    assert with_ocr(doubted("S2", why, 0.4, 0.6), reading, NUMBERED_ON).label is None
    between = OcrBars(numbered_sure=0.1, numbered_number=0.9, numbered_between=True)
    assert with_ocr(doubted("S2", why, 0.4, 0.6), reading, between).label == "S2"
    # The other side's abstentions are never made bonus tiles by it.
    assert with_ocr(first(None, UNSURE), reading, between).label is None
