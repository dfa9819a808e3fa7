"""Code of 1924: every row of the Law 89 table by at least one hand, every limit hand of Law 100,
the entry requirements (Laws 45-48), Laws 91-93, and settlement (Laws 81-82, 86, 93)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, has, meld, score, seat_hand

MIXED = "code1924/mixed"
ONE = "code1924/one-double"
CLEARED = "code1924/cleared"


def nonwinner(
    concealed: str,
    *melds: dict,
    flowers: str = "",
    seat: str = "W",
    ruleset: str = MIXED,
    prevailing: str = "E",
) -> dict:
    """Score a waiting hand of ``seat`` beside a plain winner (S, or N when seat is S)."""
    winner = "N" if seat == "S" else "S"
    hands = {
        winner: seat_hand("1B 2B 3B 4C 5C 6C 7D 8D 9D 2D 3D 4D 6B 6B"),
        seat: seat_hand(concealed, *melds, flowers=flowers),
    }
    return score(game(ruleset, hands, winner, "6B", prevailing=prevailing))


# -- Law 89, basic counts for all hands -------------------------------------------------------


@pytest.mark.parametrize(
    ("concealed", "melds", "name", "value"),
    [
        ("5B 5B 5B 1C 2C 4D 6D 8D 9D 3B", (meld("4C 4C 4C"),), "Triplet of Simples, grounded", 2),
        ("5B 5B 5B 1C 2C 4D 6D 8D 9D 3B 6C 7C 2D", (), "Triplet of Simples, concealed", 4),
        ("1C 2C 4D 6D 8D 9D 3B 5B 7B 2D", (meld("9C 9C 9C"),), "Triplet of Terminals, grounded", 4),
        ("1C 1C 1C 2C 4D 6D 8D 2D 3B 5B 7B 6C 7C", (), "Triplet of Terminals, concealed", 8),
        ("1C 2C 4D 6D 8D 9D 3B 5B 7B 2D", (meld("NW NW NW"),), "Triplet of Honours, grounded", 4),
        ("NW NW NW 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C", (), "Triplet of Honours, concealed", 8),
        ("1C 2C 4D 6D 8D 9D 3B 5B 7B 2D", (meld("8C 8C 8C 8C"),), "Four of Simples, grounded", 8),
        (
            "1C 2C 4D 6D 8D 9D 3B 5B 7B 2D",
            (meld("8C 8C 8C 8C", False),),
            "Four of Simples, concealed",
            16,
        ),
        (
            "1C 2C 4D 6D 8D 2D 3B 5B 7B 5D",
            (meld("9C 9C 9C 9C"),),
            "Four of Terminals, grounded",
            16,
        ),
        (
            "1C 2C 4D 6D 8D 2D 3B 5B 7B 5D",
            (meld("9C 9C 9C 9C", False),),
            "Four of Terminals, concealed",
            32,
        ),
        ("1C 2C 4D 6D 8D 2D 3B 5B 7B 5D", (meld("NW NW NW NW"),), "Four of Honours, grounded", 16),
        (
            "1C 2C 4D 6D 8D 2D 3B 5B 7B 5D",
            (meld("NW NW NW NW", False),),
            "Four of Honours, concealed",
            32,
        ),
        ("GD GD 1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C", (), "Pair of Dragons", 2),
        ("WW WW 1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C", (), "Pair of own Wind", 2),
        ("EW EW 1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C", (), "Pair of the Prevailing Wind", 2),
    ],
)
def test_law_89_basic_counts(concealed: str, melds: tuple, name: str, value: int) -> None:
    result = nonwinner(concealed, *melds)
    assert has(result, "W", name) == value


def test_law_89_pair_of_own_wind_when_prevailing_is_4_in_all() -> None:
    result = nonwinner("WW WW 1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C", prevailing="W")
    assert has(result, "W", "Pair of own Wind when Prevailing") == 4
    assert has(result, "W", "Pair of own Wind (") is None  # not 2 + 2 + 4 (tables 3.1)


def test_law_89_each_flower_or_season_4_points() -> None:
    result = nonwinner("1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C 2D 3D", flowers="F1 S2")
    hand = result["hands"]["W"]
    assert hand["points"] == 8 and hand["doubles"] == 0  # neither is West's own (3)


# -- Law 89, doubles for all hands --------------------------------------------------------------


@pytest.mark.parametrize(
    ("pung", "prevailing", "name", "doubles"),
    [
        ("RD", "E", "Triplet of Dragons", 1),
        ("GD", "E", "Triplet of Dragons", 1),
        ("WD", "E", "Triplet of Dragons", 1),
        ("WW", "E", "Triplet of own Wind", 1),
        ("EW", "E", "Triplet of the Prevailing Wind", 1),
        ("WW", "W", "Triplet of own Wind when Prevailing", 2),
    ],
)
def test_law_89_doubling_sets(pung: str, prevailing: str, name: str, doubles: int) -> None:
    result = nonwinner(
        "1C 2C 4D 6D 8D 9D 3B 5B 7B 2D", meld(f"{pung} {pung} {pung}"), prevailing=prevailing
    )
    assert has(result, "W", name) == doubles
    assert result["hands"]["W"]["doubles"] == doubles


def test_law_89_own_flower_and_own_season_double_each() -> None:
    # West's own are F3 and S3: one double each, two together (decision A3)
    result = nonwinner("1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C 2D 3D", flowers="F3 S3 F1")
    hand = result["hands"]["W"]
    assert hand["points"] == 12 and hand["doubles"] == 2 and hand["score"] == 48


def test_law_89_bouquet_is_four_doubles_with_the_own_flower() -> None:
    result = nonwinner("1C 2C 4D 6D 8D 9D 3B 5B 7B 6C 7C 2D 3D", flowers="F1 F2 F3 F4")
    hand = result["hands"]["W"]
    assert hand["doubles"] == 4 and hand["points"] == 16 and hand["score"] == 16 * 16


# -- Law 89, bonus scores for the winning hand ---------------------------------------------------

# South wins; East prevails.
SEQ_HAND = "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B"


def win_s(
    concealed: str,
    *melds: dict,
    ruleset: str = MIXED,
    tile: str = "9B",
    by: str = "wall",
    source: str | None = None,
    context: tuple[str, ...] = (),
    flowers: str = "",
    prevailing: str = "E",
) -> dict:
    return score(
        game(
            ruleset,
            {"S": seat_hand(concealed, *melds, flowers=flowers)},
            "S",
            tile,
            by,
            source,
            context,
            prevailing,
        )
    )


def test_mahjong_drawing_and_only_place() -> None:
    result = win_s(SEQ_HAND)  # 9B pair wait, drawn
    assert has(result, "S", "Mah-jongg") == 20
    assert has(result, "S", "Drawing the winning tile") == 2
    assert has(result, "S", "Filling the only place") == 2


def test_only_place_is_a_single_wait_claimed_or_drawn() -> None:
    # decision A6: "the only tile that can complete the hand", also from a discard
    claimed = win_s(SEQ_HAND, by="discard", source="W")
    assert has(claimed, "S", "Filling the only place") == 2
    assert has(claimed, "S", "Drawing the winning tile") is None
    # 4B on 2B-3B: 1B would have done as well
    two_sided = win_s(SEQ_HAND, tile="4B")
    assert has(two_sided, "S", "Filling the only place") is None


@pytest.mark.parametrize(("ruleset", "value"), [(MIXED, 1), (ONE, 1), (CLEARED, None)])
def test_law_91_all_sequences_double_even_with_the_two_point_bonuses(
    ruleset: str, value: int | None
) -> None:
    result = win_s(SEQ_HAND, ruleset=ruleset)
    if ruleset == CLEARED:
        assert result["mahjong"]["valid"] is False  # not a cleared hand (Law 47)
        return
    assert has(result, "S", "All Sequences and a non-scoring Pair") == value
    # decision A4: the 2-point bonuses are added as well
    assert result["hands"]["S"]["points"] == 24 and result["hands"]["S"]["score"] == 48


def test_all_sequences_needs_a_non_scoring_pair() -> None:
    result = win_s("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D RD RD", tile="RD")
    assert has(result, "S", "All Sequences") is None


def test_cleared_game_scores_situational_bonuses_as_10_points() -> None:
    hand = "1B 2B 3B 4B 5B 6B 7B 8B 9B 2B 3B 4B 9B 9B"
    result = win_s(hand, ruleset=CLEARED, context=("last_tile",))
    assert has(result, "S", "All Sequences") == 10
    assert has(result, "S", "Winning with the last available tile") == 10
    assert has(result, "S", "All one suit, no Honours") == 3
    mixed = win_s(hand, context=("last_tile",))
    assert has(mixed, "S", "Winning with the last available tile") == 1


@pytest.mark.parametrize(
    ("by", "context", "name"),
    [
        ("wall", ("last_tile",), "Winning with the last available tile"),
        ("discard", ("last_discard",), "Winning with a discard after the last available tile"),
        ("loose_tile", (), "Winning with the loose tile after a Kong"),
        ("robbed_kong", (), "Robbing a Kong"),
    ],
)
def test_situational_doubles(by: str, context: tuple[str, ...], name: str) -> None:
    source = "W" if by in ("discard", "robbed_kong") else None
    result = win_s(
        "2B 3B 4B 5C 6C 7C 3D 4D 5D 9B 9B",
        meld("6D 6D 6D 6D"),
        tile="4B",
        by=by,
        source=source,
        context=context,
    )
    assert has(result, "S", name) == 1


def test_no_sequences_and_suit_doubles() -> None:
    # claimed, so not Hidden Treasure (Law 100 I: all tiles drawn from the wall)
    result = win_s("1B 1B 1B 5B 5B 5B 7B 7B 7B NW NW NW 9B 9B", by="discard", source="W")
    assert has(result, "S", "No Sequences") == 1
    assert has(result, "S", "All one suit, with Honours") == 1
    pure = win_s("1B 1B 1B 5B 5B 5B 7B 7B 7B 2B 3B 4B 9B 9B")
    assert has(pure, "S", "All one suit, no Honours") == 3
    assert has(pure, "S", "All one suit, with") is None  # replaces it (decision A15)


def test_terminals_with_honours_and_both_doubles_for_one_suit_terminals() -> None:
    result = win_s("1B 1B 1B 9B 9B 9B 1C 1C 1C NW NW NW 9D 9D", tile="9D", by="discard", source="W")
    assert has(result, "S", "All Terminals, with Honours") == 1
    one_suit = win_s(
        "1B 1B 1B 9B 9B 9B NW NW NW RD RD RD SW SW", tile="SW", by="discard", source="W"
    )
    # decision A15: both rows hold, both doubles apply
    assert has(one_suit, "S", "All Terminals, with Honours") == 1
    assert has(one_suit, "S", "All one suit, with Honours") == 1


# -- Laws 45-48: the games' requirements ---------------------------------------------------------


def test_one_double_game_needs_a_double_not_a_flower() -> None:
    plain = "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 6D 6D RD RD"
    result = win_s(plain, ruleset=ONE, tile="RD", flowers="F2")
    reason = "the One-Double game needs a hand with a double, Flower doubles not counted"
    assert {k: result["mahjong"][k] for k in ("valid", "reason", "rule", "lacks")} == {
        "valid": False,
        "reason": reason,
        "rule": "Code 1924, Law 46",
        "lacks": reason,
    }
    assert result["mahjong"]["closest"][0] == ["2B", "3B", "4B"]
    # a false Mah-jongg: the limit to East, half to the others (Law 86)
    assert result["net"] == {"E": 500, "S": -1000, "W": 250, "N": 250}
    # a situational double counts (decision A9)
    assert win_s(plain, ruleset=ONE, tile="RD", by="loose_tile")["mahjong"]["valid"]


def test_cleared_hand_game_accepts_one_suit_with_honours() -> None:
    result = win_s("1B 1B 1B 5B 5B 5B 7B 8B 9B NW NW NW 9B 9B", ruleset=CLEARED)
    assert result["mahjong"] == {"valid": True}
    # and non-winners take the suit doubles in that game (`*`)
    assert has(result, "S", "All one suit, with Honours") == 1


def test_seven_twins_is_half_the_limit_in_the_mixed_game_only() -> None:
    twins = "1D 1D 2D 2D 4D 4D 5D 5D 7D 7D RD RD WD WD"
    mixed = win_s(twins, tile="WD")
    assert (
        mixed["hands"]["S"]["value"] == 250 and mixed["hands"]["S"]["limit_hand"] == "Seven Twins"
    )
    # decision A11: not four sets and a pair, not one of the sixteen (Law 48)
    assert win_s(twins, ruleset=ONE, tile="WD")["mahjong"]["valid"] is False


# -- Law 100: the limit hands ---------------------------------------------------------------------

LIMIT_HANDS = [
    ("Hidden Treasure", "1B 1B 1B 5C 5C 5C 7D 7D 7D SW SW SW 9D 9D", (), "9D", "wall", ()),
    ("All Honours", "EW EW EW SW SW SW RD RD RD GD GD GD WD WD", (), "WD", "discard", ()),
    ("All Terminals", "1B 1B 1B 9B 9B 9B 1C 1C 1C 9D 9D 9D 1D 1D", (), "1D", "discard", ()),
    ("All Green", "2B 3B 4B 2B 3B 4B 6B 6B 6B GD GD GD 8B 8B", (), "8B", "discard", ()),
    ("Three Great Scholars", "RD RD RD GD GD GD WD WD WD 2C 3C 4C 5D 5D", (), "5D", "discard", ()),
    ("Four Large Blessings", "EW EW EW SW SW SW WW WW WW NW NW NW 5D 5D", (), "5D", "discard", ()),
    (
        "All Kongs",
        "5D 5D",
        (meld("1B 1B 1B 1B"), meld("2C 2C 2C 2C"), meld("3D 3D 3D 3D"), meld("RD RD RD RD")),
        "5D",
        "discard",
        (),
    ),
    ("Nine Gates", "1B 1B 1B 2B 3B 4B 5B 6B 7B 8B 9B 9B 9B 5B", (), "5B", "discard", ()),
    ("Thirteen Orphans", "1B 9B 1C 9C 1D 9D EW SW WW NW RD GD WD 1B", (), "1B", "discard", ()),
    (
        "Hand from Earth",
        "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B",
        (),
        "9B",
        "discard",
        ("earth",),
    ),
    (
        "Moon from the Bottom of the Sea",
        "2B 3B 4B 5C 6C 7C 1D 2D 3D 6D 7D 8D 9B 9B",
        (),
        "1D",
        "wall",
        ("last_tile",),
    ),
    (
        "Plum Blossom on the Roof",
        "2B 3B 4B 5C 6C 7C 3D 4D 5D 9B 9B",
        (meld("1C 1C 1C 1C"),),
        "5D",
        "loose_tile",
        (),
    ),
    (
        "Scratching a Carrying-Pole",
        "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B",
        (),
        "2B",
        "robbed_kong",
        (),
    ),
    (
        "Kong on Kong",
        "2B 3B 4B 5C 6C 7C 3D 4D 5D 9B 9B",
        (meld("1C 1C 1C 1C"),),
        "9B",
        "loose_tile",
        ("kong_on_kong",),
    ),
    ("Heavenly Twins", "EW EW SW SW WW WW NW NW RD RD GD GD WD WD", (), "WD", "wall", ()),
]


@pytest.mark.parametrize(
    ("name", "concealed", "melds", "tile", "by", "context"),
    LIMIT_HANDS,
    ids=[h[0] for h in LIMIT_HANDS],
)
def test_law_100_limit_hands(
    name: str, concealed: str, melds: tuple, tile: str, by: str, context: tuple[str, ...]
) -> None:
    source = "E" if by in ("discard", "robbed_kong") else None
    result = win_s(concealed, *melds, tile=tile, by=by, source=source, context=context)
    hand = result["hands"]["S"]
    assert result["mahjong"] == {"valid": True}
    assert hand["limit_hand"] == name
    assert hand["value"] == 500 and hand["items"][0]["rule"].startswith("Code 1924, Law")
    # 500, or 1000 against East (Law 100; Law 93); East gives double
    if source != "E" or name != "Hand from Earth":
        assert {p["from"]: p["amount"] for p in result["payments"] if p["to"] == "S"}["E"] == 1000


def test_hand_from_heaven_is_easts() -> None:
    result = score(
        game(
            MIXED,
            {"E": seat_hand("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B")},
            "E",
            None,
            context=("heaven",),
        )
    )
    assert result["hands"]["E"]["limit_hand"] == "Hand from Heaven"
    assert result["net"] == {"E": 3000, "S": -1000, "W": -1000, "N": -1000}


def test_limit_hand_scores_exactly_the_limit() -> None:
    # decision A14: no further doubling; the own wind triplet adds nothing
    result = win_s(
        "EW EW EW SW SW SW RD RD RD GD GD GD WD WD",
        tile="WD",
        by="discard",
        source="W",
        flowers="F2 S2",
    )
    assert result["hands"]["S"]["score"] == 500 and len(result["hands"]["S"]["items"]) == 1


def test_all_terminals_scores_three_doubles_for_a_non_winner_in_one_double_game() -> None:
    hand = "1B 1B 1B 9B 9B 9B 1C 1C 1C 9D 9D 9D 1D"
    one = nonwinner(hand, ruleset=ONE)
    assert has(one, "W", "All Terminals") == 3
    assert has(nonwinner(hand), "W", "All Terminals") is None  # decision A1: Mixed, literal


def test_mixed_game_nonwinner_suit_doubles_option() -> None:
    doc = game(
        MIXED,
        {"S": seat_hand(SEQ_HAND), "W": seat_hand("1C 1C 1C 2C 4C 6C 8C 9C 3C 5C 7C 6C 7C")},
        "S",
        "9B",
        options={"mixed_nonwinner_suit_doubles": True},
    )
    assert has(score(doc), "W", "All one suit, no Honours") == 3


# -- Law 92 ----------------------------------------------------------------------------------------


def test_law_92_three_small_scholars_and_four_small_blessings() -> None:
    scholars = win_s("RD RD RD GD GD GD WD WD 2C 3C 4C 5D 5D 5D", tile="WD")
    assert has(scholars, "S", "Three Small Scholars") == 1
    blessings = win_s(
        "EW EW EW SW SW SW WW WW WW NW NW 5D 5D 5D", tile="NW", by="discard", source="W"
    )
    assert has(blessings, "S", "Four Small Blessings") == 1
    cleared = win_s("RD RD RD GD GD GD WD WD 2C 3C 4C 5C 5C 5C", ruleset=CLEARED, tile="WD")
    assert has(cleared, "S", "Three Small Scholars") == 10


def test_law_92_delayed_call() -> None:
    result = win_s(SEQ_HAND, context=("delayed_call",))
    assert has(result, "S", "Delayed Call") == 1


# -- A13: the best arrangement ------------------------------------------------------------------


def test_best_arrangement_triplets_over_sequences() -> None:
    result = win_s("1D 1D 1D 2D 2D 2D 3D 3D 3D 5C 5C 5C 9B 9B", by="discard", source="W")
    hand = result["hands"]["S"]
    assert has(result, "S", "No Sequences") == 1
    assert ["1D", "1D", "1D"] in hand["arrangement"]


def test_best_arrangement_sequences_when_they_score_more() -> None:
    # as triplets: 20 + 2 (only place) + 8 + 4 + 4 = 38; as three 1-2-3 and 4-5-6 with a
    # non-scoring pair: (20 + 2) doubled by Law 91 = 44
    result = win_s("1D 1D 1D 2D 2D 2D 3D 3D 3D 4C 5C 6C 7B 7B", tile="7B", by="discard", source="W")
    hand = result["hands"]["S"]
    assert hand["score"] == 44
    assert hand["arrangement"].count(["1D", "2D", "3D"]) == 3


# -- settlement (Laws 81, 82, 86, 93) ------------------------------------------------------------


def test_law_81_east_pays_double_and_winner_pays_no_one() -> None:
    result = win_s(SEQ_HAND, prevailing="E")
    value = result["hands"]["S"]["value"]
    pays = {(p["from"], p["to"]): p["amount"] for p in result["payments"]}
    assert pays[("E", "S")] == 2 * value and pays[("W", "S")] == value
    assert not any(p["from"] == "S" for p in result["payments"])


def test_law_93_limit_of_500_east_double() -> None:
    result = win_s("RD RD RD GD GD GD 1B 1B 1B 9B 9B 9B WD WD", tile="WD", by="discard", source="W")
    hand = result["hands"]["S"]
    assert hand["score"] > 500 and hand["value"] == 500 and hand["capped"]
    assert result["net"]["S"] == 2000


def test_law_82_93_non_winners_settle_the_difference_capped_by_the_limit() -> None:
    # tables 4: a non-winner West scoring 1024 and East 10: East pays West 500 x 2
    west = seat_hand("RD RD RD GD GD GD WD WD 1B 2B 4C 6C 8C")  # (8 + 8 + 2) x 4 = 72
    east = seat_hand("5B 5B 5B 1C 2C 4D 6D 8D 9D 3B 6C 7C 2D")  # 4
    result = score(game(MIXED, {"S": seat_hand(SEQ_HAND), "W": west, "E": east}, "S", "9B"))
    pays = [(p["from"], p["to"], p["amount"]) for p in result["payments"] if p["to"] != "S"]
    assert ("E", "W", 2 * (72 - 4)) in pays
    # decision B1: the limit caps the difference (Law 93), East double
    capped = score(
        game(
            MIXED,
            {"S": seat_hand(SEQ_HAND), "W": west, "E": east},
            "S",
            "9B",
            options={"limit": 50},
        )
    )
    assert ("E", "W", 100) in [(p["from"], p["to"], p["amount"]) for p in capped["payments"]]


def test_law_86_false_mahjong_by_east_pays_the_limit_to_each() -> None:
    result = score(
        game(MIXED, {"E": seat_hand("1B 2B 4C 5C 6C 7D 8D 9D 2D 3D 4D 6B 6B 9C")}, "E", "9C")
    )
    assert result["mahjong"]["valid"] is False and result["mahjong"]["rule"] == "Code 1924, Law 44"
    assert result["net"] == {"E": -1500, "S": 500, "W": 500, "N": 500}


def test_laws_75_76_short_and_long_hands() -> None:
    hands = {
        "S": seat_hand(SEQ_HAND),
        "W": seat_hand("RD RD RD 1B 1B 1B 2C 3C 4C 5D 6D 7D 8D 9D"),  # long: 14 tiles
        "N": seat_hand("GD GD GD 1C 1C 1C 2C 2C 2C 5D", flowers="F4"),  # short: 10 tiles
    }
    result = score(game(MIXED, hands, "S", "9B", faults={"W": "long", "N": "short"}))
    assert result["hands"]["W"]["score"] == 0
    north = result["hands"]["N"]
    # short: counted, but only Flower and doubling-set doubles (Law 75): no suit doubles here
    assert north["points"] == 8 + 8 + 4 + 4 and north["doubles"] == 2  # GD set, own Flower
