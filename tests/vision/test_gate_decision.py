"""The bonus gate's decision written once (vision/gate_decision.py): the recogniser, which
batches the readings and the shifted looks, answers every crop as :func:`decide` answers it
from that crop's own looks, on every path of the gate."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.bonus import BONUS_KINDS
from vision.bonus_gate import NEAR_BONUS, default_bars, gated, settled
from vision.gate_decision import decide, wants_shifted
from vision.identify import DEFAULT_MODEL_DIR, RETRY_SHIFT_PX, Recogniser
from vision.identity import UNSURE, Identity
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

from .conftest import HELD_OUT_ART

# Every path of the gate (``Identity.how``; None: never gated).
PATHS = {
    None,
    "bonus: first look kept",
    "sides",
    "doubted",
    "near bonus, reader elsewhere",
    "other, reader vetoes",
    "bonus: reader's name",
    "bonus: first look's bonus tile",
    "bonus: read by parts",
    "bonus: both looks agree",
    "bonus: unread",
    "other: first look",
    "other: best other kind",
    "other: unsure",
    "bonus, shifted copies elsewhere",
}
# The stored bars, and bars that open the paths they keep shut (the reading by parts, the
# reader's veto, the near-bonus rule, every sure bonus tile looked at again).
OPEN = replace(
    default_bars(),
    fused_sure=0.6,
    reader_veto=0.3,
    veto_similarity=1.01,
    near_bonus=0.05,
    again_side=1.01,
    again_below=1.01,
)
OTHER_KINDS = ("1B", "5C", "9D", "EW", "RD", "GD", "WD")


def _first_look(rng: np.random.Generator, kind: str = "") -> Identity:
    """Any first look the recogniser could give, sure and unsure, on either side; of a crop
    of a bonus ``kind``, its likeliest bonus tile that kind half the time."""
    label = rng.choice([*BONUS_KINDS, *OTHER_KINDS, *NEAR_BONUS, ""])
    share = float(rng.choice([0.0, 0.005, 0.05, rng.uniform(), 0.95, 0.99, 0.9995, 1.0]))
    best_bonus = kind if kind in BONUS_KINDS and rng.uniform() < 0.5 else rng.choice(BONUS_KINDS)
    best_other = str(rng.choice(OTHER_KINDS))
    named = str(label) or None
    return Identity(
        named,
        float(rng.choice([rng.uniform(0.3, 0.7), rng.uniform(0.7, 1.0), 0.999])),
        named or best_other,
        share,
        str(best_bonus),
        float(rng.uniform()),
        best_other,
        float(rng.uniform()),
        bool(rng.uniform() < 0.9),
        float(rng.uniform(0.6, 1.0)),
        None if named else UNSURE,
    )


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    recogniser.bonus_ocr = None  # the text look comes after the gate's decision
    return recogniser


def test_the_recogniser_answers_every_crop_as_the_decision_does(recogniser: Recogniser) -> None:
    """Crops of a set never enrolled, each given first looks of every kind; the recogniser
    batches the reader's readings (none for a crop settled by its first look) and the shifted
    looks (only of crops whose answer they may change), the decision takes each crop's own.
    Between them, the stored bars and the open ones take every path of the gate."""
    assert recogniser.bonus_reader is not None
    rng = np.random.default_rng(33)
    faces = load_set(HELD_OUT_ART)
    kinds = [kind for kind in faces for _ in range(8)]
    crops = [synthetic_crop(faces[kind], rng) for kind in kinds]
    firsts = [_first_look(rng, kind) for kind in kinds]
    vectors = recogniser.embed(crops)
    readings = recogniser.bonus_reader.read(crops)
    shifted = recogniser.identify_embeddings(
        recogniser.embedder.embed(crops, shift_px=RETRY_SHIFT_PX, unshifted=vectors)
    )
    threshold, retry = recogniser.threshold, recogniser.retry_below
    paths: set[str | None] = set()
    for bars in (default_bars(), OPEN):
        recogniser.bars = bars
        got = recogniser.bonus_look(crops, firsts, vectors)
        for first, reading, look, answer in zip(firsts, readings, shifted, got, strict=True):
            # A settled crop was never read: its answer needs no reading.
            asked = None if settled(first, bars) else reading
            said = decide(first, asked, look, threshold, retry, bars)
            assert (answer.label, answer.why, answer.how) == (said.label, said.why, said.how)
            assert answer.confidence == pytest.approx(said.confidence, abs=1e-4)
            paths.add(answer.how)
    assert paths == PATHS


def test_without_the_shifted_look_the_answer_is_the_gates_own(recogniser: Recogniser) -> None:
    """Before the shifted look (None), a crop's answer is the gate's on its first look, and
    the shifted look is asked for only where it may change that answer."""
    assert recogniser.bonus_reader is not None
    rng = np.random.default_rng(34)
    faces = load_set(HELD_OUT_ART)
    crops = [synthetic_crop(faces[kind], rng) for kind in faces]
    readings = recogniser.bonus_reader.read(crops)
    retry = recogniser.retry_below
    for reading in readings:
        first = _first_look(rng)
        before = decide(first, reading, None, recogniser.threshold, retry, OPEN)
        if not gated(first, OPEN):
            assert before == first and not wants_shifted(first, before, retry, OPEN)
        elif not wants_shifted(first, before, retry, OPEN):
            # A shifted look where none is wanted changes nothing.
            again = decide(first, reading, first, recogniser.threshold, retry, OPEN)
            assert again == before


def test_a_crop_the_first_look_does_not_settle_needs_its_reading() -> None:
    first = Identity("F2", 0.6, "F2", 0.6, "F2", 0.6, "9D", 0.5, True, 0.8)
    with pytest.raises(ValueError, match="reader's reading of a crop first named F2"):
        decide(first, None, None, 0.5, 0.7, default_bars())
