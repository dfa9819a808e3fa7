"""The DMJL and BMJA presets as their rule sets define them (Kajongg's "Classical Chinese DMJL"
and "Classical Chinese BMJA"): each difference settled in docs/rules.md ("Where the presets
were corrected") is pinned here, with the rule's own name as the citation."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from engine.scoring import RULESETS
from engine.scoring.score import complete_rule

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, has, items, meld, score, seat_hand

CL, DMJL, BMJA = "classical", "classical/dmjl", "classical/bmja"
PUNGS = "2B 3B 4B 5C 5C 5C 7D 7D 7D RD RD RD 9B 9B"


def _rule(result: dict, seat: str, name: str) -> str:
    found = [i["rule"] for i in result["hands"][seat]["items"] if i["item"].startswith(name)]
    assert len(found) == 1, found
    return str(found[0])


# -- DMJL: "Last Tile is Only Possible Tile" is 2 points ------------------------------------


def test_dmjl_last_tile_only_possible_tile_scores_2() -> None:
    # 9D can only complete the pair: 1-2-3 chows and pungs are all complete
    hand = seat_hand("EW EW EW 2B 3B 4B 5C 6C 7C 9D 9D", meld("SW SW SW"))
    result = score(game(DMJL, {"E": hand}, "E", "9D", visible=["9D"]))
    assert has(result, "E", "Last tile is the only possible tile") == 2
    assert _rule(result, "E", "Last tile is the only possible tile") == (
        'Kajongg "Classical Chinese DMJL" (Deutsche Mah Jongg Liga), '
        'rule "Last Tile is Only Possible Tile"'
    )
    # the BMJA has no such rule at all
    bmja = seat_hand("EW EW EW 2B 3B 4B 5C 5C 5C 9D 9D", meld("SW SW SW"))
    result = score(game(BMJA, {"E": bmja}, "E", "9D", visible=["9D"]))
    assert has(result, "E", "Last tile is the only possible tile") is None


# -- BMJA: its special hands at their values ------------------------------------------------


def test_bmja_special_hands_at_their_values() -> None:
    cases = {
        # hand, winning tile -> (limit hand, value with the 1000 limit)
        "1B 1C 1D 4B 4C 4D 6B 6C 6D 8B 8C 8D 9B 9C": ("9C", "Triple Knitting", 500),
        "1B 1C 2B 2C 4B 4C 5B 5C 7B 7C 8B 8C 9B 9C": ("9C", "Knitting", 500),
        "1B 1B 9C 9C EW EW SW SW RD RD GD GD NW NW": ("NW", "All Pair Honours", 500),
        "1D 1D 2D 3D 4D 5D 6D 7D 8D 9D EW SW WW NW": ("NW", "Wriggling Snake", 1000),
        "2B 2B 2B 5B 5B 5B RD RD RD EW EW EW 9B 9B": ("9B", "Buried Treasure", 1000),
        "RD RD RD GD GD GD EW EW EW SW SW SW NW NW": ("NW", "Only Honours", 1000),
        "2B 2B 2B 3B 3B 3B 6B 6B 6B GD GD GD 8B 8B": ("8B", "Imperial Jade (all green)", 1000),
        "1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD 1B": ("1B", "The 13 Unique Wonders", 1000),
        "1B 1B 1B 2B 3B 4B 5B 6B 7B 8B 9B 9B 9B 5B": ("5B", "Gates of Heaven", 1000),
    }
    for hand, (tile, name, value) in cases.items():
        result = score(game(BMJA, {"S": seat_hand(hand)}, "S", tile))
        assert result["mahjong"] == {"valid": True}, hand
        assert result["hands"]["S"]["limit_hand"] == name, hand
        assert result["hands"]["S"]["value"] == value, hand


def test_bmja_three_great_scholars_only_without_a_chow_and_fourfold_plenty() -> None:
    scholars = seat_hand("9B 9B 5C 5C 5C", meld("RD RD RD"), meld("GD GD GD"), meld("WD WD WD"))
    result = score(game(BMJA, {"S": scholars}, "S", "9B"))
    assert result["hands"]["S"]["limit_hand"] == "Three Great Scholars"
    with_chow = seat_hand("9B 9B 5C 6C 7C", meld("RD RD RD"), meld("GD GD GD"), meld("WD WD WD"))
    result = score(game(BMJA, {"S": with_chow}, "S", "9B"))
    assert result["hands"]["S"]["limit_hand"] is None
    kongs = seat_hand(
        "9B 9B", meld("2B 2B 2B 2B"), meld("3C 3C 3C 3C"), meld("4D 4D 4D 4D"), meld("RD RD RD RD")
    )
    result = score(game(BMJA, {"S": kongs}, "S", "9B"))
    assert result["hands"]["S"]["limit_hand"] == "Fourfold Plenty (four Kongs)"
    assert _rule(result, "S", "Fourfold Plenty").endswith('rule "Fourfold Plenty"')


def test_bmja_gates_of_heaven_is_judged_on_the_fourteen_tiles() -> None:
    # the extra tile is a 3, but the 9B came last: Gates of Heaven for the BMJA; the DMJL's
    # Nine Gates wants the last tile to be the extra one
    gates = "1B 1B 1B 2B 3B 3B 4B 5B 6B 7B 8B 9B 9B 9B"
    result = score(game(BMJA, {"S": seat_hand(gates)}, "S", "9B"))
    assert result["hands"]["S"]["limit_hand"] == "Gates of Heaven"
    result = score(game(DMJL, {"S": seat_hand(gates)}, "S", "9B", by="discard", source="W"))
    assert result["hands"]["S"]["limit_hand"] is None
    result = score(game(DMJL, {"S": seat_hand(gates)}, "S", "3B", by="discard", source="W"))
    assert result["hands"]["S"]["limit_hand"] == "Nine Gates"


# -- BMJA: what it does not accept as a Mah Jongg --------------------------------------------


def test_bmja_blessing_of_heaven_with_two_chows_is_no_mahjong() -> None:
    hand = {"E": seat_hand("2B 3B 4B 5C 6C 7C RD RD RD EW EW EW 9B 9B")}
    result = score(game(BMJA, hand, "E", None, context=("heaven",)))
    assert result["mahjong"]["valid"] is False
    assert "2 chows" in result["mahjong"]["reason"]
    assert "Blessing of Heaven" in result["mahjong"]["reason"]
    assert '"number of allowed chows" 1' in result["mahjong"]["rule"]
    # the same hand is the limit under the DMJL (any number of chows)
    assert score(game(DMJL, hand, "E", None, context=("heaven",)))["hands"]["E"]["value"] == 500


def test_bmja_blessing_of_earth_and_kong_on_kong_need_a_mahjong_hand_too() -> None:
    earth = {"S": seat_hand("2B 3B 4B 5C 6C 7C RD RD RD EW EW EW 9B 9B")}
    result = score(game(BMJA, earth, "S", "9B", by="discard", source="E", context=("earth",)))
    assert result["mahjong"]["valid"] is False
    kongs = seat_hand(
        "9B 9B 2C 3C 4C", meld("2D 3D 4D"), meld("5B 5B 5B 5B", False), meld("6C 6C 6C 6C", False)
    )
    doc = game(BMJA, {"S": kongs}, "S", "9B", by="loose_tile", context=("kong_on_kong",))
    assert score(doc)["mahjong"]["valid"] is False
    one_chow = seat_hand(
        "9B 9B 2C 3C 4C", meld("2D 2D 2D"), meld("5B 5B 5B 5B", False), meld("6C 6C 6C 6C", False)
    )
    doc = game(BMJA, {"S": one_chow}, "S", "9B", by="loose_tile", context=("kong_on_kong",))
    assert score(doc)["hands"]["S"]["limit_hand"] == "Twofold Fortune (Kong on Kong)"


# -- BMJA: Purity with flowers -----------------------------------------------------------------


def test_bmja_purity_with_own_flower_and_season_is_six_doubles() -> None:
    hand = seat_hand("5B 5B 5B 7B 7B 7B 9B 9B", meld("1B 1B 1B"), meld("3B 3B 3B"), flowers="F2 S2")
    result = score(game(BMJA, {"S": hand}, "S", "9B", by="discard", source="W"))
    got = items(result, "S")
    assert got["Purity"] == 3 and got["No Chow"] == 1
    assert got["Own Flower (F2)"] == 1 and got["Own Season (S2)"] == 1
    assert result["hands"]["S"]["doubles"] == 6
    points = result["hands"]["S"]["points"]
    assert result["hands"]["S"]["doubling"] == [points << k for k in range(7)]
    assert result["hands"]["S"]["value"] == 1000  # 44 x 64 = 2816, capped


# -- four flowers and the last discard; a pair completed by a discard is exposed --------------


def test_four_flowers_and_the_last_discard_doubles() -> None:
    winner = seat_hand(PUNGS, flowers="F1 F2 F3 F4")
    doc = game(DMJL, {"S": winner}, "S", "9B", by="discard", source="W", context=("last_discard",))
    got = items(score(doc), "S")
    assert got["All Flowers (F1 F2 F3 F4)"] == 1
    assert got["Last tile of the wall, discarded"] == 1
    assert got["Three concealed Pungs"] == 1
    # the pair completed with the discard is exposed: no "Only Concealed Melds"
    assert "Only concealed melds" not in got
    result = score(game(DMJL, {"S": winner}, "S", "9B", context=("last_tile",)))
    assert has(result, "S", "Only concealed melds") == 1
    got = items(score({**doc, "ruleset": BMJA}), "S")
    assert got["All Flowers (F1 F2 F3 F4)"] == 2 and got["Own Flower (F2)"] == 1


# -- a non-winner's hand of honours ------------------------------------------------------------


def test_bmja_non_winner_calling_for_only_honours_is_four_tenths_of_the_limit() -> None:
    west = seat_hand("RD RD GD GD GD EW EW EW SW SW SW NW NW")
    winner = seat_hand("2B 3B 4B 5C 5C 5C 7D 7D 7D 1C 1C 1C 9B 9B")
    result = score(game(BMJA, {"S": winner, "W": west}, "S", "9B"))
    assert result["hands"]["W"]["limit_hand"] == "Calling for Only Honors"
    assert result["hands"]["W"]["value"] == 400
    assert _rule(result, "W", "Calling for Only Honors").endswith('rule "Calling for Only Honors"')
    # under the DMJL the same hand scores its sets and doubles: no "Only Honors" for a loser
    result = score(game(DMJL, {"S": winner, "W": west}, "S", "9B"))
    assert result["hands"]["W"]["limit_hand"] is None
    assert result["hands"]["W"]["score"] == 26 * 8  # three concealed pungs, dragons, round wind


def test_bmja_calling_for_a_hand_is_a_floor_not_a_cap() -> None:
    # a non-winner one tile from Only Honors whose sets score more than 0.4 of the limit keeps
    # its score (Kajongg: a fraction of the limit stands only when the hand scores less)
    west = seat_hand("EW EW EW SW SW SW WW WW WW NW", meld("GD GD GD GD", exposed=False))
    hands = {"S": seat_hand("2B 3B 4B 5C 5C 5C 7D 7D 7D 1C 1C 1C 9B 9B"), "W": west}
    # West: concealed kong of GD 32, pungs of EW, SW, WW 8 each: 56 points
    # North's round: GD 1 and WW (own) 1 double: 224, under 400: "Calling for Only Honors"
    result = score(game(BMJA, hands, "S", "9B", prevailing="N"))
    assert result["hands"]["W"]["limit_hand"] == "Calling for Only Honors"
    assert result["hands"]["W"]["value"] == 400
    # East's round: EW doubles too, 448 over 400: the ordinary score stands
    result = score(game(BMJA, hands, "S", "9B", prevailing="E"))
    assert result["hands"]["W"]["limit_hand"] is None
    assert result["hands"]["W"]["value"] == 448


def test_bmja_non_winner_calling_for_purity_doubles_three_times() -> None:
    north = seat_hand("3D 3D 3D 6D 6D 6D 8D 8D 9D 9D", meld("1D 1D 1D"), flowers="F4")
    winner = seat_hand(PUNGS)
    result = score(game(BMJA, {"S": winner, "N": north}, "S", "9B", by="discard", source="W"))
    got = items(result, "N")
    assert got["Calling for Purity"] == 3
    assert got["Own Flower (F4)"] == 1
    # 4 (1D exposed) + 4 (3D) + 4 (6D) + 4 (F4) = 16, four doubles
    assert result["hands"]["N"]["score"] == 16 * 16


def test_a_hand_not_calling_gets_no_calling_row() -> None:
    west = seat_hand("WD WD GD GD 1C EW EW EW SW SW SW NW 5B")
    result = score(game(BMJA, {"S": seat_hand(PUNGS), "W": west}, "S", "9B"))
    assert not any(i["item"].startswith("Calling") for i in result["hands"]["W"]["items"])


# -- every item cites a rule a player can look up ---------------------------------------------


def _findable(ruleset: str, rule: str) -> bool:
    if ruleset.startswith("code1924"):
        return (
            re.fullmatch(
                r"Code 1924, Laws? \d+(-\d+)?(, \d+)*(; Law \d+ [IVX]+)?( [IVX]+( \(a\))?)?", rule
            )
            is not None
        )
    if ruleset.startswith("pungchow"):
        return re.match(r"Pung-Chow( Part II?)?, [A-Z]", rule) is not None
    return (
        re.search(r'Kajongg "Classical Chinese (standard|DMJL|BMJA)".*, rules? "', rule) is not None
    )


def test_every_row_of_every_ruleset_cites_a_rule_by_its_name_or_number() -> None:
    for name, ruleset in RULESETS.items():
        rules = [e.rule for e in ruleset.table.values()]
        rules += [ruleset.false_mahjong_rule, ruleset.fault_rule]
        rules += [ruleset.requirement_rule] if ruleset.requirement_rule else []
        rules.append(complete_rule(ruleset))
        for rule in rules:
            assert _findable(name, rule), (name, rule)
    # each preset cites its own rule set, never the standard's
    assert all("DMJL" in e.rule for e in RULESETS[DMJL].table.values())
    assert all("BMJA" in e.rule for e in RULESETS[BMJA].table.values())


def test_mahjong_bonus_first_and_the_doubling_chain() -> None:
    # Pung-Chow Part I, Example 13 (East, 384 doubled to 768): the bonus heads the list
    doc = {
        "ruleset": "pungchow",
        "winner": "E",
        "hands": {
            "E": {
                "melds": [{"tiles": ["1D", "1D", "1D"]}, {"tiles": ["4D", "4D", "4D"]}],
                "concealed": ["RD", "RD", "RD", "WW", "WW", "EW", "EW", "EW"],
            }
        },
        "win": {"tile": "EW", "by": "discard", "from": "N"},
    }
    hand = score(doc)["hands"]["E"]
    assert hand["items"][0]["item"] == "Mah-Jong" and hand["items"][0]["points"] == 20
    assert hand["items"][0]["rule"] == "Pung-Chow Part I, Score Card: Winning Hand Bonus Scores"
    assert hand["doubling"][-1] == hand["score"] == 384
    assert hand["doubling"] == [48, 96, 192, 384]
    assert any(", exposed (1D 1D 1D)" in i["item"] for i in hand["items"])
    code = score({**doc, "ruleset": "code1924/mixed", "prevailing_wind": "E"})["hands"]["E"]
    assert code["items"][0]["item"] == "Mah-jongg"
    assert any(", grounded (1D 1D 1D)" in i["item"] for i in code["items"])
