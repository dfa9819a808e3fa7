"""Decisions of docs/rules.md not pinned elsewhere: one test each, named for the decision."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, has, meld, score, seat_hand

SEQ_HAND = "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B"


def test_1924_a5_flowers_do_not_break_the_all_sequence_hand() -> None:
    result = score(game("code1924/mixed", {"S": seat_hand(SEQ_HAND, flowers="F1 S3")}, "S", "9B"))
    assert has(result, "S", "All Sequences and a non-scoring Pair") == 1


def test_1924_a8_small_scholars_are_for_the_winner_only() -> None:
    west = seat_hand("RD RD RD GD GD GD WD WD 1C 2C 4D 6D 8D")
    result = score(game("code1924/mixed", {"S": seat_hand(SEQ_HAND), "W": west}, "S", "9B"))
    assert has(result, "W", "Three Small Scholars") is None


def test_1924_a12_a_robbed_kong_is_scored_as_a_grounded_triplet() -> None:
    east = seat_hand("1C 2C 4D 6D 8D 9D 3B 5B 7B 6C", meld("4B 4B 4B"))
    result = score(
        game(
            "code1924/mixed",
            {"S": seat_hand(SEQ_HAND), "E": east},
            "S",
            "4B",
            by="robbed_kong",
            source="E",
        )
    )
    assert has(result, "E", "Triplet of Simples, grounded") == 2
    assert has(result, "S", "Robbing a Kong") == 1


def test_pungchow_10_a_dead_hand_scores_nothing_and_pays_everyone() -> None:
    north = seat_hand("RD RD RD 1C 1C 1C 2D 4D 6D 8D 3B 5B")  # 12 tiles: dead
    west = seat_hand("WD WD WD 2C 4C 6C 8C 9D 1D 3D 7B 8B 9B")
    result = score(
        game(
            "pungchow",
            {"S": seat_hand(SEQ_HAND), "N": north, "W": west},
            "S",
            "9B",
            prevailing=None,
            faults={"N": "dead"},
        )
    )
    assert result["hands"]["N"]["score"] == 0
    west_score = result["hands"]["W"]["score"]
    assert {"from": "N", "to": "W", "amount": west_score} in [
        {k: p[k] for k in ("from", "to", "amount")} for p in result["payments"]
    ]


def test_pungchow_5_east_original_hand_beats_washing() -> None:
    dealt = "1B 9B 1C 9C 1D 9D EW SW WW NW 2C 3C 4C 4C"
    hand = "1B 1B 1B 9C 9C 9C EW EW EW 2C 3C 4C 4C 4C"
    washing = score(
        game("pungchow/limit", {"E": seat_hand(dealt)}, "E", None, context=("washing", "heaven"))
    )
    assert washing["mahjong"]["washing"] == 10  # not a complete hand: washing it is
    heaven = score(
        game("pungchow/limit", {"E": seat_hand(hand)}, "E", None, context=("washing", "heaven"))
    )
    assert heaven["hands"]["E"]["limit_hand"] == "East wins on his original draw"


def test_1924_law_75_a_short_hand_loses_its_suit_doubles() -> None:
    north = seat_hand("1C 1C 1C 2C 3C 4C 5C 5C 5C 7C")  # 10 tiles: short
    doc = game(
        "code1924/one-double",
        {"S": seat_hand("2B 3B 4B 5B 5B 5B 7B 7B 7B 9B 9B 9B EW EW"), "N": north},
        "S",
        "EW",
        by="discard",
        source="W",
        faults={"N": "short"},
    )
    result = score(doc)
    assert result["hands"]["N"]["doubles"] == 0  # all one suit would be 3 for a full hand
    assert result["hands"]["N"]["points"] == 8 + 4


def test_pungchow_6_mandarins_double_in_the_limit_game_too() -> None:
    hand = seat_hand("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 6D 6D 9B 9B", flowers="F3 S3 F1")
    result = score(game("pungchow/limit", {"W": hand}, "W", "9B", by="discard", source="N"))
    assert has(result, "W", "Own Flower") == 1 and has(result, "W", "Own Season") == 1


def test_classical_caps_each_losers_score_before_the_difference() -> None:
    west = seat_hand("RD RD RD GD GD GD WD WD WD 1C 1C 1C 2D")  # far above the limit
    east = seat_hand("5B 5B 5B 1D 2C 4D 6D 8D 9D 3B 6C 7C 2D")
    doc = game("classical", {"S": seat_hand(SEQ_HAND), "W": west, "E": east}, "S", "9B")
    result = score(doc)
    east_score = result["hands"]["E"]["score"]
    pays = {(p["from"], p["to"]): p["amount"] for p in result["payments"]}
    assert pays[("E", "W")] == 2 * (500 - east_score)
    by_difference = score({**doc, "options": {"loser_limit": "difference"}})
    pays = {(p["from"], p["to"]): p["amount"] for p in by_difference["payments"]}
    assert pays[("E", "W")] == 2 * 500


def test_east_double_can_be_switched_off() -> None:
    # the two-hand game of 1924: East neither pays nor receives double
    doc = game(
        "code1924/mixed",
        {"S": seat_hand(SEQ_HAND)},
        "S",
        "9B",
        options={"east_double": False, "losers_settle": False},
    )
    result = score(doc)
    assert len({p["amount"] for p in result["payments"]}) == 1
