"""Pung-Chow Part I: every worked example (Examples 1-20) and every score-settling layout
(Layouts 1-4), tiles read from the book's pictures, figures errata-corrected
(data/pungchow_part1.json, built from design/pungchow-examples.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.scoring import score_hand

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "pungchow_part1.json").read_text()
)
EXAMPLES = [c for c in CASES if "seat" in c["expected"]]
LAYOUTS = [c for c in CASES if "scores" in c["expected"]]


def test_every_example_and_layout_is_here() -> None:
    assert len(EXAMPLES) == 20 and len(LAYOUTS) == 4


@pytest.mark.parametrize("case", EXAMPLES, ids=[c["id"] for c in EXAMPLES])
def test_example_scores_the_books_figure(case: dict[str, Any]) -> None:
    result = score_hand(case["input"])
    seat = case["expected"]["seat"]
    hand = result["hands"][seat]
    assert result["mahjong"] == {"valid": True}
    assert hand["score"] == case["expected"]["score"]
    # the explanation adds up: every point and double is an item
    assert hand["points"] == sum(i.get("points", 0) for i in hand["items"])
    assert hand["doubles"] == sum(i.get("doubles", 0) for i in hand["items"])
    assert hand["score"] == hand["points"] * 2 ** hand["doubles"]
    assert all(i["rule"].startswith("Pung-Chow") for i in hand["items"])
    # no limit in Part I: East pays double, the two others the score (Settling the Scores)
    for payment in result["payments"]:
        factor = 2 if "E" in (payment["from"], payment["to"]) else 1
        assert payment["amount"] == factor * hand["score"]
    assert sum(result["net"].values()) == 0


def test_example_7_errata_the_punged_dragons_are_exposed() -> None:
    # Page 36 errata: the dragons completed by a pung are exposed, 4 points not 8 (5504).
    case = next(c for c in EXAMPLES if c["id"] == "P1-EX07")
    items = score_hand(case["input"])["hands"][case["expected"]["seat"]]["items"]
    dragons = [i for i in items if i["item"].startswith("3 of a kind of ones, nines, winds")]
    # Harr's own word for a set laid on the table: "exposed" (the Code of 1924 says "grounded")
    assert dragons and all(", exposed (" in i["item"] for i in dragons)


def test_example_12_claimed_tile_is_not_the_only_place() -> None:
    # 2C claimed onto 3C-4C (open at both ends): no bonus, though 1-2-3 could hold it.
    case = next(c for c in EXAMPLES if c["id"] == "P1-EX12")
    items = score_hand(case["input"])["hands"][case["expected"]["seat"]]["items"]
    assert not any("only place" in i["item"] for i in items)


@pytest.mark.parametrize("case", LAYOUTS, ids=[c["id"] for c in LAYOUTS])
def test_layout_scores_and_settlement(case: dict[str, Any]) -> None:
    result = score_hand(case["input"])
    scores = {seat: h["score"] for seat, h in result["hands"].items()}
    assert scores == case["expected"]["scores"]
    got = sorted((p["from"], p["to"], p["amount"]) for p in result["payments"])
    want = sorted((t["from"], t["to"], t["amount"]) for t in case["expected"]["transfers"])
    assert got == want
    assert sum(result["net"].values()) == 0


def test_settlement_order_is_high_hand_first() -> None:
    # "the high hand of the three collecting the difference between his score and each of the
    # remaining two ... leaves the remaining two to settle" (Settling the Scores; Layout 1).
    case = next(c for c in LAYOUTS if c["id"] == "P1-LAYOUT1")
    payments = score_hand(case["input"])["payments"]
    losers = [(p["to"], p["from"]) for p in payments if p["to"] != "E"]
    assert losers == [("W", "S"), ("W", "N"), ("S", "N")]
