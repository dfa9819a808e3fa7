"""The enrolled tables of the gate's calibration group (bench/vision/calibration_scans.py):
training sets only, scanned by the finder as a table is; their crops' answers replayed under
any bars are the recogniser's own; the stored bars name the groups they were chosen on."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from calibration_scans import (
    DRAWN,
    HANDS,
    TABLES,
    drawn_table_sets,
    scan_group_name,
    scanned_tables,
)
from gate_looks import answer, looks_of
from identity_parts import HELD_OUT, TRAIN_SETS
from scan_parts import enrolled_recogniser, frames
from scan_replay import bars_given

from vision.bonus import BONUS_KINDS
from vision.bonus_gate import BARS_FILE, GateBars, default_bars
from vision.embedder import MODELS_DIR, Embedder
from vision.synth.artwork import load_set
from vision.synth.table_enrol import labelled_crops

SIZE = (1920, 1080)


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def test_a_held_out_set_is_never_among_the_calibration_groups_tables(embedder: Embedder) -> None:
    assert HELD_OUT and not set(HELD_OUT) & set(TRAIN_SETS)
    with pytest.raises(ValueError, match="held-out"):
        scanned_tables(embedder, 0, 1, 1, (SIZE,), sets=[TRAIN_SETS[0], HELD_OUT[0]])


def test_a_set_without_flowers_is_scanned_as_the_kinds_it_has(embedder: Embedder) -> None:
    """`kde-egypt` has no flowers or seasons: its tables and hands hold only its own kinds,
    every crop one the finder cut and the renderer named."""
    groups = scanned_tables(embedder, 0, 1, 1, (SIZE,), sets=["kde-egypt"])
    assert set(groups) == {scan_group_name(TABLES, SIZE), scan_group_name(HANDS, SIZE)}
    kinds = set(load_set("kde-egypt"))
    assert not kinds & set(BONUS_KINDS)
    tables, hands = groups[scan_group_name(TABLES, SIZE)], groups[scan_group_name(HANDS, SIZE)]
    assert len(tables) > 50 and 10 <= len(hands) <= 14
    assert {look.truth for look in tables + hands} <= kinds


def test_an_answer_replayed_from_the_looks_is_the_recognisers_own(embedder: Embedder) -> None:
    """The bars are chosen by replaying each crop's looks through the gate: under the stored
    bars and under others, the replay names every crop of a scanned table as
    ``Recogniser.identify`` does."""
    recogniser = enrolled_recogniser(embedder, "kde-classic", 7, "new", SIZE)
    cut = labelled_crops(frames(1, "kde-classic", 7, SIZE)[0])
    crops = [crop for _, crop in cut]
    looks = looks_of(recogniser, crops, [truth for truth, _ in cut])
    looked_again = GateBars(again_side=1.01, again_below=1.01)  # every sure bonus tile asked
    for bars in (
        recogniser.bars,
        GateBars(side_margin=1.0, read_sure=0.6, near_bonus=1.01),
        looked_again,
    ):
        recogniser.bars = bars
        named = [identity.label for identity in recogniser.identify(crops)]
        assert [answer(look, bars) for look in looks] == named


def test_the_stored_bars_name_the_groups_they_were_chosen_on() -> None:
    stored = json.loads((MODELS_DIR / BARS_FILE).read_text(encoding="utf-8"))
    group = stored["calibration group"]
    assert group["sets"] and not set(group["sets"]) & set(HELD_OUT)
    scored = stored["with these bars"]
    for size in ((1920, 1080), (2304, 1296)):
        assert scored[scan_group_name(TABLES, size)]["n"] > 1000
        assert scored[scan_group_name(HANDS, size)]["n"] > 100
        assert scored[scan_group_name(TABLES, size, DRAWN)]["n"] > 300
    assert {"never enrolled", "enrolled, mixed", "enrolled at a width"} <= set(scored)
    # The drawn sets enrolled as tables are none the benchmark draws (from 90,000).
    drawn = group["drawn sets enrolled as tables"]
    assert drawn == drawn_table_sets(group["seeds"][0], len(drawn))
    assert all(60_000 <= int(name.split("#")[1]) < 90_000 for name in drawn)


def test_other_bars_for_the_replay_are_named_pairs() -> None:
    assert bars_given("gate_share=0.02,near_share=0.02") == replace(
        default_bars(), gate_share=0.02, near_share=0.02
    )
    with pytest.raises(SystemExit, match="NAME=VALUE"):
        bars_given("gate_share")
