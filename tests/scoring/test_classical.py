"""Chinese Classical and the DMJL and BMJA presets: the values documented in docs/rules.md
(Kajongg's published rulesets), the limit and loser-payment options, false Mah Jongg."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, has, meld, score, seat_hand

CL, DMJL, BMJA = "classical", "classical/dmjl", "classical/bmja"
SEQ_HAND = "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B"


def test_own_and_round_wind_each_double_and_pair_points_add() -> None:
    hand = seat_hand("EW EW EW 2B 3B 4B 5C 6C 7C 9D 9D", meld("SW SW SW"))
    result = score(game(CL, {"E": hand}, "E", "9D", prevailing="E", visible=["9D"]))
    assert has(result, "E", "Pung/Kong of own Wind, also the round Wind") == 2
    assert has(result, "E", "Last tile completes a pair of Terminals or Honours") == 4
    assert has(result, "E", "Last tile is the only possible tile") == 2  # current rule sets
    assert has(result, "E", "Won with the last tile taken from the wall") == 2


def test_flowers_and_seasons() -> None:
    winner = seat_hand(SEQ_HAND, flowers="F2 S2 F1 F3 F4")
    result = score(game(CL, {"S": winner}, "S", "9B", prevailing="E"))
    assert has(result, "S", "Flower or Season (F1)") == 4
    assert has(result, "S", "Own Flower and own Season") == 1
    assert has(result, "S", "All Flowers") == 1


def test_zero_point_hand_and_three_concealed_pungs() -> None:
    result = score(game(CL, {"S": seat_hand(SEQ_HAND)}, "S", "4B", by="discard", source="W"))
    assert has(result, "S", "Zero point hand") == 1
    others = seat_hand("1C 1C 1C 5D 5D 5D 7B 7B 7B 2C 4C 9D 3B")
    result = score(game(CL, {"S": seat_hand(SEQ_HAND), "W": others}, "S", "9B"))
    assert has(result, "W", "Three concealed Pungs") == 1


def test_limit_500_by_default_1000_by_option() -> None:
    hand = "1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD 1B"
    doc = game(CL, {"S": seat_hand(hand)}, "S", "1B", by="discard", source="W")
    assert score(doc)["hands"]["S"]["value"] == 500
    assert score({**doc, "options": {"limit": 1000}})["hands"]["S"]["value"] == 1000


def test_losers_pay_each_other_is_an_option() -> None:
    hands = {"S": seat_hand(SEQ_HAND), "W": seat_hand("RD RD RD 1C 2C 4D 6D 8D 9D 3B 5B 7B 2D")}
    doc = game(CL, hands, "S", "9B")
    assert any(p["to"] == "W" for p in score(doc)["payments"])
    alone = score({**doc, "options": {"losers_settle": False}})
    assert all(p["to"] == "S" for p in alone["payments"])


def test_false_mahjong_pays_300_to_each() -> None:
    result = score(
        game(CL, {"S": seat_hand("1B 2B 4C 5C 6C 7D 8D 9D 2D 3D 4D 6B 6B 9C")}, "S", "9C")
    )
    assert result["mahjong"]["valid"] is False
    assert result["net"] == {"E": 300, "S": -900, "W": 300, "N": 300}


def test_dmjl_little_and_big_three_dragons_for_everyone() -> None:
    west = seat_hand("RD RD RD GD GD GD WD WD 1C 2C 4D 6D 8D")
    result = score(game(DMJL, {"S": seat_hand(SEQ_HAND), "W": west}, "S", "9B"))
    assert has(result, "W", "Little Three Dragons") == 1
    west = seat_hand("RD RD RD GD GD GD WD WD WD 1C 2C 4D 6D")
    result = score(game(DMJL, {"S": seat_hand(SEQ_HAND), "W": west}, "S", "9B"))
    assert has(result, "W", "Big Three Dragons") == 2


def test_dmjl_squirming_snake() -> None:
    result = score(
        game(
            DMJL,
            {"S": seat_hand("1B 1B 1B 2B 3B 4B 5B 5B 6B 7B 8B 9B 9B 9B")},
            "S",
            "5B",
            by="discard",
            source="W",
        )
    )
    assert result["hands"]["S"]["limit_hand"] == "Squirming Snake"


def test_bmja_one_chow_only_and_limit_1000() -> None:
    result = score(game(BMJA, {"S": seat_hand(SEQ_HAND)}, "S", "9B"))
    assert result["mahjong"]["valid"] is False
    assert "chow" in result["mahjong"]["reason"]
    # a false declaration: half the limit to each of the others
    assert result["net"]["S"] == -3 * 500
    ok = score(
        game(
            BMJA,
            {"S": seat_hand("2B 3B 4B 5C 5C 5C 7D 7D 7D RD RD RD 9B 9B")},
            "S",
            "9B",
            by="discard",
            source="W",
        )
    )
    assert ok["mahjong"] == {"valid": True}


def test_bmja_special_hands() -> None:
    knitting = "1B 1C 2B 2C 4B 4C 5B 5C 7B 7C 8B 8C 9B 9C"
    result = score(game(BMJA, {"S": seat_hand(knitting)}, "S", "9C", by="discard", source="W"))
    assert result["hands"]["S"]["limit_hand"] == "Knitting"
    assert result["hands"]["S"]["value"] == 500
    snake = "1D 1D 2D 3D 4D 5D 6D 7D 8D 9D EW SW WW NW"
    result = score(game(BMJA, {"S": seat_hand(snake)}, "S", "NW", by="discard", source="W"))
    assert result["hands"]["S"]["limit_hand"] == "Wriggling Snake"
    gates = "1B 1B 1B 2B 3B 4B 5B 6B 7B 8B 9B 9B 9B 5B"
    result = score(game(BMJA, {"S": seat_hand(gates)}, "S", "5B"))
    assert result["hands"]["S"]["limit_hand"] == "Gates of Heaven"
    # a 1 or a 9 as the fourteenth tile is not the BMJA's Gates of Heaven
    nine = "1B 1B 1B 2B 3B 4B 5B 6B 7B 8B 9B 9B 9B 9B"
    result = score(game(BMJA, {"S": seat_hand(nine)}, "S", "9B"))
    assert result["hands"]["S"]["limit_hand"] is None


def test_bmja_own_flower_and_season_separately_all_flowers_two() -> None:
    winner = seat_hand("2B 3B 4B 5C 5C 5C 7D 7D 7D RD RD RD 9B 9B", flowers="F2 S2 F1 F3 F4")
    result = score(game(BMJA, {"S": winner}, "S", "9B", by="discard", source="W"))
    assert has(result, "S", "Own Flower") == 1 and has(result, "S", "Own Season") == 1
    assert has(result, "S", "All Flowers") == 2
