"""The bonus gate: a second look, by the bonus-tile reader (vision/bonus.py), at crops whose
first look is or may be a bonus tile, and the rule that puts each among the flowers and
seasons or among the other kinds, or abstains (a flower read as a bamboo changes a score, an
abstention makes the table ask)."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from vision.bonus import BONUS_KINDS, DEFAULT_SURE, BonusReading
from vision.embedder import MODELS_DIR, ModelError
from vision.identity import (
    DEFAULT_THRESHOLD,
    DOUBTED,
    NUMBER,
    OTHER_UNSURE,
    SIDES,
    UNREAD,
    Identity,
)

BARS_FILE = "gate_bars.json"
# The kinds a set's flowers and seasons have been named as, sure and near their prototypes
# (bench/vision/crossings.py, choose_bars.py): the dragons and the one bamboo, pictures each
# maker draws its own way, and the blank spare (a drawn flower with a small name).
NEAR_BONUS = ("RD", "GD", "WD", "1B", "BLANK")


@dataclass(frozen=True)
class GateBars:
    """The bars of the decision. The defaults are those chosen by hand before the bars were
    chosen by a script; the ones in use are ``vision/models/gate_bars.json``
    (``bench/vision/choose_bars.py`` writes it, :func:`default_bars` reads it).

    ``keep_first_look_above``: a first look this sure of a bonus tile is kept when the gate
    puts the crop among the bonus tiles, whatever the reader names (the table's own enrolled
    set is named right more often than any reading of its print).

    ``gate_below``, ``gate_share``, ``gate_similarity`` (:func:`gated`): a crop whose first
    look abstained, is less like its kind's prototypes than ``gate_similarity``, names a bonus
    tile less surely than ``gate_below``, or puts ``gate_share`` of its probability on the
    bonus tiles is read by the reader. The two looks' evidence that it is some bonus tile is
    added as log-odds (the first look's bonus share weighted ``share_weight``, the reader's
    bonus probability 1): at ``side_margin`` or more the crop is a bonus tile, at
    ``-side_margin`` or less it is not, between the two it is abstained on.

    ``read_sure``: on the bonus side the reader's name is taken when it holds this much of
    the reader's bonus probability and the number it reads agrees; ``agree``: a bonus kind
    both looks put first is answered when each gives it this much of its bonus probability.

    ``fused_sure``: else the reader's reading by parts (name and number together,
    ``BonusReading.fused``) is taken when its probability reaches this bar, its group and
    number agree with the reader's, and the first look itself leans to the bonus tiles (at
    least ``fused_lean`` of its probability on them): never on the reader's word alone.

    ``unlike_below``, ``doubt``: a crop less like its kind's prototypes than ``unlike_below``
    is abstained on when the reader gives the other side more than ``doubt`` (or, put among
    the suits and honours, the first look gives the bonus tiles more than ``doubt``), unless
    the reader reads the bonus tile the first look put first.

    ``doubt_evidence``: put among the other kinds, a crop the first look names as one of them
    is not abstained on for doubt when the two looks' evidence is ``-doubt_evidence`` or less
    (each look's doubt small, together plain: a held-out set's white dragon named 0.73 sure
    with 12 % on the bonus tiles, the reader 0.03: -5.5).

    ``certain_side``: the first look's bonus share that decides the side alone.

    ``again_side`` (:func:`after_shifted_look`): a crop the gate names a bonus tile on a
    first look that had no second look is looked at again through shifted copies, and
    abstained on when those put less than ``again_side`` of their probability on the bonus
    tiles (green dragons at 18 px named a flower 0.79-0.87 sure, the shifted copies 0.32-0.66
    on the bonus tiles). ``again_below``: only a crop less like its prototypes than this is
    looked at again (each look again is a network run of four copies).

    ``clear_confidence``, ``clear_share``, ``clear_read``, ``number_read``
    (:func:`plainly_other`): a crop unlike its prototypes is still named as the first look's
    suit or honour when the first look names it this sure with under ``clear_share`` on the
    bonus tiles, the reader gives them under ``clear_read``, and reads no bonus tile's
    number ``number_read`` sure.

    ``near_bonus``: a first look naming a suit or honour with this much of its probability on
    the bonus tiles is never put among the bonus tiles unless the reader names the very bonus
    tile the first look put first (or the first look is ``certain_side``).

    ``keep_similarity``: the first look's own bonus tile is kept on the bonus side only when
    the crop is this like its prototypes, or the reader reads that very tile (``agree`` of
    its bonus probability): a green dragon of a set far from every one enrolled was named a
    flower 0.7 sure while the reader read a season. ``keep_share``: it also stands when the
    first look puts this much of its probability on the bonus tiles (an enrolled set's own
    bonus tiles far from their prototypes: 0.94 and more; dragons and one bamboos named a
    bonus tile in the width sweep: 0.78-0.91).

    ``reader_veto``: put among the other kinds, a crop the reader gives this much bonus
    probability is abstained on when it is less like its prototypes than ``veto_similarity``
    (a flower named green dragon 0.998 sure and 0.82 like its prototypes, the reader 0.82 sure
    of a bonus tile; an enrolled set's own one bamboo, a bird the reader takes for a bonus
    tile, sits 0.9 or more like its prototypes).

    ``near_share``: a first look naming a dragon, the one bamboo or a blank, the kinds most often
    confused with a set's bonus pictures (:data:`NEAR_BONUS`), is read by the reader from
    this bonus share on (``gate_share`` for the other kinds).
    """

    keep_first_look_above: float = 0.7
    gate_below: float = 0.9
    gate_share: float = 0.01
    gate_similarity: float = 0.75
    share_weight: float = 1.0
    side_margin: float = 2.0
    read_sure: float = DEFAULT_SURE
    agree: float = 0.5
    fused_sure: float = 1.01  # above any probability: off
    fused_lean: float = 0.5
    unlike_below: float = 0.82
    doubt: float = 0.1
    doubt_evidence: float = 99.0  # beyond any two looks' log-odds: off
    certain_side: float = 0.999
    again_side: float = 0.0  # no probability is below it: off
    again_below: float = 1.01  # above any similarity: every such crop
    clear_confidence: float = 0.7
    clear_share: float = 0.02
    clear_read: float = 0.3
    number_read: float = 0.7
    near_bonus: float = 1.01  # above any probability: off
    keep_similarity: float = 0.0
    keep_share: float = 0.93
    reader_veto: float = 1.01  # above any probability: off
    veto_similarity: float = 0.9
    near_share: float = 0.01

    @classmethod
    def from_file(cls, path: Path) -> GateBars:
        """The bars stored at ``path`` (its "bars" object; a bar it does not name keeps its
        default), or a :class:`ModelError` naming the file and what is wrong with it."""
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise ModelError(
                f"{path}: the gate's bars are not readable JSON: {exc!s:.200}"
            ) from None
        bars = stored.get("bars") if isinstance(stored, dict) else None
        if not isinstance(bars, dict):
            raise ModelError(f'{path}: no "bars" object')
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(bars) - known)
        if unknown:
            raise ModelError(f"{path}: unknown bars {', '.join(unknown)}")
        for name, value in bars.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ModelError(f"{path}: bar {name} is {value!r}, not a number")
        return cls(**{k: float(v) for k, v in bars.items()})


_DEFAULT_BARS: list[GateBars] = []


def default_bars() -> GateBars:
    """The bars stored beside the models (``vision/models/gate_bars.json``), read once; the
    defaults where the file is not installed."""
    if not _DEFAULT_BARS:
        path = MODELS_DIR / BARS_FILE
        _DEFAULT_BARS.append(GateBars.from_file(path) if path.exists() else GateBars())
    return _DEFAULT_BARS[0]


def gated(first: Identity, bars: GateBars | None = None) -> bool:
    """Whether the bonus gate reads a crop: its first look abstained, found it less like its
    best kind's nearest prototype than ``gate_similarity`` (a tile of a set never enrolled,
    however sure the softmax), named a bonus tile less surely than ``gate_below``, or named
    another kind with at least ``gate_share`` of its probability on the bonus tiles. (A
    table's own enrolled set puts next to nothing on the bonus tiles for its other kinds:
    the gate reads about one crop a frame of it.)"""
    bars = bars or default_bars()
    if first.label is None or first.similarity < bars.gate_similarity:
        return True
    if first.best in BONUS_KINDS:
        return first.confidence < bars.gate_below
    if first.best in NEAR_BONUS:
        return first.bonus_share >= min(bars.near_share, bars.gate_share)
    return first.bonus_share >= bars.gate_share


def settled(first: Identity, bars: GateBars | None = None) -> Identity | None:
    """The gate's answer for a gated crop whose first look decides it whatever the reader
    reads, else None (the reader's run is not needed for it). One such crop: a bonus tile
    named at least ``keep_first_look_above`` sure with ``certain_side`` of its probability on
    the bonus tiles (an enrolled set's own flower, less sure than ``gate_below`` of which one).
    :func:`gate` then decides the side without the reader (``certain``) and keeps the first
    look's tile before anything the reader says is weighed (``_bonus_side``; ``_kept`` holds
    by its ``certain_side`` share)."""
    bars = bars or default_bars()
    if first.label not in BONUS_KINDS or first.bonus_share < bars.certain_side:
        return None
    if first.confidence < bars.keep_first_look_above:
        return None
    return _how(first, "bonus: first look kept")


def gate(
    first: Identity,
    reading: BonusReading,
    threshold: float = DEFAULT_THRESHOLD,
    bars: GateBars | None = None,
) -> Identity:
    """A gated crop's answer from its first look and the bonus-tile reader's reading: the
    side from both looks' evidence, then that side's answer (:func:`_bonus_side`,
    :func:`_other_side`); between the sides, an abstention. ``Identity.how`` says which
    path of the decision gave the answer."""
    bars = bars or default_bars()
    evidence = bonus_evidence(first, reading, bars)
    # A first look with certain_side of its probability on the bonus tiles has decided the
    # side (only which flower or season is open): a reader that cannot read a set's print
    # (scans a few pixels tall) does not overrule the table's own enrolment.
    certain = first.bonus_share >= bars.certain_side
    if abs(evidence) < bars.side_margin and not certain:
        return _how(first.abstained(SIDES), "sides")
    # A crop unlike what the first look named it: the reader's doubt alone is enough, unless
    # it reads the very bonus tile the first look put first.
    doubt = reading.bonus_probability if evidence < 0 else 1.0 - reading.bonus_probability
    if evidence < 0:
        # Among the other kinds either look's doubt counts: a held-out set's flowers were
        # named green dragon, far from every one enrolled, with a sixth of the first look
        # on the bonus tiles and the reader unable to read them.
        doubt = max(doubt, first.bonus_share)
    confirmed = evidence > 0 and reading.best_bonus == first.best_bonus
    plain = plainly_other(first, reading, bars)
    # Among the others, both looks together this far from the bonus tiles outweigh the doubt.
    apart = evidence <= -bars.doubt_evidence and _named_other(first)
    if (
        first.similarity < bars.unlike_below
        and doubt > bars.doubt
        and not (confirmed or certain or plain or apart)
    ):
        return _how(first.abstained(DOUBTED), "doubted")
    if evidence > 0 and not certain and _named_other_near_bonus(first, bars) and not confirmed:
        # A suit or honour named by the first look, which leans to the bonus tiles, becomes
        # a bonus tile only when the reader names the bonus tile the first look put first.
        return _how(first.abstained(SIDES), "near bonus, reader elsewhere")
    if evidence > 0 or certain:
        return _bonus_side(first, reading, threshold, bars)
    if reading.bonus_probability >= bars.reader_veto and first.similarity < bars.veto_similarity:
        return _how(first.abstained(SIDES), "other, reader vetoes")
    return _other_side(first, threshold)


def looks_again(first: Identity, answer: Identity, retry_below: float) -> bool:
    """Whether a crop the gate doubts or cannot place (``answer``), that had no second look
    (its ``first`` look was ``retry_below`` sure), is looked at again through shifted copies:
    they bring a crop of a set never enrolled nearer its kind (on the mixed sets: held-out
    sets 70.5 to 71.9 % right, no more wrong; 0.5-1.2 % of the other sets' crops looked at
    again, where looking again at every crop unlike its prototypes took 3-4 %)."""
    return bool(retry_below) and answer.why in (DOUBTED, SIDES) and first.confidence >= retry_below


def named_bonus_again(
    first: Identity, answer: Identity, retry_below: float, bars: GateBars
) -> bool:
    """Whether :func:`after_shifted_look` needs the shifted copies' look of a crop: named a
    bonus tile (``answer``) on a ``first`` look that had no second look (it was
    ``retry_below`` sure), less like its prototypes than ``again_below``."""
    return (
        bool(retry_below)
        and bars.again_side > 0
        and answer.label in BONUS_KINDS
        and first.confidence >= retry_below
        and first.similarity < bars.again_below
    )


def after_shifted_look(
    first: Identity, answer: Identity, shifted: Identity, retry_below: float, bars: GateBars
) -> Identity:
    """``answer``, or an abstention where the ``shifted`` copies' look of a crop that needs
    it (:func:`named_bonus_again`) puts less than ``again_side`` of its probability on the
    bonus tiles."""
    elsewhere = shifted.bonus_share < bars.again_side
    if elsewhere and named_bonus_again(first, answer, retry_below, bars):
        return _how(answer.abstained(SIDES), "bonus, shifted copies elsewhere")
    return answer


def gate_again(
    seen: Identity, reading: BonusReading, threshold: float, bars: GateBars | None = None
) -> Identity:
    """The answer from the shifted copies' look (``seen``) and the same reading."""
    return gate(seen, reading, threshold, bars) if gated(seen, bars) else seen


def _named_other(first: Identity) -> bool:
    """The first look named a kind that is not a bonus tile."""
    return first.label is not None and first.label not in BONUS_KINDS


def _named_other_near_bonus(first: Identity, bars: GateBars) -> bool:
    return _named_other(first) and first.bonus_share >= bars.near_bonus


def plainly_other(first: Identity, reading: BonusReading, bars: GateBars | None = None) -> bool:
    """Both looks put the crop plainly among the other kinds, and the first look named one
    (``clear_confidence``, ``clear_share``, ``clear_read``, ``number_read``)."""
    bars = bars or default_bars()
    named = _named_other(first)
    reads_a_number = (
        reading.number == int(reading.best_bonus[1])
        and reading.number_confidence >= bars.number_read
    )
    return (
        named
        and first.confidence >= bars.clear_confidence
        and first.bonus_share < bars.clear_share
        and reading.bonus_probability < bars.clear_read
        and not reads_a_number
    )


def _bonus_side(
    first: Identity, reading: BonusReading, threshold: float, bars: GateBars
) -> Identity:
    """The first look's bonus tile when it is ``keep_first_look_above`` sure; else the
    reader's when it reads the name sure and the number agrees; else the first look's bonus
    tile if it named one; else the reading by parts (:func:`_fused`); else the bonus kind
    both looks put first, when each gives it at least ``agree`` of its bonus probability and
    the crop is like something enrolled; else an abstention."""
    named = first.label in BONUS_KINDS and _kept(first, reading, bars)
    if named and first.confidence >= bars.keep_first_look_above:
        return _how(first, "bonus: first look kept")
    read = reading.best_bonus
    # No answer is surer than the recogniser's own bar allows (``threshold``).
    sure_name = reading.best_bonus_share >= max(bars.read_sure, threshold)
    if sure_name and reading.number == int(read[1]):
        answer = replace(first, label=read, confidence=reading.best_bonus_share, best=read)
        return _how(answer, "bonus: reader's name")
    if named:
        return _how(first, "bonus: first look's bonus tile")
    fused = _fused(first, reading, threshold, bars)
    if fused is not None:
        return fused
    agreed = first.best_bonus == reading.best_bonus and first.similar
    if agreed and min(first.bonus_confidence, reading.best_bonus_share) >= max(
        bars.agree, threshold
    ):
        answer = replace(first, label=reading.best_bonus, best=reading.best_bonus)
        return _how(answer, "bonus: both looks agree")
    return _how(first.abstained(NUMBER if sure_name else UNREAD), "bonus: unread")


def _kept(first: Identity, reading: BonusReading, bars: GateBars) -> bool:
    """Whether the first look's own bonus tile may stand: the crop is ``keep_similarity``
    like its prototypes, the first look puts ``keep_share`` (or ``certain_side``) of its
    probability on the bonus tiles, or the reader reads that very tile with ``agree`` of its
    bonus probability."""
    return (
        first.similarity >= bars.keep_similarity
        or first.bonus_share >= min(bars.keep_share, bars.certain_side)
        or (reading.best_bonus == first.label and reading.best_bonus_share >= bars.agree)
    )


def _fused(
    first: Identity, reading: BonusReading, threshold: float, bars: GateBars
) -> Identity | None:
    """The reader's reading by parts, where it holds ``fused_sure`` (and the recogniser's
    ``threshold``), names a tile of the group the reader reads with the number it reads,
    and the first look itself gives the bonus tiles at least ``fused_lean``; else None."""
    kind = reading.fused_label(max(bars.fused_sure, threshold))
    # Like the agreement of both looks, only for a crop like something enrolled (not noise).
    if kind is None or first.bonus_share < bars.fused_lean or not first.similar:
        return None
    if kind[0] != reading.group or int(kind[1]) != reading.number:
        return None
    answer = replace(
        first,
        label=kind,
        best=kind,
        confidence=reading.bonus_probability * reading.fused_share,
        why=None,
    )
    return _how(answer, "bonus: read by parts")


def _other_side(first: Identity, threshold: float) -> Identity:
    """The first look's answer when it named no bonus tile; a bonus tile it named becomes its
    likeliest other kind when that holds ``threshold`` of the others' probability; else an
    abstention."""
    if first.label is not None and first.label not in BONUS_KINDS:
        return _how(first, "other: first look")
    other = first.best_other
    if first.label is not None and other is not None and first.other_confidence >= threshold:
        answer = replace(first, label=other, confidence=first.other_confidence, best=other)
        return _how(answer, "other: best other kind")
    return _how(first.abstained(None if first.label is None else OTHER_UNSURE), "other: unsure")


def bonus_evidence(first: Identity, reading: BonusReading, bars: GateBars | None = None) -> float:
    """The two looks' evidence that a crop is some bonus tile, as log-odds: the first look's
    bonus share weighted ``share_weight``, plus the reader's bonus probability."""
    bars = bars or default_bars()
    return bars.share_weight * _logit(first.bonus_share) + _logit(reading.bonus_probability)


def _how(answer: Identity, how: str) -> Identity:
    return replace(answer, how=how)


def _logit(p: float) -> float:
    p = min(max(p, 0.01), 0.99)
    return float(np.log(p / (1 - p)))
