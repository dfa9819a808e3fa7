"""Pung-Chow Part II, the limit game: the book's "Example of Winning Hands" 1-10 (hands built
to match every printed line; Part II errata: Example 3 is 16 and 32, Example 4's player is East),
the limit, washing the tiles and the reckless-discard penalty."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, has, meld, score, seat_hand

PC2 = "pungchow/limit"
NO_LIMIT = {"limit": None}


def test_example_1_east_pair_of_heads_drawn() -> None:
    hand = seat_hand("8C 8C 8C 3B 3B 3B 1D 1D 1D 1C 1C", meld("5C 5C 5C"))
    result = score(game(PC2, {"E": hand}, "E", "1C", prevailing="S"))
    assert has(result, "E", "Pair of heads drawn to complete hand") == 6
    assert has(result, "E", "Three of a kind of heads, in hand") == 10
    assert result["hands"]["E"]["points"] == 40 and result["hands"]["E"]["score"] == 80
    assert result["net"]["E"] == 3 * 160  # "East Wind collects double"


def test_example_2_own_wind_in_own_round_doubles_twice_and_the_limit() -> None:
    hand = seat_hand("9C 9C 9C NW NW NW 5B 5B 5B 2D 2D", meld("RD RD RD"))
    doc = game(PC2, {"N": hand}, "N", "5B", prevailing="N")
    result = score(doc)
    assert has(result, "N", "Set of own wind in own wind round") == 2
    assert result["hands"]["N"]["score"] == 640
    # "If his score 640 were over the limit he would collect double the limit from East"
    assert result["hands"]["N"]["value"] == 300 and result["hands"]["N"]["capped"]
    assert result["net"] == {"E": -600, "S": -300, "W": -300, "N": 1200}
    unlimited = score({**doc, "options": NO_LIMIT})
    assert unlimited["net"] == {"E": -1280, "S": -640, "W": -640, "N": 2560}


def test_example_3_errata_16_and_32_pair_of_2_to_8_punged() -> None:
    hand = seat_hand("2B 3B 4B 5D 6D 7D 6C 6C", meld("RD RD RD"), meld("7C 7C 7C"))
    doc = game(PC2, {"N": hand}, "N", "6C", by="discard", source="W", prevailing="E")
    # the book does not score the punged pair of 2-8 (rule-decisions Pung-Chow 1): option 0
    book = score({**doc, "options": {"final_pair_simple_claimed": 0}})
    assert book["hands"]["N"]["points"] == 16 and book["hands"]["N"]["score"] == 32
    assert book["net"]["E"] == -64
    # default: the table's 2 points
    assert score(doc)["hands"]["N"]["score"] == 36


def test_example_4_errata_east_completing_own_wind_pair_by_draw() -> None:
    hand = seat_hand("GD GD GD 9B 9B 9B 5B 5B 5B EW EW", meld("RD RD RD"))
    doc = game(PC2, {"E": hand}, "E", "EW", prevailing="E", options=NO_LIMIT)
    result = score(doc)
    assert has(result, "E", "Pair of own wind in own wind round drawn") == 8
    assert has(result, "E", "Pair of own Wind in own Wind round") is None  # replaced
    assert result["hands"]["E"]["points"] == 48  # every printed line
    # The book doubles three times (384) but the hand is bamboo and honours only, which its
    # own table (Doubling Honor Scores 6) and Example 8 double once more: 768.
    assert has(result, "E", "All one suit except winds or dragons") == 1
    assert result["hands"]["E"]["score"] == 768


@pytest.mark.parametrize(
    ("concealed", "melds", "tile", "name"),
    [
        ("1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD 9D", (), "9D", "Single heads"),
        ("1B 1B 1B 9C 9C 9C EW EW EW RD RD RD 9D 9D", (), "9D", "Sets of heads only"),
        ("RD RD RD GD GD GD WD WD WD 2C 3C 4C 5D 5D", (), "5D", "Three sets of dragons"),
        ("EW EW EW SW SW SW WW WW WW NW NW NW 5D 5D", (), "5D", "Four happinesses"),
        ("EW EW EW SW SW SW WW WW WW 2C 3C 4C NW NW", (), "NW", "Three wind sets"),
        (
            "5D 5D",
            (meld("1B 1B 1B 1B"), meld("2C 2C 2C 2C"), meld("3D 3D 3D 3D"), meld("RD RD RD RD")),
            "5D",
            "Sets of four",
        ),
    ],
)
def test_examples_5_to_7_and_the_limit_hands(
    concealed: str, melds: tuple, tile: str, name: str
) -> None:
    result = score(
        game(
            PC2,
            {"S": seat_hand(concealed, *melds)},
            "S",
            tile,
            by="discard",
            source="W",
            prevailing="E",
        )
    )
    assert result["hands"]["S"]["limit_hand"].startswith(name)
    # "collecting double the limit from East and only the limit from the others"
    assert result["net"] == {"E": -600, "S": 1200, "W": -300, "N": -300}


def test_limit_hand_6_east_on_his_original_draw() -> None:
    result = score(
        game(
            PC2,
            {"E": seat_hand("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B")},
            "E",
            None,
            context=("heaven",),
            prevailing="E",
        )
    )
    assert result["hands"]["E"]["limit_hand"] == "East wins on his original draw"
    assert result["net"]["E"] == 1800  # East collects double the limit from all


def test_example_8_filling_the_middle_by_draw() -> None:
    hand = seat_hand("WD WD WD 5D 6D 7D SW SW", meld("4D 4D 4D"), meld("9D 9D 9D"))
    result = score(game(PC2, {"S": hand}, "S", "6D", prevailing="S", options=NO_LIMIT))
    assert has(result, "S", "Filling a sequence by draw") == 4
    assert has(result, "S", "Pair of own Wind in own Wind round") == 4
    assert has(result, "S", "All one suit except winds or dragons") == 1
    assert result["hands"]["S"]["score"] == 136
    assert result["net"]["E"] == -272


def test_example_9_east_all_one_suit() -> None:
    hand = seat_hand("1B 2B 3B 7B 8B 9B 9B 9B", meld("4B 4B 4B"), meld("6B 6B 6B"))
    result = score(game(PC2, {"E": hand}, "E", "9B", prevailing="S"))
    assert has(result, "E", "Pair of heads drawn") == 6
    assert has(result, "E", "Entirely one suit") == 3
    assert result["hands"]["E"]["score"] == 160
    # East collects double (320 each): the limit of 300 caps the hand, not East's double
    assert result["net"]["E"] == 3 * 320


def test_example_10_only_open_end_by_draw_scores_4() -> None:
    hand = seat_hand("1C 2C 3C 5D 6D 7D 8B 8B", meld("RD RD RD RD"), meld("4C 4C 4C"))
    result = score(game(PC2, {"W": hand}, "W", "3C", prevailing="E"))
    assert has(result, "W", "Filling a sequence by draw") == 4  # rule-decisions Pung-Chow 2
    assert result["hands"]["W"]["score"] == 64
    assert result["net"] == {"E": -128, "S": -64, "W": 256, "N": -64}


def test_round_wind_set_that_is_not_own_doubles_nothing() -> None:
    # rule-decisions Pung-Chow 3: only own wind and dragons double in Part II
    hand = seat_hand("SW SW SW 2C 3C 4C 5D 6D 7D 8B 8B", meld("4C 4C 4C"))
    result = score(game(PC2, {"W": hand}, "W", "8B", by="discard", source="N", prevailing="S"))
    assert result["hands"]["W"]["doubles"] == 0


def test_first_discard_bonus_is_half_the_limit_in_points() -> None:
    # rule-decisions Pung-Chow 4: a bonus score, added before the doubling
    hand = seat_hand("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B")
    result = score(
        game(
            PC2,
            {"S": hand},
            "S",
            "9B",
            by="discard",
            source="E",
            context=("first_discard",),
            prevailing="E",
        )
    )
    assert has(result, "S", "Winning on the first discard") == 150


def test_washing_the_tiles_pays_by_the_number_of_heads() -> None:
    dealt = "1B 9B 1C 9C 1D 9D EW SW WW NW 2C 3C 4C"  # 10 different heads
    result = score(
        game(PC2, {"S": seat_hand(dealt)}, "S", None, context=("washing",), prevailing="E")
    )
    assert result["mahjong"] == {"valid": True, "washing": 10}
    assert result["net"] == {"E": -70, "S": 210, "W": -70, "N": -70}  # no East double


def test_reckless_discard_pays_for_all_and_cancels_the_other_scores() -> None:
    # Penalties 2, case 3 (Illustration 8c): two dragon sets exposed, the third discarded
    winner = seat_hand("WD WD WD 2C 3C 4C 5D 5D", meld("RD RD RD"), meld("GD GD GD"))
    west = seat_hand("6B 1B 2B 4C 6C 8C 9D 1D 3D 5B 7B 8B 2D")
    north = seat_hand("NW NW NW 1C 2B 5C 6C 9C 4D 6D 7D 8D 9B")
    doc = game(
        PC2,
        {"S": winner, "W": west, "N": north},
        "S",
        "WD",
        by="discard",
        source="W",
        prevailing="E",
    )
    result = score(doc)
    assert result["hands"]["S"]["limit_hand"] == "Three sets of dragons"
    assert all(p["from"] == "W" for p in result["payments"])
    assert result["net"] == {"E": 0, "S": 1200, "W": -1200, "N": 0}
    # Note (a): a discarder with no choice is not penalized
    excused = score({**doc, "win": {**doc["win"], "context": ["no_choice"]}})
    assert {p["from"] for p in excused["payments"]} >= {"E", "N"}


def test_bonus_6_the_fourth_tile_of_an_exposed_set_completes_the_hand() -> None:
    # the 5C drawn is the fourth of the 5C set on the table and the last tile the hand needed
    hand = seat_hand("2B 3B 4B 6D 7D 8D 9B 9B 5C", meld("5C 5C 5C"), meld("RD RD RD"))
    result = score(game(PC2, {"S": hand}, "S", "5C", prevailing="E"))
    assert has(result, "S", "Completing the hand with the fourth tile") == 1
    assert has(result, "S", "Four of a kind 2 to 8, on table") == 8
    assert result["hands"]["S"]["arrangement"][0] == ["5C", "5C", "5C", "5C"]
