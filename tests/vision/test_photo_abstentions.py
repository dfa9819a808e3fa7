"""bench/vision/photo_abstentions.py: every photo is counted once under its outcome, kind group,
set and (abstained) rule, and the ways compared start from the rule off."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from photo_abstentions import (
    BEFORE,
    NAMELESS,
    Photos,
    abstentions_read,
    calibration,
    changed,
    looks_ways,
    numbered_ways,
    tabulate,
    ways,
)

from vision.bonus_ocr import OcrBars
from vision.identity import DOUBTED, SIDES, Identity
from vision.photo_looks import PhotoLooks


def photos(truth: list[str]) -> Photos:
    out = Photos()
    out.add([(np.zeros((96, 72, 3), np.uint8), t) for t in truth], "some set", None)  # type: ignore[arg-type]
    return out


def test_each_photo_is_counted_under_its_outcome_and_rule() -> None:
    shot = photos(["5B", "F1", "RD", "F2"])
    answers = [
        Identity("5B", 0.9, "5B"),
        Identity("5B", 0.6, "5B"),  # a bonus tile named a suit tile: a crossing
        Identity(None, 0.4, "RD", why=DOUBTED, how="doubted"),
        Identity(None, 0.4, "F2", why=SIDES, how="sides"),
    ]
    table = tabulate(shot, answers)
    assert table["outcomes"]["all"] == {"n": 4, "right": 1, "crossing": 1, "abstained": 2}
    assert table["outcomes"]["bonus"] == {"n": 2, "crossing": 1, "abstained": 1}
    assert table["outcomes"]["set some set"]["n"] == 4
    rules = table["abstained, by rule"]
    assert rules[f"{DOUBTED} (doubted)"] == {"honour": 1, "all": 1, "first look's best right": 1}
    assert rules[f"{SIDES} (sides)"]["bonus"] == 1


def test_only_answers_that_moved_are_counted() -> None:
    shot = photos(["5B", "NW"])
    before = [Identity(None, 0.9, "5B", why=DOUBTED), Identity("NW", 0.9, "NW")]
    after = [Identity("5B", 0.9, "5B"), Identity("NW", 0.9, "NW")]
    assert changed(shot, before, after) == {"abstained -> right": 1}


def test_the_first_ways_are_d88e47d_and_85cdf4e() -> None:
    every = ways([0.5], [0.02], [0.05, 0.1], [0.9], [0.1, 0.5])
    assert every[BEFORE] == OcrBars(
        nameless_below=0.0, printed_sure=0.0, numbered_sure=0.0, anew_sure=0.0
    )
    assert every[NAMELESS] == OcrBars(printed_sure=0.0, numbered_sure=0.0, anew_sure=0.0)
    assert every["nameless below 0.02, share 0.1"].nameless_share == 0.1
    assert every["nameless below 0.02, share 0.1"].printed_sure == 0.0
    printed = every["printed 0.9, bonus below 0.5"]
    assert (printed.printed_sure, printed.printed_bonus_below, printed.printed_anew) == (
        0.9,
        0.5,
        False,
    )
    assert every["printed 0.9 anew, bonus below 0.1"].printed_anew
    assert len(every) == 2 + 1 + 2 + 2 + 2


def test_too_many_drawn_sets_are_named_before_anything_is_drawn() -> None:
    with pytest.raises(ValueError, match="--drawn 61: at most 60"):
        calibration(2, 61, 2024, cornered=1)
    # The unfamiliar sets' seeds follow the cornered ones': neither may run into the next.
    with pytest.raises(ValueError, match="--cornered 21: at most 20"):
        calibration(2, 40, 2024, cornered=21)
    with pytest.raises(ValueError, match="--unfamiliar 21: at most 20"):
        calibration(2, 40, 2024, cornered=12, unfamiliar=21)


def test_unfamiliar_sets_are_refused_without_the_fonts_they_letter_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Drawn in a fallback font, their photos would be other photos than the figures' own.
    import bonus_data

    monkeypatch.setattr(bonus_data, "missing_fonts", lambda fonts: ["TW-Kai", "Klee One"])
    with pytest.raises(SystemExit, match="fonts not installed: TW-Kai, Klee One"):
        calibration(2, 40, 2024, cornered=12, unfamiliar=1)


def test_the_detail_lists_abstentions_and_crossings_only() -> None:
    shot = Photos()
    unread = SimpleNamespace(bonus_ocr=None)
    shot.add([(np.zeros((96, 72, 3), np.uint8), t) for t in ("5B", "F1", "RD")], "a set", unread)  # type: ignore[arg-type]
    answers = [
        Identity("5B", 0.9, "5B"),
        Identity("5B", 0.6, "5B"),
        Identity(None, 0.4, "RD", why=DOUBTED, how="doubted"),
    ]
    rows = abstentions_read(shot, answers)
    assert [(r["truth"], r["named"]) for r in rows] == [("F1", "5B"), ("RD", None)]
    assert rows[1]["why"] == f"{DOUBTED} (doubted)"


def test_a_looks_spec_names_its_views_and_networks() -> None:
    ways_of = looks_ways(["shifts+contrast:read", "turns"])
    assert ways_of["looks shifts+contrast:read"] == PhotoLooks(("shifts", "contrast"), embed=False)
    assert ways_of["looks turns"] == PhotoLooks(("turns",))
    with pytest.raises(SystemExit, match="give embed or read"):
        looks_ways(["shifts:both"])


def test_numbered_ways_are_each_pair_of_bars() -> None:
    pairs = numbered_ways([0.05, 0.1], [0.9], between=True)
    assert pairs["numbered 0.1, number 0.9, between the sides too"] == OcrBars(
        numbered_sure=0.1, numbered_number=0.9, numbered_between=True
    )
    assert len(pairs) == 2
