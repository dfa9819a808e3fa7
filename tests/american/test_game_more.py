"""Concealed hands, changing target hands (K-4, C-11), the exchange procedure (J-6) and the
courtesy pause (P-10, P-11), by code."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.american import commands as cm
from engine.american.card import compile_card
from engine.american.game import AmericanHand, AmericanOptions, ExposedSet, apply, new_hand
from engine.errors import RuleViolation
from engine.seats import SEATS
from engine.tiles import JOKER, parse_tile, parse_tiles

E, S, W, N = SEATS
T = parse_tile
Table = Callable[..., AmericanHand]

EAST = "WD 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD"
SOUTH = "6B 6B 8B 8B 4D 4D 2D 2D 2D WD WD WD 1B"
WEST = "6B 3C 3C 3C 7C 7C 9D 9D 9D 5D 5D 1D 2B"
SP1_WAITING = "F F 1B 3B 5B 7B 9B 1C 3C 5C 7C 9C WD"


def exposed(tiles: str) -> ExposedSet:
    shown = parse_tiles(tiles)
    return ExposedSet(shown, next(t for t in shown if t != JOKER), this_turn=False)


def test_concealed_line_wins_on_a_discard(table: Table) -> None:
    """"What concealed means": the 14th tile may be called for Mah Jongg; it is no exposure."""
    state = table(E=EAST, S=SOUTH, W=WEST, N=SP1_WAITING)
    state, _ = apply(state, cm.Discard(E, T("WD")))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    result = state.result
    assert result is not None and result["line"] == "SP-1" and result["concealed_line"]
    assert result["jokerless"] is False  # SC-5: Singles and Pairs never doubled again
    assert result["net"] == {"E": -100, "S": -50, "W": -50, "N": 200}


CONCEALED_SETS = """card "concealed sets" 2026
T-1 X 25 : 1111a 2222a 3333a 44a
T-2 C 50 : NNNN EEEE WWW SSS
"""


def test_redeeming_jokers_while_concealed_keeps_the_hand_concealed() -> None:
    """"Redeeming Jokers while concealed": an exchange is not an exposure; the concealed
    line still wins with the redeemed Joker (and by Finesse, J-12)."""
    card, _ = compile_card(CONCEALED_SETS)
    assert card is not None
    state, _ = new_hand(card, AmericanOptions(), "full", random.Random(1))
    state.phase, state.turn, state.step = "play", E, "discard"
    state.rack(E).concealed = parse_tiles("NW NW NW EW EW EW EW WW WW WW SW SW SW 1B")
    state.rack(E).count = 14
    state.rack(S).exposures.append(exposed("1B 1B J"))
    state, _ = apply(state, cm.JokerExchange(E, S, T("1B")))
    state, _ = apply(state, cm.DeclareMahJongg(E))
    result = state.result
    assert result is not None and result["line"] == "T-2" and result["by"] == "finesse"


def test_k4_c11_a_legal_set_that_fits_another_line_is_no_fault(table: Table) -> None:
    """K-4: a player may change hands while the exposures fit; C-11: only a set that fits
    no line is an incorrect exposure."""
    north = "5C 5C 1D 1D 1D 3D 3D 3D 5D 5D 5D 7D RD"
    state = table(E="5C 1C 2C 3C 7C 9C NW NW EW EW SW SW GD GD", S=SOUTH, W=WEST, N=north)
    state, _ = apply(state, cm.Discard(E, T("5C")))
    state, _ = apply(state, cm.Call(N, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(N, parse_tiles("5C 5C 5C")))
    assert state.rack(N).evidence == []  # 5C pung fits OD-1, LK-3, ... of the card


def test_j6_a_natural_put_down_unannounced_is_a_discard(table: Table) -> None:
    """J-6: a natural that touches the table with no announcement is a discard; the Joker
    stays where it is."""
    state = table(E=EAST, S=SOUTH, W=WEST, N="1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD")
    state.rack(S).exposures.append(exposed("NW NW J"))
    state, events = apply(state, cm.Discard(E, T("NW")))
    assert events[0].kind == "Discarded" and state.rack(S).exposures[0].tiles.count(JOKER) == 1


def test_p10_p11_the_window_waits_and_a_wait_is_not_a_call(table: Table) -> None:
    """P-10, P-11: the courtesy pause has no fixed length: the window stays open until the
    table closes it or the next player draws; a player who only said "wait" has no claim,
    so the next player's call takes the tile."""
    state = table(E=EAST, S=SOUTH, W=WEST, N="1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD")
    state, _ = apply(state, cm.Discard(E, T("1C")))
    assert state.step == "window" and state.live is not None
    state, _ = apply(state, cm.Call(S, "expose", time_us=9_000_000))
    state, caused = apply(state, cm.CloseWindow())
    closed = caused[0].public
    assert closed["winner"] == "S"


def test_m4_mahjong_in_error_corrected_at_once_no_penalty(table: Table) -> None:
    state = table(E="6B 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD", S=SOUTH, W=WEST,
                  N="1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD")
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(S, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.RetractMahJongg(S))
    assert state.rack(S).declared_dead is None and state.rack(S).evidence == []
    assert state.turn == S and state.step == "draw" and state.rack(E).discards == [T("6B")]


def test_m4_mahjong_found_short_becomes_an_exposure_call(table: Table) -> None:
    state = table(E="6B 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD", S=SOUTH, W=WEST,
                  N="1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD")
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(S, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.RetractMahJongg(S, to_exposure=True))
    state, _ = apply(state, cm.Expose(S, parse_tiles("6B 6B 6B")))
    assert state.rack(S).evidence == [] and state.step == "discard"
    with pytest.raises(RuleViolation, match="M-4"):
        apply(state, cm.RetractMahJongg(S))


def test_b1_b3_the_bettor(table: Table) -> None:
    opts = AmericanOptions(bettor=True)
    north = "8B 8B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD"
    state = table(E="6B 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD", S=SOUTH, W=WEST, N=north,
                  options=opts)
    state, events = apply(state, cm.PlaceBet("N"))
    assert events[0].public_json().get("private") is None  # the bet stays secret (B-1)
    with pytest.raises(RuleViolation, match="B-1"):
        apply(state, cm.PlaceBet("S"))
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    result = state.result
    assert result is not None
    # Paid exactly as the player bet on: East 100 (discarder, jokerless), the others 50.
    assert sum(p["amount"] for p in result["bettor"]["payments"]) == 200


def test_b1_no_bettor_unless_the_table_plays_one(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=SP1_WAITING)
    with pytest.raises(RuleViolation, match="B-1"):
        apply(state, cm.PlaceBet("N"))


def test_j5_several_exchanges_in_one_turn(table: Table) -> None:
    east = "NW GD 1C 2C 3C 5C 7C 9C NW EW EW SW SW WD"
    state = table(E=east, S=SOUTH, W=WEST, N=SP1_WAITING)
    state.rack(S).exposures.append(exposed("NW NW J"))
    state.rack(W).exposures.append(exposed("GD GD GD J"))
    state, _ = apply(state, cm.JokerExchange(E, S, T("NW")))
    state, _ = apply(state, cm.JokerExchange(E, W, T("GD")))
    assert state.rack(E).concealed.count(JOKER) == 2 and state.rack(E).evidence == []


def test_p7_first_turn_discard_before_drawing_may_be_taken_back(table: Table) -> None:
    state = table(E="6B 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD", S=SOUTH, W=WEST,
                  N="1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD")
    state, _ = apply(state, cm.Discard(E, T("1C")))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Discard(S, T("1B")))  # South forgot to draw
    assert [e.rule for e in state.rack(S).evidence] == ["DH-2 (g)"]
    state, _ = apply(state, cm.TakeBack(S))
    assert state.rack(S).evidence == [] and state.step == "draw" and T("1B") in \
        state.rack(S).concealed
    with pytest.raises(RuleViolation, match="P-7"):
        apply(state, cm.TakeBack(S))


def test_p1_another_player_discarding_first(card: object) -> None:
    from config.cards import SAMPLE_CARD, load_card

    state, _ = new_hand(load_card(SAMPLE_CARD), AmericanOptions(players=3), "mirror")
    with pytest.raises(RuleViolation, match="P-1"):
        apply(state, cm.Discard(S, T("1B")))  # takes it back; East throws
    state, _ = apply(state, cm.Draw(W))  # West drew from the wall ...
    state, _ = apply(state, cm.Discard(W, T("1B")))  # ... and discarded before East: redeal
    assert state.result is not None and state.result["rule"] == "American P-1"


def test_sc8_card_options_set_the_doubles_and_unknown_ones_are_flagged() -> None:
    """SC-8: doubles are confirmed before play; a card may carry the table's choice."""
    text = ('card "no jokerless" 2026\noption jokerless_double off\noption tea_break on\n'
            "T-1 X 25 : 1111a 2222a 3333a 44a\n")
    card, problems = compile_card(text)
    assert card is not None
    assert [(p.line, p.code) for p in problems] == [(3, "P11")]
    state, _ = new_hand(card, None, "full", random.Random(1))
    assert state.options.payments.jokerless_double is False
    state.phase, state.turn, state.step = "play", E, "discard"
    state.rack(E).concealed = parse_tiles("1B 1B 1B 1B 2B 2B 2B 2B 3B 3B 3B 3B 4B 4B")
    state, _ = apply(state, cm.DeclareMahJongg(E))
    assert state.result is not None and state.result["jokerless"] is True
    assert state.result["net"]["E"] == 150  # 25 x 2 (self-pick) x 3, no jokerless double


def test_m5_a_social_table_may_overrule_a_false_mahjong(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=SP1_WAITING,
                  options=AmericanOptions(false_mahjong="overrule"))
    state, events = apply(state, cm.DeclareMahJongg(E))
    assert events[0].public["overruled"] is True and state.rack(E).declared_dead is None
    assert state.turn == E and state.step == "discard"  # East plays on and discards
