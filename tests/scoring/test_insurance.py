"""Insurance (Code 1924, Laws 77-79): the discarder who lets a dangerous hand go out pays for
all, unless he had a good waiting hand of his own or no other choice; then the non-winners do
not settle among themselves."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, meld, score, seat_hand

MIXED = "code1924/mixed"
BAMBOO_WINNER = seat_hand("7B 8B 9B 9B 9B", meld("1B 1B 1B"), meld("2B 3B 4B"), meld("5B 5B 5B"))
PLAIN_WEST = seat_hand("1C 2C 4C 6C 8C 1D 3D 5D 7D 9D EW SW NW")
NORTH = seat_hand("RD RD RD 2D 2D 4D 6D 8D 3C 5C 7C 9C WW")


def test_law_77_discarder_pays_for_all_and_no_loser_settlement() -> None:
    doc = game(
        MIXED,
        {"S": BAMBOO_WINNER, "W": PLAIN_WEST, "N": NORTH},
        "S",
        "9B",
        by="discard",
        source="W",
    )
    result = score(doc)
    value = result["hands"]["S"]["value"]
    assert {p["from"] for p in result["payments"]} == {"W"}
    assert result["net"]["W"] == -4 * value  # E's double share included (decision B2)
    assert result["net"]["E"] == 0 and result["net"]["N"] == 0  # Law 79
    assert all("Laws 77, 79" in p["why"] for p in result["payments"])


def test_law_77_exemption_a_a_waiting_hand_worth_three_doubles() -> None:
    west = seat_hand("RD RD RD GD GD GD WD WD 1C 2C 3C 5D 5D")  # waits for Three Great Scholars
    north = seat_hand("2D 2D 4D 6D 8D 3C 5C 7C 9C WW EW SW NW")
    doc = game(
        MIXED, {"S": BAMBOO_WINNER, "W": west, "N": north}, "S", "9B", by="discard", source="W"
    )
    result = score(doc)
    assert {p["from"] for p in result["payments"] if p["to"] == "S"} == {"E", "W", "N"}


def test_law_77_exemption_b_no_choice() -> None:
    doc = game(
        MIXED,
        {"S": BAMBOO_WINNER, "W": PLAIN_WEST},
        "S",
        "9B",
        by="discard",
        source="W",
        context=("no_choice",),
    )
    assert {p["from"] for p in score(doc)["payments"] if p["to"] == "S"} == {"E", "W", "N"}


def test_law_77_needs_three_grounded_sets() -> None:
    winner = seat_hand("5B 5B 5B 7B 8B 9B 9B 9B", meld("1B 1B 1B"), meld("2B 3B 4B"))
    doc = game(MIXED, {"S": winner, "W": PLAIN_WEST}, "S", "9B", by="discard", source="W")
    assert {p["from"] for p in score(doc)["payments"] if p["to"] == "S"} == {"E", "W", "N"}


def test_law_78_third_dragon_punged_for_three_great_scholars() -> None:
    winner = seat_hand("WD WD WD 2C 3C 4C 5D 5D", meld("RD RD RD"), meld("GD GD GD"))
    doc = game(MIXED, {"S": winner, "W": PLAIN_WEST}, "S", "WD", by="discard", source="W")
    result = score(doc)
    assert result["hands"]["S"]["limit_hand"] == "Three Great Scholars"
    assert result["net"] == {"E": 0, "S": 2000, "W": -2000, "N": 0}
    # ... and later: the third set punged earlier from N, won on another tile
    later = seat_hand(
        "2C 3C 4C 5D 5D",
        meld("RD RD RD"),
        meld("GD GD GD"),
        {"tiles": ["WD", "WD", "WD"], "exposed": True, "from": "N"},
    )
    doc = game(MIXED, {"S": later}, "S", "5D", by="wall")
    assert score(doc)["net"]["N"] == -2000
