"""Hand matching against the sample card: the seed's rules on Jokers, exposures and lines."""

from __future__ import annotations

import pytest

from config.cards import SAMPLE_CARD, load_card
from engine.american.card import CompiledCard
from engine.american.match import Hand, HandError, check, parse_hand, tiles_away


@pytest.fixture(scope="module")
def sample() -> CompiledCard:
    return load_card(SAMPLE_CARD, use_cache=False)


def hand(tiles: str, *exposed: str) -> Hand:
    return parse_hand(tiles.split(), [e.split() for e in exposed])


def lines(card: CompiledCard, h: Hand) -> dict[str, bool]:
    return {m["line"]: m["jokerless"] for m in check(card, h)["matches"]}  # type: ignore[attr-defined]


def test_design_worked_example_quint_with_jokers(sample: CompiledCard) -> None:
    # QN-1, X = 4, a = Bam, b = Dot: quint 4B (2 Jokers), GD pair, kong 5D (1 Joker), Soaps, F.
    assert lines(sample, hand("4B 4B 4B J J GD GD 5D 5D 5D J WD WD F")) == {"QN-1": False}


def test_j1_a_pair_never_takes_a_joker(sample: CompiledCard) -> None:
    assert lines(sample, hand("4B 4B 4B J J GD J 5D 5D 5D J WD WD F")) == {}


def test_s6_a_concealed_set_may_be_all_jokers(sample: CompiledCard) -> None:
    # QN-1 with the kong of 5 Dots made of four Jokers.
    assert lines(sample, hand("4B 4B 4B 4B J GD GD J J J J WD WD F")) == {"QN-1": False}


def test_s5_a_quint_needs_a_joker_but_a_flower_sextet_may_be_natural(
        sample: CompiledCard) -> None:
    # QT-1: six natural Flowers (eight exist), a pung of any dragon, 3B pung, 4B pair.
    assert lines(sample, hand("F F F F F F RD RD RD 3B 3B 3B 4B 4B")) == {"QT-1": True}


def test_c8_an_exposure_must_equal_a_group_of_the_same_size(sample: CompiledCard) -> None:
    assert lines(sample, hand("4B 4B 4B J J GD GD WD WD F", "5D 5D 5D J")) == {"QN-1": False}
    # The same 5 Dots exposed as a pung cannot become the kong the line needs.
    assert lines(sample, hand("4B 4B 4B J J GD GD WD WD F J", "5D 5D 5D")) == {}


def test_a_joker_bearing_exposure_never_fits_a_naturals_only_set(sample: CompiledCard) -> None:
    # LK-1 wants a natural Flower pung ("FFF!").
    natural = hand("3B 3B 3B 3C 3C 3C 3D 3D 3D NW EW", "F F F")
    assert lines(sample, natural) == {"LK-1": True}
    assert lines(sample, hand("3B 3B 3B 3C 3C 3C 3D 3D 3D NW EW", "F F J")) == {}


def test_concealed_line_takes_no_exposure(sample: CompiledCard) -> None:
    # "What concealed means": EV-3 is a C line; with no exposure it wins, exposed it is gone.
    concealed = hand("F F F 2B 4B 6B 2C 4C 6C 8D NW EW WW SW")
    assert lines(sample, concealed) == {"EV-3": True}
    h = hand("8B 8B 6B 6B 6B 4D 4D 2D 2D", "WD WD J J")
    away = {check_line["line"] for check_line in check(sample, h)["closest"]}  # type: ignore[attr-defined]
    assert "EV-3" not in away and "YR-2" not in away and "EV-1" in away


def test_sc5_singles_and_pairs_are_never_jokerless(sample: CompiledCard) -> None:
    assert lines(sample, hand("F F 1B 3B 5B 7B 9B 1C 3C 5C 7C 9C WD WD")) == {"SP-1": False}


def test_sc4_jokerless_when_a_line_that_permits_jokers_has_none(sample: CompiledCard) -> None:
    assert lines(sample, hand("8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD")) == {"EV-1": True}
    # J-11: judged on the final 14 only; one Joker anywhere (here in the Soap kong) spoils it.
    assert lines(sample, hand("8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD J")) == {"EV-1": False}


def test_t5_soap_is_a_suitless_zero_in_a_year(sample: CompiledCard) -> None:
    # YR-1: 2026 in Craks with a Soap, North pung, opposite dragons (Green, Soap), single South.
    assert lines(sample, hand("2C WD 2C 6C NW NW NW GD GD GD WD WD WD SW")) == {"YR-1": True}
    # A Soap cannot stand for a run's number: RN-2 needs 4 consecutive numbers.
    h = hand("F F 1B 1B WD WD WD 3B 3B 3B 3B 4B 4B 4B")
    assert "RN-2" not in lines(sample, h)


def test_like_numbers_across_three_suits(sample: CompiledCard) -> None:
    assert lines(sample, hand("F F F 7B 7B 7B 7C 7C 7C 7D J J NW EW")) == {"LK-1": False}
    # LK-1 demands an odd number.
    assert lines(sample, hand("F F F 6B 6B 6B 6C 6C 6C 6D 6D 6D NW EW")) == {}


def test_tiles_away_for_13_tiles_keeps_exposures_fixed(sample: CompiledCard) -> None:
    h = hand("4B 4B 4B J GD GD WD WD F", "5D 5D 5D J")  # QN-1 short one quint tile
    assert h.size == 13
    result = dict((sample.lines[i].id, n) for i, n in tiles_away(sample, h))
    assert result["QN-1"] == 1
    assert "EV-1" not in result  # no kong of 5 Dots on EV-1: the exposure never fits


def test_tiles_away_jokers_only_fill_sets(sample: CompiledCard) -> None:
    # SP-1 (singles and pairs): Jokers count for nothing.
    h = hand("F F 1B 3B 5B 7B 9B 1C 3C 5C 7C J J")
    result = dict((sample.lines[i].id, n) for i, n in tiles_away(sample, h))
    assert result["SP-1"] == 3


@pytest.mark.parametrize(("tiles", "exposed", "where", "words"), [
    ("1B 1B 1B 1B 1B 2B 2B 2B 3B 3B 3B 4B 4B", (), "1B", "only 4"),
    ("J J J J J J J J J 2B 2B 2B 3B 3B", (), "J", "eight"),
    ("F F F F F F F F F 2B 2B 2B 3B 3B", (), "F", "only 8"),
    ("1B 1B 1B 2B", (), "tiles", "13 or 14"),
    ("1B 1B 2B 2B 3B 3B 4B 4B 5B 5B 6B", ("7B 8B 9B",), "exposure 1", "like tiles"),
    ("1B 1B 2B 2B 3B 3B 4B 4B 5B 5B 6B", ("J J J",), "exposure 1", "real tile"),
    ("1B 1B 2B 2B 3B 3B 4B 4B 5B 5B 6B 6B", ("7B 7B",), "exposure 1", "3 to 6"),
    ("1B 1B 1B 2B 2B 2B 3B 3B 3B 4B 4B", ("1B 1B J",), "1B", "only 4"),
])
# S-8: an exposure always holds a real tile; "Four of every tile".
def test_impossible_hands_are_refused_naming_the_tile(
        tiles: str, exposed: tuple[str, ...], where: str, words: str) -> None:
    with pytest.raises(HandError) as info:
        hand(tiles, *exposed)
    assert info.value.where == where and words in info.value.message


def test_bonus_tile_tokens_are_flowers(sample: CompiledCard) -> None:
    # "Flowers are interchangeable": F1-F4 and S1-S4 are all American Flowers.
    assert lines(sample, hand("F1 F2 1B 3B 5B 7B 9B 1C 3C 5C 7C 9C WD WD")) == {"SP-1": False}


def test_k1_only_lines_of_the_card_in_play_win(sample: CompiledCard) -> None:
    """K-1: a hand that completes another card's line is no Mah Jongg on this one."""
    from engine.american.card import compile_card

    other, _ = compile_card('card "Other" 2025\nO-1 X 25 : 1111a 2222a 3333a 44a\n')
    assert other is not None
    h = hand("1B 1B 1B 1B 2B 2B 2B 2B 3B 3B 3B 3B 4B 4B")
    assert lines(other, h) == {"O-1": True}
    assert lines(sample, h) == {}
