"""Turns, calls and priority, exposures, Joker exchange, Mah Jongg and misnaming, by code."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from engine.american import commands as cm
from engine.american.events import AmericanEvent
from engine.american.game import AmericanHand, apply, public_view
from engine.errors import RuleViolation
from engine.seats import SEATS
from engine.tiles import JOKER, parse_tile, parse_tiles

E, S, W, N = SEATS
T = parse_tile
Table = Callable[..., AmericanHand]

EAST = "6B 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD"
SOUTH = "6B 6B 8B 8B 4D 4D 2D 2D 2D WD WD WD 1B"  # EV-1 with a pung of 6B to come
WEST = "6B 3C 3C 3C 7C 7C 9D 9D 9D 5D 5D 1D 2B"
NORTH_MJ = "8B 8B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD"  # EV-1 complete with a 6B


def kinds(events: Sequence[AmericanEvent]) -> list[str]:
    return [e.kind for e in events]


def after_east_discard(table: Table, north: str = "1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD",
                       **more: str) -> AmericanHand:
    hands = {"E": EAST, "S": SOUTH, "W": WEST, "N": north, **more}
    state = table(**hands)
    state, _ = apply(state, cm.Discard(E, T("6B")))
    return state


def test_p1_east_starts_by_discarding_without_drawing(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    with pytest.raises(RuleViolation, match="P-2"):
        apply(state, cm.Draw(E))
    with pytest.raises(RuleViolation, match="P-1"):
        apply(state, cm.Discard(S, T("1B")))


def test_p2_play_passes_to_the_right_and_c5_a_draw_closes_the_window(table: Table) -> None:
    """P-2, P-3: the next player's draw (racked) closes the window, C-5 (a); P-4: the wall
    tile moved is the drawer's."""
    state = after_east_discard(table)
    assert state.step == "window"
    state, events = apply(state, cm.Draw(S))  # no calls: South's draw closes the window (C-5 (a))
    assert kinds(events) == ["WindowClosed", "Drew"] and state.turn == S
    with pytest.raises(RuleViolation, match="C-5"):
        apply(state, cm.Call(W, "expose"))  # the 6B is dead now


def test_c5_pending_calls_are_adjudicated_before_the_next_draw(table: Table) -> None:
    state = after_east_discard(table)
    state, _ = apply(state, cm.Call(W, "expose"))
    with pytest.raises(RuleViolation, match="C-9"):
        apply(state, cm.Draw(S))


def test_c1_no_chows_and_c3_never_your_own_discard(table: Table) -> None:
    """C-1, S-4: a discard is called only for a set or for Mah Jongg."""
    state = after_east_discard(table)
    with pytest.raises(RuleViolation, match="C-1"):
        apply(state, cm.Call(S, "chow"))
    with pytest.raises(RuleViolation, match="C-3"):
        apply(state, cm.Call(E, "expose"))


def test_j3_p9_a_discarded_joker_is_dead(table: Table) -> None:
    state = table(E="J 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD", S=SOUTH, W=WEST, N=NORTH_MJ)
    state, events = apply(state, cm.Discard(E, JOKER))
    assert events[0].public["dead"] == "American J-3"
    with pytest.raises(RuleViolation, match="J-3"):
        apply(state, cm.Call(S, "expose"))


def test_c9_mahjong_beats_an_exposure_even_one_already_laid(table: Table) -> None:
    state = after_east_discard(table, north=NORTH_MJ)
    state, _ = apply(state, cm.Call(S, "expose", exposed=True))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, caused = apply(state, cm.CloseWindow())
    closed = caused[0].public
    assert closed["winner"] == "N" and "Mah Jongg beats an exposure" in closed["rule"]
    state, _ = apply(state, cm.DeclareMahJongg(N))
    assert state.result is not None and state.result["by"] == "discard"
    # SC-2 with SC-4: jokerless EV-1 (25 -> 50): East threw it and pays double.
    assert state.result["net"] == {"E": -100, "S": -50, "W": -50, "N": 200}


def test_c9_next_in_turn_among_exposure_calls(table: Table) -> None:
    state = after_east_discard(table)
    state, _ = apply(state, cm.Call(W, "expose"))
    state, _ = apply(state, cm.Call(S, "expose"))
    state, caused = apply(state, cm.CloseWindow())
    closed = caused[0].public
    assert closed["winner"] == "S" and "next in turn" in closed["rule"]


def test_c9_timing_exception_exposed_caller_keeps_it(table: Table) -> None:
    state = after_east_discard(table)
    state, _ = apply(state, cm.Call(W, "expose", time_us=100, exposed=True))
    state, _ = apply(state, cm.Call(S, "expose", time_us=250))
    state, caused = apply(state, cm.CloseWindow())
    closed = caused[0].public
    assert closed["winner"] == "W" and "already exposed" in closed["rule"]


def test_c9_two_mahjong_calls_if_the_nearer_is_wrong_the_other_gets_it(table: Table) -> None:
    state = after_east_discard(table, north=NORTH_MJ)
    state, _ = apply(state, cm.Call(S, "mahjong"))  # South is not complete: a Mah Jongg in error
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, caused = apply(state, cm.CloseWindow())
    assert caused[0].public["winner"] == "S"
    state, events = apply(state, cm.DeclareMahJongg(S))
    assert kinds(events)[:2] == ["FalseMahJongg", "CallAwarded"]
    assert state.rack(S).declared_dead is not None
    state, _ = apply(state, cm.DeclareMahJongg(N))
    assert state.result is not None and state.result["winner"] == "N"
    # SC-6: the dead hand pays at the single rate.
    paid = {p["from"]: p["amount"] for p in state.result["payments"]}
    assert paid == {"E": 100, "S": 50, "W": 50}


def test_c9_tile_called_for_mahjong_in_error_stays_with_the_dead_hand(table: Table) -> None:
    state = after_east_discard(table)
    state, _ = apply(state, cm.Call(S, "mahjong"))
    state, _ = apply(state, cm.Call(W, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(S))
    assert state.rack(S).concealed.count(T("6B")) == 3 and state.turn == W
    assert state.awarded is None and state.step == "draw"


def test_c10_a_call_takes_the_turn_and_skips_the_players_between(table: Table) -> None:
    north = "6B 6B 1D 1D 1D 3D 3D 3D 5D 5D 5D 7D RD"
    state = after_east_discard(table, north=north)
    state, _ = apply(state, cm.Call(N, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    assert state.turn == N and state.step == "awarded"
    with pytest.raises(RuleViolation, match="C-10"):
        apply(state, cm.Discard(N, T("RD")))
    state, _ = apply(state, cm.Expose(N, parse_tiles("6B 6B 6B")))
    state, _ = apply(state, cm.Discard(N, T("RD")))
    state, _ = apply(state, cm.CloseWindow())
    assert state.turn == E  # South and West lost their turn


def test_c7_c8_exposure_may_change_until_the_discard_then_it_is_locked(table: Table) -> None:
    south = "6B 6B J 8B 4D 4D 2D 2D 2D WD WD WD 1B"
    state = after_east_discard(table, S=south)
    state, _ = apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(S, parse_tiles("6B 6B 6B")))
    state, events = apply(state, cm.AdjustExposure(S, parse_tiles("6B 6B 6B J")))  # pung to kong
    assert events[0].public["rule"] == "American C-8" and JOKER not in state.rack(S).concealed
    state, _ = apply(state, cm.AdjustExposure(S, parse_tiles("6B 6B 6B")))  # and back
    assert JOKER in state.rack(S).concealed
    state, _ = apply(state, cm.Discard(S, T("1B")))
    with pytest.raises(RuleViolation, match="C-8"):
        apply(state, cm.AdjustExposure(S, parse_tiles("6B 6B 6B J")))
    assert public_view(state)["seats"]["S"]["exposures"] == [["6B", "6B", "6B"]]  # C-7


def test_j15_a_joker_won_by_exchange_may_not_join_this_turns_exposure(table: Table) -> None:
    north = "6B 6B 1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 2D"
    state = after_east_discard(table, north=north)
    state.rack(W).exposures.append(_exposure("2D 2D J"))
    state, _ = apply(state, cm.Call(N, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(N, parse_tiles("6B 6B 6B")))
    state, _ = apply(state, cm.JokerExchange(N, W, T("2D")))
    assert JOKER in state.rack(N).concealed
    with pytest.raises(RuleViolation, match="J-15"):
        apply(state, cm.AdjustExposure(N, parse_tiles("6B 6B 6B J")))


def _exposure(tiles: str):  # type: ignore[no-untyped-def]
    from engine.american.game import ExposedSet

    shown = parse_tiles(tiles)
    return ExposedSet(shown, next(t for t in shown if t != JOKER), this_turn=False)


def test_j4_natural_for_joker_in_any_exposure_never_the_reverse(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state.rack(S).exposures.append(_exposure("NW NW J"))
    state, events = apply(state, cm.JokerExchange(E, S, T("NW")))
    assert events[0].public["exposure"] == ["NW", "NW", "NW"] and JOKER in state.rack(E).concealed
    with pytest.raises(RuleViolation, match="J-4"):
        apply(state, cm.JokerExchange(E, S, JOKER))
    with pytest.raises(RuleViolation, match="J-4"):
        apply(state, cm.JokerExchange(E, S, T("EW")))  # no Joker stands for East


def test_j9_a_discarded_tile_cannot_be_used_for_an_exchange(table: Table) -> None:
    """J-9, P-5: down is down."""
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state.rack(S).exposures.append(_exposure("GD GD J"))
    state, _ = apply(state, cm.Discard(E, T("GD")))
    with pytest.raises(RuleViolation, match="J-4"):
        apply(state, cm.JokerExchange(E, S, T("GD")))


def test_j5_exchange_before_drawing_leaves_the_hand_dead(table: Table) -> None:
    state = after_east_discard(table)
    state.rack(W).exposures.append(_exposure("2D 2D J"))
    state, _ = apply(state, cm.Draw(S))
    state, _ = apply(state, cm.Discard(S, T("1B")))
    state, _ = apply(state, cm.CloseWindow())
    state.rack(W).concealed.append(T("2D"))
    state, _ = apply(state, cm.JokerExchange(W, W, T("2D")))  # West's turn, but no draw yet
    assert [e.rule for e in state.rack(W).evidence] == ["DH-2 (b)"]


def test_j7_c5b_an_exchange_closes_the_call_window(table: Table) -> None:
    """J-7 (call first, then redeem), J-10 (no calls during an exchange), C-5 (b)."""
    state = after_east_discard(table)
    state.rack(N).exposures.append(_exposure("2D 2D J"))
    state, _ = apply(state, cm.Call(S, "expose"))
    state.rack(W).concealed.append(T("2D"))
    state, events = apply(state, cm.JokerExchange(W, N, T("2D")))
    assert "WindowClosed" in kinds(events) and state.live is None
    with pytest.raises(RuleViolation, match="C-5"):
        apply(state, cm.Call(S, "expose"))


def test_j12_finesse_is_self_picked_and_never_jokerless(table: Table) -> None:
    east = "8B 8B 6B 6B 6B 4D 4D 2D 2D 2D 2D WD WD WD"  # EV-1 short a Soap
    state = table(E=east, S=SOUTH, W=WEST, N=NORTH_MJ)
    state.rack(S).exposures.append(_exposure("2D 2D J"))
    state, _ = apply(state, cm.JokerExchange(E, S, T("2D")))
    state, _ = apply(state, cm.DeclareMahJongg(E))
    result = state.result
    assert result is not None and result["by"] == "finesse" and result["jokerless"] is False
    assert result["net"] == {"E": 150, "S": -50, "W": -50, "N": -50}  # 25 x 2 from each


def test_j11_jokerless_is_judged_on_the_final_fourteen(table: Table) -> None:
    # South's exposed 6B pung held a Joker; East redeemed it with a natural 6B. South then
    # wins with no Joker anywhere: jokerless (SC-4), 25 doubled, self-picked: 100 from each.
    state = table(E=EAST, S="8B 8B 4D 4D 2D 2D 2D WD WD WD", W=WEST, N=NORTH_MJ,
                  wall="WD 3C 3C")
    state.rack(S).exposures.append(_exposure("6B 6B J"))
    state, _ = apply(state, cm.JokerExchange(E, S, T("6B")))
    state, _ = apply(state, cm.Discard(E, T("1C")))
    state, _ = apply(state, cm.Draw(S))
    state, _ = apply(state, cm.DeclareMahJongg(S))
    result = state.result
    assert result is not None and result["jokerless"] is True and result["by"] == "wall"
    assert result["net"] == {"E": -100, "S": 300, "W": -100, "N": -100}


def test_m1_self_picked_mahjong_and_m3_the_best_value_is_proposed(table: Table) -> None:
    east = "8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD 1C"
    state = table(E=east, S=SOUTH, W=WEST, N=NORTH_MJ, wall="J 5B")
    state, _ = apply(state, cm.Discard(E, T("1C")))
    state, _ = apply(state, cm.CloseWindow())
    state.turn, state.step = E, "draw"  # a table where East draws next, for brevity
    state, _ = apply(state, cm.Draw(E))
    state, _ = apply(state, cm.DeclareMahJongg(E))
    result = state.result
    assert result is not None and result["by"] == "wall" and result["line"] == "EV-1"
    assert result["net"]["E"] == 150  # SC-3: 25 x 2 from each, Joker in the Soap kong


def test_m1_declaring_out_of_turn_is_refused(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    with pytest.raises(RuleViolation, match="M-1"):
        apply(state, cm.DeclareMahJongg(N))


def test_m2_nobody_throws_in_before_a_mahjong_is_verified(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    with pytest.raises(RuleViolation, match="M-2"):
        apply(state, cm.ThrowIn(S))


def test_m4_false_mahjong_declarer_dead_others_play_on(table: Table) -> None:
    """M-4; M-5 (the tournament convention, our default): dead on the spot. W-4: no house
    walls (hot, cold, mushing) exist in the engine to switch on."""
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, events = apply(state, cm.DeclareMahJongg(E))
    assert kinds(events)[0] == "FalseMahJongg" and state.rack(E).declared_dead
    assert state.result is None and state.turn == S and state.step == "draw"
    with pytest.raises(RuleViolation, match="DH-7"):
        apply(state, cm.Draw(E))


def test_m4_cascade_two_thrown_in_declarer_pays_the_intact_player_double(
        table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.DeclareMahJongg(E))
    state, _ = apply(state, cm.ThrowIn(S))
    state, _ = apply(state, cm.ThrowIn(W))
    result = state.result
    assert result is not None and result["net"]["N"] == 50 and result["net"]["E"] == -50


def test_c12_no_call_after_mahjong(table: Table) -> None:
    state = after_east_discard(table, north=NORTH_MJ)
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    with pytest.raises(RuleViolation, match="M-1"):
        apply(state, cm.Call(S, "expose"))


def test_w1_wall_game_nobody_pays(table: Table) -> None:
    """W-1 (SC-7)."""
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ, wall="")
    state, _ = apply(state, cm.Discard(E, T("GD")))
    state, events = apply(state, cm.CloseWindow())
    assert state.result is not None and state.result["result"] == "wall"
    assert state.result["payments"] == [] and "W-1" in events[-1].public["rule"]


def test_mn1_a_misnamed_discard_corrected_before_anyone_acts(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.Discard(E, T("6B"), named=T("6C")))
    state, _ = apply(state, cm.CorrectName(E))
    state, _ = apply(state, cm.Call(S, "expose"))
    assert state.rack(S).evidence == []
    with pytest.raises(RuleViolation, match="MN-1"):
        apply(state, cm.CorrectName(E))


def test_mn2_exposure_call_on_a_wrong_name_kills_the_caller(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.Discard(E, T("6B"), named=T("6C")))
    state, _ = apply(state, cm.Call(S, "expose"))
    assert [e.rule for e in state.rack(S).evidence] == ["DH-2 (k)"]
    assert state.rack(E).evidence == []  # the misnamer is not penalised


def test_mn3_mahjong_on_a_wrong_name_misnamer_pays_for_the_table(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.Discard(E, T("6B"), named=T("6C")))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    result = state.result
    assert result is not None and result["payments"] == [
        {"from": "E", "to": "N", "amount": 200,
         "why": "pays for the table: four times the value (American MN-3)"}]


def test_mn4_a_joker_called_by_a_tiles_name(table: Table) -> None:
    east = "J 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD"
    state = table(E=east, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.Discard(E, JOKER, named=T("6B")))
    with pytest.raises(RuleViolation, match="J-3"):
        apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    result = state.result
    assert result is not None and result["payments"][0]["from"] == "E"
    assert "MN-4" in result["payments"][0]["why"]


def test_mn5_priority_is_unchanged_on_a_misnamed_tile(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.Discard(E, T("6B"), named=T("6C")))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.Call(W, "mahjong"))
    state, caused = apply(state, cm.CloseWindow())
    assert caused[0].public["winner"] == "W"


def test_three_handed_priority_among_players_present(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, players=3)
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(W, "expose"))
    state, _ = apply(state, cm.Call(S, "expose"))
    state, caused = apply(state, cm.CloseWindow())
    assert caused[0].public["winner"] == "S"


def test_m4_cascade_one_thrown_in_then_a_third_goes_dead(table: Table) -> None:
    """M-4: one threw in, the two intact play on; the one that then goes dead pays the
    remaining player double the hand that player was attempting."""
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH_MJ)
    state, _ = apply(state, cm.DeclareMahJongg(E))  # false: East is dead
    state, _ = apply(state, cm.ThrowIn(S))
    state, _ = apply(state, cm.Challenge(N, W))  # disputed: West's concealed hand shows nothing
    state, _ = apply(state, cm.ConcedeDead(W))  # West accepts and stops: North alone is intact
    result = state.result
    assert result is not None and result["result"] == "dead"
    north_value = 25  # North is nearest EV-1 (25)
    assert {"from": "W", "to": "N", "amount": 2 * north_value,
            "why": "went dead after a false Mah Jongg cascade: double the remaining player's "
                   "hand (American M-4)"} in result["payments"]


def test_c6_a_call_may_be_withdrawn_until_committed(table: Table) -> None:
    state = after_east_discard(table)
    state, _ = apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.Call(W, "expose", exposed=True))
    state, _ = apply(state, cm.WithdrawCall(S))
    with pytest.raises(RuleViolation, match="C-6"):
        apply(state, cm.WithdrawCall(W))  # tiles already laid: committed
    state, caused = apply(state, cm.CloseWindow())
    assert caused[0].public["winner"] == "W"
    other = after_east_discard(table)
    other, _ = apply(other, cm.Call(S, "expose"))
    other, _ = apply(other, cm.CloseWindow())
    other, _ = apply(other, cm.WithdrawCall(S))  # not yet racked: the tile goes back, play goes on
    assert other.rack(E).discards == [T("6B")] and other.turn == S and other.step == "draw"


def test_c2_a_call_is_one_word_the_tiles_say_what_was_made(table: Table) -> None:
    """C-2: nobody announces pung or kong; the exposure laid shows it."""
    state = after_east_discard(table, S="6B 6B 6B 8B 8B 4D 4D 2D 2D 2D WD WD 1B")
    state, _ = apply(state, cm.Call(S, "expose"))
    with pytest.raises(RuleViolation, match="C-2"):
        apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(S, parse_tiles("6B 6B 6B 6B")))  # a kong, never announced
    assert public_view(state)["seats"]["S"]["exposures"] == [["6B"] * 4]


def test_c4_the_same_tile_twice_a_claim_takes_the_second(table: Table) -> None:
    """C-4 (and C-3~: only the most recent discard): once a second 6B is thrown, the first is
    dead; a call goes to the second."""
    state = after_east_discard(table, S="6B 6B 8B 8B 4D 4D 2D 2D 2D WD WD WD 1B")
    state, _ = apply(state, cm.Draw(S))
    state, _ = apply(state, cm.Discard(S, T("6B")))
    state, _ = apply(state, cm.Call(W, "expose"))
    state, caused = apply(state, cm.CloseWindow())
    closed = caused[0].public
    assert closed["discarder"] == "S" and state.rack(E).discards == [T("6B")]
