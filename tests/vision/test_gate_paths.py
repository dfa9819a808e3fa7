"""Every path by which a crop crossed the bonus line in the width sweep (a held-out set
enrolled at 18-48 px; bench/vision/crossings.py), closed, one test each, on that crop's very
looks; and the reader's reading by parts, taken only where it cannot cross. Each test also
shows the crossing with its rule turned off."""

from __future__ import annotations

from dataclasses import replace

from vision.bonus import BonusReading
from vision.bonus_gate import (
    GateBars,
    after_shifted_look,
    gate,
    gate_again,
    gated,
    looks_again,
)
from vision.identity import DOUBTED, Identity

# The rules at the bars that close the paths (those stored may be stricter or looser: chosen
# by bench/vision/choose_bars.py), and each turned off.
CLOSED = GateBars(
    keep_similarity=0.85, reader_veto=0.25, veto_similarity=0.9, near_share=0.001, fused_sure=0.85
)
NO_KEEP_RULE = replace(CLOSED, keep_similarity=0.0)
NO_VETO = replace(CLOSED, reader_veto=1.01)
OLD_NEAR_SHARE = replace(CLOSED, near_share=CLOSED.gate_share)


def _look(
    label: str | None,
    confidence: float,
    share: float,
    similarity: float,
    best_bonus: str,
    bonus_confidence: float,
    best_other: str = "GD",
) -> Identity:
    return Identity(
        label,
        confidence,
        label or best_other,
        share,
        best_bonus,
        bonus_confidence,
        best_other,
        0.9,
        True,
        similarity,
    )


def _reading(
    kind: str, bonus_p: float, best: str, share: float, number: int, fused_share: float
) -> BonusReading:
    group = best[0]
    return BonusReading(
        kind, share * bonus_p, number, 0.7, bonus_p, best, share, group, 0.9, best, fused_share
    )


def test_a_far_first_looks_bonus_tile_stands_only_when_the_reader_reads_it() -> None:
    """`xmj-real` at 22 px: a green dragon named F3 0.72 sure, 0.69 like its prototypes,
    the reader 0.93 sure of a bonus tile but reading S1 (0.785, short of its bar): asked
    about, where the first look's F3 stood."""
    first = _look("F3", 0.72, 0.776, 0.694, "F3", 0.928)
    reading = _reading("S1", 0.929, "S1", 0.785, 1, 0.875)
    assert gate(first, reading, bars=NO_KEEP_RULE).label == "F3"
    assert gate(first, reading, bars=CLOSED).label is None
    # The reader reading that very tile keeps it, and so does a crop like its prototypes.
    agreeing = replace(reading, best_bonus="F3", kind="F3", number=3)
    assert gate(first, agreeing, bars=CLOSED).label == "F3"
    assert gate(replace(first, similarity=0.9), reading, bars=CLOSED).label == "F3"


def test_a_one_bamboo_seen_again_as_a_season_is_asked_about() -> None:
    """`xmj-real` at 18 px: a one bamboo named 1B 0.72 sure with a quarter on the bonus
    tiles, the looks disagreeing on the side; seen again through shifted copies it is S2
    0.85 sure, 0.77 like its prototypes, while the reader reads S1: asked about."""
    first = _look("1B", 0.721, 0.261, 0.735, "S2", 0.663)
    reading = _reading("S1", 0.686, "S1", 0.657, 1, 0.836)
    said = gate(first, reading, bars=CLOSED)
    assert said.label is None and looks_again(first, said, 0.7)
    seen = _look("S2", 0.853, 0.890, 0.767, "S2", 0.958)
    again = replace(reading, bonus_probability=0.906, best_bonus_share=0.542, fused_share=0.752)
    assert gate_again(seen, again, 0.5, NO_KEEP_RULE).label == "S2"
    assert gate_again(seen, again, 0.5, CLOSED).label is None


def test_a_flower_named_a_dragon_without_doubt_is_read_and_the_reader_vetoes() -> None:
    """`kde-traditional` at 24 px: an F2 named green dragon 0.998 sure with 0.002 on the bonus
    tiles, 0.82 like its prototypes, never read by the reader (it reads 0.82 bonus)."""
    first = _look("GD", 0.998, 0.002, 0.821, "F2", 0.894, "GD")
    reading = _reading("F1", 0.82, "F1", 0.294, 1, 0.383)
    assert not gated(first, OLD_NEAR_SHARE)
    assert gated(first, CLOSED)
    assert gate(first, reading, bars=NO_VETO).label == "GD"
    assert gate(first, reading, bars=CLOSED).label is None
    # A suit tile with the same share is not read: the rule is the dragons', 1B's, blanks'.
    assert not gated(replace(first, label="5D", best="5D"), CLOSED)


def test_a_flower_named_a_character_the_reader_doubts_is_asked_about() -> None:
    """`xmj-real` at 18 px: an F2 named 5C 0.97 sure, 0.87 like its prototypes, with 0.011
    on the bonus tiles; the reader gives the bonus tiles 0.26."""
    first = _look("5C", 0.969, 0.0114, 0.872, "F2", 0.769, "5C")
    reading = _reading("not-bonus", 0.263, "S1", 0.454, 3, 0.416)
    assert gate(first, reading, bars=NO_VETO).label == "5C"
    assert gate(first, reading, bars=CLOSED).label is None
    assert gate(first, replace(reading, bonus_probability=0.1), bars=CLOSED).label == "5C"
    # An enrolled set's own 5C sits nearer its prototypes than that: named.
    assert gate(replace(first, similarity=0.92), reading, bars=CLOSED).label == "5C"


def test_a_drawn_flower_named_blank_is_read_and_asked_about() -> None:
    """A drawn set's F2 (a small name on a plain face) named BLANK 0.82 sure with 0.005 on
    the bonus tiles; the reader 0.81 sure it is some bonus tile (the calibration group)."""
    first = _look("BLANK", 0.822, 0.0049, 0.813, "S4", 0.359, "BLANK")
    reading = _reading("S4", 0.809, "S4", 0.262, 3, 0.318)
    assert not gated(first, OLD_NEAR_SHARE)
    assert gate(first, reading, bars=CLOSED).label is None


def test_the_reading_by_parts_names_an_unsure_name_when_group_and_number_agree() -> None:
    """The first look puts the crop among the bonus tiles but names none; the reader's name
    is unsure (0.6) but its group, its number and the fused kind agree: the fused kind, at
    its own stricter bar; never when the number or the group disagrees."""
    first = _look(None, 0.45, 0.97, 0.7, "F3", 0.4)
    reading = _reading("F3", 0.97, "F3", 0.6, 3, 0.95)
    said = gate(first, reading, bars=CLOSED)
    assert (said.label, said.how) == ("F3", "bonus: read by parts")
    assert gate(first, reading, bars=replace(CLOSED, fused_sure=0.95)).label is None
    assert gate(first, replace(reading, number=2), bars=CLOSED).label is None
    assert gate(first, replace(reading, group="S"), bars=CLOSED).label is None
    # Nor for a crop unlike everything enrolled (noise, a sleeve).
    assert gate(replace(first, similar=False), reading, bars=CLOSED).label is None


def test_the_reading_by_parts_never_crosses_on_the_readers_word_alone() -> None:
    """A green dragon named GD 0.6 sure, far from its prototypes, a third of the first look
    on the bonus tiles, the reader 0.99 sure of S1 by parts but not by name: the reader alone
    puts it among the bonus tiles, and the reading by parts does not name it."""
    first = _look("GD", 0.6, 0.35, 0.9, "S1", 0.4)
    reading = _reading("S1", 0.99, "S1", 0.6, 1, 0.97)
    said = gate(first, reading, bars=CLOSED)
    assert said.label is None
    assert gate(first, reading, bars=replace(CLOSED, fused_lean=0.0)).label == "S1"


def test_a_sure_bonus_tile_the_shifted_copies_put_elsewhere_is_asked_about() -> None:
    """`kde-traditional` at 18 px: a green dragon named F3 0.79 sure (0.88 on the bonus
    tiles), the reader 0.995 sure of some bonus tile: the first look's flower kept (the keep
    rule off, as stored). Seen through shifted copies it is GD, a third on the bonus tiles:
    asked about. A first look unsure enough to have had its second look is that look
    already; a crop the copies keep among the bonus tiles keeps its name."""
    first = _look("F3", 0.787, 0.8781, 0.788, "F3", 0.897)
    reading = _reading("S3", 0.995, "S3", 0.31, 3, 0.493)
    said = gate(first, reading, bars=NO_KEEP_RULE)
    assert said.label == "F3"
    shifted = _look("GD", 0.667, 0.3245, 0.718, "F3", 0.445)
    after = after_shifted_look
    assert after(first, said, shifted, 0.7, NO_KEEP_RULE).label == "F3"  # the rule off
    asking = replace(NO_KEEP_RULE, again_side=0.5)
    asked = after(first, said, shifted, 0.7, asking)
    assert asked.label is None and asked.how == "bonus, shifted copies elsewhere"
    assert after(replace(first, confidence=0.65), said, shifted, 0.7, asking).label == "F3"
    assert after(first, said, replace(shifted, bonus_share=0.6), 0.7, asking).label == "F3"
    assert after(first, said, shifted, 0.0, asking).label == "F3"  # no second looks at all
    # Looked at again only below ``again_below`` like its prototypes.
    assert after(first, said, shifted, 0.7, replace(asking, again_below=0.8)).label is None
    assert after(first, said, shifted, 0.7, replace(asking, again_below=0.75)).label == "F3"


def test_both_looks_plainly_among_the_others_outweigh_a_small_doubt() -> None:
    """`xmj-real` (never enrolled): a white dragon named WD 0.73 sure, 0.73 like its
    prototypes, 12 % on the bonus tiles, the reader 0.03: each look's doubt small, the two
    together -5.5 in log-odds: named from ``doubt_evidence`` 4 on. A `kde-traditional` F2
    named 9D 0.82 sure with 9 % on the bonus tiles, the reader 0.24 (together -3.5), stays
    asked about."""
    first = _look("WD", 0.73, 0.1173, 0.73, "S2", 0.906, "WD")
    reading = _reading("not-bonus", 0.034, "S2", 0.475, 2, 0.615)
    assert gate(first, reading, bars=CLOSED).why == DOUBTED
    plain = replace(CLOSED, doubt_evidence=4.0)
    assert gate(first, reading, bars=plain).label == "WD"
    flower = _look("9D", 0.819, 0.087, 0.763, "F1", 0.356, "9D")
    doubted = _reading("not-bonus", 0.243, "S2", 0.272, 3, 0.312)
    assert gate(flower, doubted, bars=plain).why == DOUBTED
    # A crop the first look did not name is not named by it.
    assert gate(replace(first, label=None), reading, bars=plain).label is None
