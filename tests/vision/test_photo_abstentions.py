"""bench/vision/photo_abstentions.py: every photo is counted once under its outcome, kind group,
set and (abstained) rule, and the ways compared start from the rule off."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from photo_abstentions import BEFORE, Photos, changed, tabulate, ways

from vision.bonus_ocr import OcrBars
from vision.identity import DOUBTED, SIDES, Identity


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


def test_the_first_way_is_the_rule_off() -> None:
    every = ways([0.5], [0.02], [0.05, 0.1])
    assert every[BEFORE] == OcrBars(nameless_below=0.0)
    assert every["nameless below 0.02, share 0.1"].nameless_share == 0.1
    assert len(every) == 4
