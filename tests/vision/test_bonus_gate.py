"""The bonus gate's rules, one test each: the reason every abstention gives, and a crop unlike
its prototypes that both looks put plainly among the suits and honours."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import replace

import numpy as np
import pytest

from vision.bonus import BONUS_KINDS, NOT_BONUS, BonusReader, BonusReading
from vision.bonus_gate import (
    GateBars,
    default_bars,
    gate,
    gated,
    settled,
)
from vision.embedder import Embedder
from vision.identify import DEFAULT_MODEL_DIR, RETRY_SHIFT_PX, Recogniser
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
from vision.image import Image
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

from .conftest import HELD_OUT_ART

# The stored bars with the reader's veto off, so that each rule here is seen alone (the
# veto's own tests: tests/vision/test_gate_paths.py).
BARS = replace(default_bars(), reader_veto=1.01)


@pytest.fixture(autouse=True)
def _bars_without_the_veto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vision.bonus_gate._DEFAULT_BARS", [BARS])


def _first(label: str | None, conf: float, share: float, similarity: float = 0.95) -> Identity:
    """A first look naming ``label`` (its likeliest bonus kind F2, other kind 9D)."""
    return Identity(label, conf, label or "9D", share, "F2", 0.6, "9D", 0.9, True, similarity)


def _reading(bonus_p: float, share: float = 0.95, number: int = 2) -> BonusReading:
    """The reader: ``bonus_p`` on the bonus tiles, F2 its likeliest with ``share`` of that."""
    kind = "F2" if bonus_p >= 0.5 else "not-bonus"
    return BonusReading(kind, 0.9, number, 0.9, bonus_p, "F2", share)


def test_every_abstention_says_why() -> None:
    # The two looks cannot tell the side.
    assert gate(_first("9D", 0.9, 0.3), _reading(0.6)).why == SIDES
    # Far from its prototypes, and the reader gives the bonus tiles a third.
    far = _first("9D", 0.95, 0.001, BARS.unlike_below - 0.05)
    assert gate(far, _reading(0.35)).why == DOUBTED
    # A bonus tile by both looks, but the reader is unsure which, and so is the first look.
    assert gate(_first(None, 0.4, 0.99), _reading(0.99, share=0.4)).why == UNREAD
    # The reader is sure of the name but reads another number.
    other_flower = replace(_first(None, 0.4, 0.99), best_bonus="F3")
    assert gate(other_flower, _reading(0.99, number=3)).why == NUMBER
    # Not a bonus tile, and the first look's bonus tile has no sure other kind.
    unsure_other = replace(_first("F2", 0.55, 0.02), other_confidence=0.3)
    assert gate(unsure_other, _reading(0.001)).why == OTHER_UNSURE
    # An abstained first look keeps its own reason through the gate.
    assert gate(_first(None, 0.3, 0.0), _reading(0.001)).why == UNSURE
    unlike = replace(_first(None, 0.9, 0.0, 0.5), similar=False, why=UNLIKE)
    assert gate(unlike, _reading(0.001)).why == UNLIKE
    # An answer gives no reason.
    assert gate(_first("9D", 0.9, 0.02), _reading(0.001)).why is None


def test_a_crop_unlike_its_prototypes_both_looks_put_plainly_among_the_others_is_named() -> None:
    """Far from every 9D enrolled (a set never enrolled), yet named 9D surely, with next to
    nothing on the bonus tiles by either look: named 9D. Short of any one of the three bars
    the reader's doubt still makes the table ask."""
    far = _first("9D", BARS.clear_confidence, BARS.clear_share / 2, BARS.unlike_below - 0.05)
    doubt = BARS.clear_read - 0.05  # more than BARS.doubt: abstained on before this rule
    # (the reader's number, 3, is not its likeliest bonus tile's, F2's)
    assert gate(far, _reading(doubt, number=3)).label == "9D"
    assert gate(far, _reading(BARS.clear_read, number=3)).why == DOUBTED
    assert (
        gate(replace(far, bonus_share=BARS.clear_share), _reading(doubt, number=3)).why == DOUBTED
    )
    assert (
        gate(replace(far, confidence=BARS.clear_confidence - 0.01), _reading(doubt, number=3)).why
        == DOUBTED
    )
    # Only a suit or honour the first look named: never a bonus tile, never an abstention.
    named_bonus = replace(far, label="F2", best="F2")
    assert gate(named_bonus, _reading(doubt, number=3)).label != "F2"


def test_a_reader_reading_a_bonus_tiles_number_keeps_the_crop_in_doubt() -> None:
    """Named East wind plainly by both looks' bonus probability, but the reader reads a 3 sure
    and its likeliest bonus tile is S3 (a held-out set's SUMMER): still asked about."""
    far = _first("EW", 0.88, 0.01, BARS.unlike_below - 0.05)
    summer = BonusReading("not-bonus", 0.8, 3, BARS.number_read, 0.19, "S3", 0.35)
    assert gate(far, summer).why == DOUBTED
    assert gate(far, replace(summer, number_confidence=BARS.number_read - 0.1)).label == "EW"
    assert gate(far, replace(summer, number=2)).label == "EW"


def test_among_the_other_kinds_the_first_looks_own_doubt_counts() -> None:
    """Named green dragon, far from every one enrolled, the reader unable to read the crop:
    a sixth of the first look on the bonus tiles is doubt enough to ask; near its
    prototypes, or with less than BARS.doubt on the bonus tiles, it is named."""
    far = _first("GD", 0.6, 0.16, 0.66)
    unread = _reading(0.06)
    assert gate(far, unread).why == DOUBTED
    assert gate(replace(far, similarity=0.9), unread).label == "GD"
    assert gate(replace(far, bonus_share=BARS.doubt - 0.02), unread).label == "GD"


def test_a_crop_the_gate_doubts_gets_a_second_look_and_the_gate_again() -> None:
    """Of a set never enrolled, a crop the gate abstains on as doubted or unplaced, that was
    sure enough to have no second look, is named from its shifted copies' look through the
    gate again (with the same reading); every other crop keeps the gate's first answer."""
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    reader = recogniser.bonus_reader
    assert reader is not None
    rng = np.random.default_rng(8)
    crops = [synthetic_crop(face, rng) for face in load_set(HELD_OUT_ART).values()]
    vectors = recogniser.embed(crops)
    firsts = recogniser.second_look(crops, vectors, recogniser.identify_embeddings(vectors))
    once = recogniser.bonus_look(crops, firsts)  # without the vectors: no look again
    shifted = recogniser.identify_embeddings(
        recogniser.embedder.embed(crops, shift_px=RETRY_SHIFT_PX)
    )
    readings = reader.read(crops)
    again = [
        n
        for n, (first, answer) in enumerate(zip(firsts, once, strict=True))
        if answer.why in (DOUBTED, SIDES) and first.confidence >= recogniser.retry_below
    ]
    assert again
    now = recogniser.identify(crops)
    for n, (answer, got) in enumerate(zip(once, now, strict=True)):
        expected = answer
        if n in again:
            seen = shifted[n]
            expected = gate(seen, readings[n]) if gated(seen) else seen
        assert (got.label, got.why) == (expected.label, expected.why)
        assert got.confidence == pytest.approx(expected.confidence, abs=1e-4)
    assert any(now[n].confidence != pytest.approx(once[n].confidence, abs=1e-4) for n in again)


def test_a_crop_named_a_bonus_tile_on_a_sure_first_look_is_looked_at_again() -> None:
    """With ``again_side`` set, every crop the gate names a bonus tile whose first look was
    sure (no second look) is seen through shifted copies: at a bar above any share each of
    them is asked about, and every other crop keeps its answer (a crop never gated among
    them: a table's own sure bonus tiles cost no network run)."""
    rng = np.random.default_rng(8)
    faces = load_set(HELD_OUT_ART)
    bonus = [kind for kind in faces if kind in BONUS_KINDS]
    enrolment = [(kind, synthetic_crop(faces[kind], rng)) for kind in faces for _ in range(3)]
    recogniser = Recogniser.enrol(Embedder(), enrolment)  # the table's own set enrolled
    recogniser.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    crops = [synthetic_crop(faces[kind], rng) for kind in [*faces, *bonus] for _ in range(2)]
    before = recogniser.identify(crops)
    vectors = recogniser.embed(crops)
    firsts = recogniser.second_look(crops, vectors, recogniser.identify_embeddings(vectors))
    recogniser.bars = replace(BARS, again_side=1.01, again_below=1.01)
    after = recogniser.identify(crops)
    sure = [
        n
        for n, (first, answer) in enumerate(zip(firsts, before, strict=True))
        if answer.label in BONUS_KINDS and first.confidence >= recogniser.retry_below
    ]
    asked = [n for n in sure if gated(firsts[n], recogniser.bars)]
    assert asked and len(asked) < len(sure)
    for n, (answer, got) in enumerate(zip(before, after, strict=True)):
        if n in asked:
            assert (got.label, got.why, got.how) == (None, SIDES, "bonus, shifted copies elsewhere")
        else:
            assert got == answer


def _random_reading(rng: np.random.Generator) -> BonusReading:
    """Any reading the reader could give, extremes included."""
    kinds = (*BONUS_KINDS, NOT_BONUS)
    bonus_p = float(rng.choice([0.0, 1.0, rng.uniform()]))
    return BonusReading(
        str(rng.choice(kinds)),
        float(rng.uniform()),
        int(rng.integers(1, 5)),
        float(rng.uniform()),
        bonus_p,
        str(rng.choice(BONUS_KINDS)),
        float(rng.choice([1.0, rng.uniform(0.125, 1.0)])),
        str(rng.choice(["F", "S"])),
        float(rng.uniform(0.5, 1.0)),
        str(rng.choice(BONUS_KINDS)),
        float(rng.uniform()),
    )


@pytest.mark.parametrize(
    "bars",
    [BARS, default_bars(), replace(BARS, keep_similarity=0.85, reader_veto=0.25, near_bonus=0.05)],
)
def test_a_crop_its_first_look_settles_is_answered_so_whatever_the_reader_reads(
    bars: GateBars,
) -> None:
    """A bonus tile named keep_first_look_above sure with certain_side of the first look on
    the bonus tiles: the gate keeps it, near its prototypes or far, whatever the reading."""
    rng = np.random.default_rng(33)
    firsts = [
        replace(
            _first(kind, conf, share, similarity),
            best_bonus=kind,
            bonus_confidence=float(rng.uniform(0.5, 1.0)),
        )
        for kind in ("F2", "S4")
        for conf in (bars.keep_first_look_above, (bars.keep_first_look_above + 1) / 2)
        for share in (bars.certain_side, 1.0)
        for similarity in (0.3, bars.unlike_below - 0.01, 0.95)
    ]
    for first in firsts:
        assert gated(first, bars)
        answer = settled(first, bars)
        assert answer is not None and answer.label == first.label
        for _ in range(300):
            assert gate(first, _random_reading(rng), bars=bars) == answer


def test_short_of_any_bar_of_the_settled_crops_the_reading_counts() -> None:
    """A little less sure of its bonus tile, or of the bonus side, or abstained: not settled,
    and the reader changes the gate's answer."""
    sure = replace(_first("F2", BARS.keep_first_look_above, BARS.certain_side), best_bonus="F2")
    assert settled(sure) is not None
    less_sure = replace(sure, confidence=BARS.keep_first_look_above - 0.01)
    less_bonus = replace(sure, bonus_share=BARS.certain_side - 0.005)
    abstained = sure.abstained()
    reads_f3 = BonusReading("F3", 0.95, 3, 0.95, 0.99, "F3", 0.96)
    reads_nothing = _reading(0.001)
    for first in (less_sure, less_bonus, abstained):
        assert settled(first) is None
        assert gate(first, reads_f3) != gate(first, reads_nothing)


class _CountingReader(BonusReader):
    """The package's reader, counting the crops it is asked to read."""

    def __init__(self) -> None:
        super().__init__()
        self.read_crops: list[int] = []

    def read(self, crops: Sequence[Image], helper: Executor | None = None) -> list[BonusReading]:
        self.read_crops += [id(c) for c in crops]
        return super().read(crops, helper)


def test_the_gate_reads_no_crop_its_first_look_settles() -> None:
    """Of the gated crops, those settled are answered without the reader, the others as the
    gate answers from their reading."""
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    reader = _CountingReader()
    recogniser.bonus_reader = reader
    rng = np.random.default_rng(9)
    crops = [synthetic_crop(face, rng) for face in load_set(HELD_OUT_ART).values()]
    firsts = recogniser.identify_embeddings(recogniser.embed(crops))
    # Every third crop made a sure, gated flower of the first look.
    flower = dict(label="F1", best="F1", best_bonus="F1", bonus_share=0.9995, confidence=0.8)
    firsts = [replace(f, **flower) if n % 3 == 0 else f for n, f in enumerate(firsts)]  # type: ignore[arg-type]
    answers = recogniser.bonus_look(crops, firsts)
    read = set(reader.read_crops)
    assert read
    for crop, first, answer in zip(crops, firsts, answers, strict=True):
        if not gated(first):
            assert id(crop) not in read and answer == first
        elif settled(first) is not None:
            assert id(crop) not in read and answer == settled(first)
        else:
            assert id(crop) in read
            assert answer == gate(first, BonusReader().read([crop])[0])
