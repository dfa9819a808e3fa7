"""The bonus gate: a second look, by the bonus-tile reader (vision/bonus.py), at crops whose
first look is or may be a bonus tile, and the rule that puts each among the flowers and
seasons or among the other kinds, or abstains (a flower read as a bamboo changes a score, an
abstention makes the table ask)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.bonus import BONUS_KINDS, DEFAULT_SURE, BonusReading
from vision.identity import (
    DEFAULT_THRESHOLD,
    DOUBTED,
    NUMBER,
    OTHER_UNSURE,
    SIDES,
    UNREAD,
    Identity,
)

# A first look this sure of a bonus tile is kept when the gate puts the crop among the bonus
# tiles, whatever the reader names: the table's own enrolled set is named right more often
# than any reading of its print (mixed sets, the enrolled ones' bonus tiles: 87.9 % right
# without the reader, 81.8 % with it at 0.9; bench/vision/README.md, bonus tiles).
KEEP_FIRST_LOOK_ABOVE = 0.7
# The bonus gate (Recogniser.bonus_look, :func:`gated`): a crop whose first look abstained,
# is less like its kind's prototypes than GATE_SIMILARITY, names a bonus tile less surely
# than GATE_BELOW, or puts GATE_SHARE of its probability on the bonus tiles is read by the
# bonus-tile reader, and the two looks' evidence that it is some bonus tile is added as
# log-odds (the first look's bonus share weighted SHARE_WEIGHT, the reader's bonus
# probability 1). At SIDE_MARGIN or more the crop is a bonus tile, at -SIDE_MARGIN or less it
# is not, between the two it is abstained on: a flower read as a bamboo changes a score, an
# abstention makes the table ask. Chosen on mixed-set crops of seeds the benchmark does not
# use (bench/vision/README.md, fourteenth round).
GATE_BELOW = 0.9
GATE_SHARE = 0.01
GATE_SIMILARITY = 0.75
SHARE_WEIGHT = 1.0
SIDE_MARGIN = 2.0
# On the bonus side, the reader's name is taken when it holds READ_SURE of the reader's bonus
# probability and the number it reads agrees; and a bonus kind both looks put first is
# answered when each gives it AGREE of its bonus probability, though neither alone is sure.
READ_SURE = DEFAULT_SURE
AGREE = 0.5
# A crop less like its kind's prototypes than UNLIKE_BELOW is abstained on when the reader
# gives the other side more than DOUBT (or, put among the suits and honours, the first look
# gives the bonus tiles more than DOUBT), however the evidence adds up (unless the reader
# reads the bonus tile the first look put first).
UNLIKE_BELOW = 0.82
DOUBT = 0.1
# The first look's bonus share that decides the side alone (:func:`gate`).
CERTAIN_SIDE = 0.999
# A crop unlike its prototypes is still named as the first look's kind, whatever the doubt
# rule above says, when both looks put it plainly among the other kinds: the first look
# names a suit or honour with CLEAR_CONFIDENCE, puts under CLEAR_SHARE on the bonus tiles,
# and the reader under CLEAR_READ. Chosen on the training sets' crops with their own art out
# of the bundled prototypes (bench_vision.py part 2), where no bar up to 0.1 / 0.5 named one
# of these wrong; the strictest bars that keep half of what that gains, because on sets the
# network never saw a looser share let a bonus tile through as a suit tile.
CLEAR_CONFIDENCE = 0.7
CLEAR_SHARE = 0.02
CLEAR_READ = 0.3
# ... and the reader reads no bonus tile's number: none it reads NUMBER_READ sure that is its
# likeliest bonus tile's (a held-out set's SUMMER, named East wind, was read "3" at 0.8).
NUMBER_READ = 0.7


def gated(first: Identity) -> bool:
    """Whether the bonus gate reads a crop: its first look abstained, found it less like its
    best kind's nearest prototype than ``GATE_SIMILARITY`` (a tile of a set never enrolled,
    however sure the softmax), named a bonus tile less surely than ``GATE_BELOW``, or named
    another kind with at least ``GATE_SHARE`` of its probability on the bonus tiles. (A
    table's own enrolled set puts next to nothing on the bonus tiles for its other kinds:
    the gate reads about one crop a frame of it.)"""
    if first.label is None or first.similarity < GATE_SIMILARITY:
        return True
    if first.best in BONUS_KINDS:
        return first.confidence < GATE_BELOW
    return first.bonus_share >= GATE_SHARE


def gate(first: Identity, reading: BonusReading, threshold: float = DEFAULT_THRESHOLD) -> Identity:
    """A gated crop's answer from its first look and the bonus-tile reader's reading: the
    side from both looks' evidence, then that side's answer (:func:`_bonus_side`,
    :func:`_other_side`); between the sides, an abstention."""
    evidence = bonus_evidence(first, reading)
    # A first look with CERTAIN_SIDE of its probability on the bonus tiles has decided the
    # side (only which flower or season is open): a reader that cannot read a set's print
    # (scans a few pixels tall) does not overrule the table's own enrolment.
    certain = first.bonus_share >= CERTAIN_SIDE
    if abs(evidence) < SIDE_MARGIN and not certain:
        return first.abstained(SIDES)
    # A crop unlike what the first look named it: the reader's doubt alone is enough, unless
    # it reads the very bonus tile the first look put first.
    doubt = reading.bonus_probability if evidence < 0 else 1.0 - reading.bonus_probability
    if evidence < 0:
        # Among the other kinds either look's doubt counts: a held-out set's flowers were
        # named green dragon, far from every one enrolled, with a sixth of the first look
        # on the bonus tiles and the reader unable to read them.
        doubt = max(doubt, first.bonus_share)
    confirmed = evidence > 0 and reading.best_bonus == first.best_bonus
    plain = plainly_other(first, reading)
    if first.similarity < UNLIKE_BELOW and doubt > DOUBT and not (confirmed or certain or plain):
        return first.abstained(DOUBTED)
    if evidence > 0 or certain:
        return _bonus_side(first, reading, threshold)
    return _other_side(first, threshold)


def plainly_other(first: Identity, reading: BonusReading) -> bool:
    """Both looks put the crop plainly among the other kinds, and the first look named one
    (``CLEAR_CONFIDENCE``, ``CLEAR_SHARE``, ``CLEAR_READ``, ``NUMBER_READ``)."""
    named = first.label is not None and first.label not in BONUS_KINDS
    reads_a_number = (
        reading.number == int(reading.best_bonus[1]) and reading.number_confidence >= NUMBER_READ
    )
    return (
        named
        and first.confidence >= CLEAR_CONFIDENCE
        and first.bonus_share < CLEAR_SHARE
        and reading.bonus_probability < CLEAR_READ
        and not reads_a_number
    )


def _bonus_side(first: Identity, reading: BonusReading, threshold: float) -> Identity:
    """The first look's bonus tile when it is ``KEEP_FIRST_LOOK_ABOVE`` sure; else the
    reader's when it reads the name sure and the number agrees; else the first look's bonus
    tile if it named one; else the bonus kind both looks put first, when each gives it at
    least ``AGREE`` of its bonus probability and the crop is like something enrolled; else
    an abstention."""
    named = first.label in BONUS_KINDS
    if named and first.confidence >= KEEP_FIRST_LOOK_ABOVE:
        return first
    read = reading.best_bonus
    # No answer is surer than the recogniser's own bar allows (``threshold``).
    if reading.best_bonus_share >= max(READ_SURE, threshold) and reading.number == int(read[1]):
        return replace(first, label=read, confidence=reading.best_bonus_share, best=read)
    if named:
        return first
    agreed = first.best_bonus == reading.best_bonus and first.similar
    if agreed and min(first.bonus_confidence, reading.best_bonus_share) >= max(AGREE, threshold):
        return replace(first, label=reading.best_bonus, best=reading.best_bonus)
    sure_name = reading.best_bonus_share >= max(READ_SURE, threshold)
    return first.abstained(NUMBER if sure_name else UNREAD)


def _other_side(first: Identity, threshold: float) -> Identity:
    """The first look's answer when it named no bonus tile; a bonus tile it named becomes its
    likeliest other kind when that holds ``threshold`` of the others' probability; else an
    abstention."""
    if first.label is not None and first.label not in BONUS_KINDS:
        return first
    other = first.best_other
    if first.label is not None and other is not None and first.other_confidence >= threshold:
        return replace(first, label=other, confidence=first.other_confidence, best=other)
    return first.abstained(None if first.label is None else OTHER_UNSURE)


def bonus_evidence(first: Identity, reading: BonusReading) -> float:
    """The two looks' evidence that a crop is some bonus tile, as log-odds: the first look's
    bonus share weighted ``SHARE_WEIGHT``, plus the reader's bonus probability."""
    return SHARE_WEIGHT * _logit(first.bonus_share) + _logit(reading.bonus_probability)


def _logit(p: float) -> float:
    p = min(max(p, 0.01), 0.99)
    return float(np.log(p / (1 - p)))
