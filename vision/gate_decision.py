"""The bonus gate's answer for one crop from its recorded looks, the decision written once:
the recogniser (vision/identify.py ``Recogniser.bonus_look``) calls it on the looks it has
batched, the benchmarks (bench/vision/gate_looks.py) on looks kept from a scan. The text look
(vision/bonus_ocr.py) comes after it."""

from __future__ import annotations

from vision.bonus import BonusReading
from vision.bonus_gate import (
    GateBars,
    after_shifted_look,
    gate,
    gate_again,
    gated,
    looks_again,
    named_bonus_again,
    settled,
)
from vision.identity import Identity


def decide(
    first: Identity,
    reading: BonusReading | None,
    shifted: Identity | None,
    threshold: float,
    retry_below: float,
    bars: GateBars,
) -> Identity:
    """The gate's answer for a crop: its ``first`` look where it is not gated; the answer its
    first look settles alone (:func:`settled`), else :func:`gate`'s from the bonus-tile
    reader's ``reading``; then, with the look through ``shifted`` copies (None: not taken),
    the gate again from that look where it doubts or cannot place the crop
    (:func:`looks_again`, only for a crop it read), then :func:`after_shifted_look`.
    ``retry_below``: the recogniser's bar for a second look (0: none, nor a shifted look).
    A gated crop its first look does not settle needs its ``reading``: a ValueError else."""
    if not gated(first, bars):
        return first
    answer = settled(first, bars)
    if answer is None:
        if reading is None:
            raise ValueError(
                f"the bonus gate needs the reader's reading of a crop first named {first.label}"
                f" ({first.confidence:.3f} sure, {first.bonus_share:.3f} on the bonus tiles):"
                " its first look does not settle it"
            )
        answer = gate(first, reading, threshold, bars)
        if shifted is not None and looks_again(first, answer, retry_below):
            answer = gate_again(shifted, reading, threshold, bars)
    if shifted is None:
        return answer
    return after_shifted_look(first, answer, shifted, retry_below, bars)


def wants_shifted(first: Identity, answer: Identity, retry_below: float, bars: GateBars) -> bool:
    """Whether the look through shifted copies may change :func:`decide`'s ``answer`` without
    it: the gate doubts or cannot place a crop it read (one its first look does not settle),
    or names a bonus tile that look may put elsewhere (:func:`named_bonus_again`). Never for a
    crop the gate passes (not :func:`gated`), a table's own sure bonus tiles among them."""
    if not gated(first, bars):
        return False
    read = settled(first, bars) is None
    again = read and looks_again(first, answer, retry_below)
    return again or named_bonus_again(first, answer, retry_below, bars)
