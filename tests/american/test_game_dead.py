"""Dead hands (DH-1..DH-9, every cause DH-2 (a)-(n)), Jokers on a dead hand (J-13, J-8), and
mirror mode, by code. The engine keeps its evidence private and rules only on a challenge."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.american import commands as cm
from engine.american.card import compile_card
from engine.american.game import (
    AmericanHand,
    AmericanOptions,
    Evidence,
    ExposedSet,
    apply,
    new_hand,
    public_view,
)
from engine.errors import RuleViolation
from engine.seats import SEATS
from engine.tiles import JOKER, parse_tile, parse_tiles

E, S, W, N = SEATS
T = parse_tile
Table = Callable[..., AmericanHand]

EAST = "6B 1C 2C 3C 5C 7C 9C NW NW EW EW SW SW GD"
SOUTH = "6B 6B 8B 8B 4D 4D 2D 2D 2D WD WD WD 1B"
WEST = "6B 3C 3C 3C 7C 7C 9D 9D 9D 5D 5D 1D 2B"
NORTH = "1D 1D 1D 3D 3D 3D 5D 5D 5D 7D 7D 9D RD"


def rules(state: AmericanHand, seat: object) -> list[str]:
    return [e.rule for e in state.rack(seat).evidence]  # type: ignore[arg-type]


def exposed(tiles: str) -> ExposedSet:
    shown = parse_tiles(tiles)
    return ExposedSet(shown, next(t for t in shown if t != JOKER), this_turn=False)


def mirror(text: str | None = None) -> AmericanHand:
    card, _ = compile_card(text) if text else (None, None)
    if card is None:
        from config.cards import SAMPLE_CARD, load_card

        card = load_card(SAMPLE_CARD, use_cache=False)
    state, _ = new_hand(card, AmericanOptions(second_charleston=False, courtesy=False),
                        "mirror", random.Random(1))
    for _ in range(3):
        for s in SEATS:
            state, _ = apply(state, cm.CharlestonPass(s, count=3))
    assert state.phase == "play"
    return state


def test_dh1_nobody_declares_their_own_hand_dead(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    with pytest.raises(RuleViolation, match="DH-1"):
        apply(state, cm.Challenge(S, S))
    with pytest.raises(RuleViolation, match="DH-1"):
        apply(state, cm.ConcedeDead(S))


def test_dh4_the_engine_never_announces_a_dead_hand(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH, step="draw")
    state, events = apply(state, cm.Discard(E, T("GD")))  # discarding before drawing: DH-2 (g)
    assert rules(state, E) == ["DH-2 (g)"]
    published = [e.public_json() for e in events] + [public_view(state)]
    assert "DH-2" not in str(published) and "evidence" not in str(published)
    assert public_view(state)["seats"]["E"]["declared_dead"] is False


def test_dh2_a_wrong_count_after_easts_first_discard() -> None:
    state = mirror()
    state, _ = apply(state, cm.Discard(E, T("GD")))
    state, _ = apply(state, cm.Observed(S, "count:12"))
    assert rules(state, S) == ["DH-2 (a)"]
    state, ruling = apply(state, cm.Challenge(W, S))
    assert ruling[0].public == {"target": "S", "ruling": "upheld", "rule": "American DH-2 (a)"}


def test_dh9_wrong_count_before_the_first_discard_is_a_redeal() -> None:
    state = mirror()
    state, _ = apply(state, cm.Observed(S, "count:12"))
    assert state.result is not None and state.result["result"] == "redeal"


def test_dh2_b_exchange_before_drawing(table: Table) -> None:
    state = table(E=EAST, S=SOUTH + " NW", W=WEST, N=NORTH, turn="S", step="draw")
    state.rack(W).exposures.append(exposed("NW NW J"))
    state.rack(S).concealed.remove(T("1B"))
    state.rack(S).count = 13
    state, _ = apply(state, cm.JokerExchange(S, W, T("NW")))
    assert rules(state, S) == ["DH-2 (b)"]


def test_dh2_c_incorrect_exposure_is_upheld_on_challenge() -> None:
    """DH-2 (c), C-11: a call that cannot be completed legally."""
    state = mirror()
    state, _ = apply(state, cm.Discard(E, T("3B")))
    state, _ = apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(S, parse_tiles("1B 2B 3B")))  # a run is never exposed (C-1)
    assert "DH-2 (c)" in rules(state, S)
    state, _ = apply(state, cm.Discard(S, T("9C")))
    state, events = apply(state, cm.Challenge(N, S))
    assert [e.kind for e in events] == ["ChallengeRuled", "DeclaredDead"]
    # J-13: the erroneous exposure goes back to the rack, Jokers and all.
    assert state.rack(S).exposures == [] and state.rack(S).count == 13


def test_dh2_d_exposures_that_match_no_hand(table: Table) -> None:
    state = table(E=EAST, S="GD GD GD 8B 4D 4D 2D 2D 2D WD WD WD 1B", W=WEST, N=NORTH)
    state, _ = apply(state, cm.Discard(E, T("GD")))
    state, _ = apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(S, parse_tiles("GD GD GD GD")))  # no line has a Green kong
    assert rules(state, S) == ["DH-2 (d)"]


CUSTOM = """card "dead hands" 2026
T-1 X 25 : 1111a 2222a 3333a 44a
T-2 C 50 : NNNN EEEE WWW SSS
"""


def test_dh2_e_unwinnable_when_the_pair_is_gone() -> None:
    state = mirror(CUSTOM)
    state, _ = apply(state, cm.Discard(E, T("1B")))
    state, _ = apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(S, parse_tiles("1B 1B 1B J")))
    state, _ = apply(state, cm.Discard(S, T("4B")))
    assert rules(state, S) == []  # three 4B remain unseen: a pair is still possible
    for seat in (W, N):
        state, _ = apply(state, cm.Draw(seat))
        state, _ = apply(state, cm.Discard(seat, T("4B")))
    assert rules(state, S) == ["DH-2 (e)"]  # three of the four are gone (physical reading)


def test_dh2_e_literal_threshold_option() -> None:
    from engine.american.card import CompiledCard
    from engine.american.match import Exposure, unwinnable

    card, _ = compile_card(CUSTOM)
    assert isinstance(card, CompiledCard)
    kong = (Exposure(T("1B"), 4, 1),)
    # Only a single is ever needed of a tile here? No: a pair of 4s. With two seen, the
    # physical reading keeps it alive; three seen kills it under both readings.
    assert not unwinnable(card, kong, {T("4B"): 2})
    assert unwinnable(card, kong, {T("4B"): 3}) and unwinnable(card, kong, {T("4B"): 3}, True)


def test_dh2_f_exposures_on_a_concealed_hand() -> None:
    state = mirror(CUSTOM)
    state, _ = apply(state, cm.Discard(E, T("NW")))
    state, _ = apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Expose(S, parse_tiles("NW NW NW NW")))  # only the C line has it
    assert rules(state, S) == ["DH-2 (f)"]


def test_dh2_g_discarding_before_drawing(table: Table) -> None:
    """DH-2 (g), P-7: a 12-tile hand."""
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH, turn="S", step="draw")
    state, _ = apply(state, cm.Discard(S, T("1B")))
    assert rules(state, S) == ["DH-2 (g)"]


def test_dh2_h_drawing_out_of_turn_in_mirror_refused_in_full(table: Table) -> None:
    """DH-2 (h), P-6: no drawing or looking ahead."""
    state = mirror()
    state, _ = apply(state, cm.Discard(E, T("GD")))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Draw(W))  # South's turn
    assert rules(state, W) == ["DH-2 (h)"]
    full = table(E=EAST, S=SOUTH, W=WEST, N=NORTH, turn="S", step="draw")
    with pytest.raises(RuleViolation, match="P-2"):
        apply(full, cm.Draw(W))


@pytest.mark.parametrize(("cause", "rule"), [("i", "DH-2 (i)"), ("j", "DH-2 (j)"),
                                             ("n", "DH-2 (n)"), ("k", "DH-2 (k)")])
def test_dh2_i_j_n_k_faults_the_table_reports(cause: str, rule: str) -> None:
    """P-8: wrong wall, wrong end, a wall pushed out wrongly; MN-2 for (k)."""
    state = mirror()
    state, _ = apply(state, cm.Observed(N, cause))
    assert rules(state, N) == [rule]
    state, caused = apply(state, cm.Challenge(E, N))
    assert caused[0].public["rule"] == f"American {rule}"


def test_dh2_l_false_mahjong_with_tiles_exposed(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    state.rack(E).exposures.append(exposed("NW NW NW"))
    state, _ = apply(state, cm.DeclareMahJongg(E))
    assert state.rack(E).declared_dead == "American M-4, DH-2 (l)"


def test_dh2_m_j8_a_wrong_exchange_left_until_the_discard() -> None:
    state = mirror()
    state.rack(S).exposures.append(exposed("NW NW J"))
    state, _ = apply(state, cm.JokerExchange(E, S, T("EW"), index=0))  # East puts in the wrong wind
    assert rules(state, S) == []  # correctable until the discard (J-8)
    state, _ = apply(state, cm.Discard(E, T("GD")))
    assert rules(state, S) == ["DH-2 (m)"]  # Q2 default: the rack with the wrong exposure


def test_j13_erroneous_exposure_jokers_are_not_redeemable(table: Table) -> None:
    state = table(E=EAST + "", S=SOUTH, W=WEST, N=NORTH)
    wrong = exposed("NW NW J")
    wrong.erroneous = "DH-2 (c)"
    state.rack(S).exposures.append(wrong)
    with pytest.raises(RuleViolation, match="J-13"):
        apply(state, cm.JokerExchange(E, S, T("NW")))


def test_j13_correct_exposures_of_a_dead_hand_stay_redeemable(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    state.rack(S).exposures.append(exposed("NW NW J"))
    state.rack(S).declared_dead = "American DH-2 (g)"
    state, _ = apply(state, cm.JokerExchange(E, S, T("NW")))
    assert state.rack(S).exposures[0].tiles == parse_tiles("NW NW NW")


def test_dh3_a_concealed_hand_is_never_called_dead_on_a_guess(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    state, events = apply(state, cm.Challenge(W, S))
    assert events[0].public["ruling"] == "disputed" and state.rack(S).declared_dead is None


def test_dh5_dh6_a_disputed_challenge_costs_the_wrong_party_50(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N="8B 8B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD")
    state, _ = apply(state, cm.Challenge(W, S))  # out of turn: allowed at any time (DH-5)
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    result = state.result
    assert result is not None
    assert {"from": "W", "to": "S", "amount": 50,
            "why": "called dead a hand that was not (American DH-6)"} in result["payments"]


def test_dh5_the_challenged_may_accept_and_stop(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    state, _ = apply(state, cm.Challenge(W, S))
    state, _ = apply(state, cm.ConcedeDead(S))
    assert state.rack(S).declared_dead == "American DH-5" and state.challenges == []


def test_dh4_quietly_dead_keeps_playing_but_cannot_win(table: Table) -> None:
    state = table(E="8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD 1C", S=SOUTH, W=WEST, N=NORTH,
                  wall="WD 3C")
    state.rack(E).evidence.append(Evidence("DH-2 (h)", "drew out of turn", True))
    state, _ = apply(state, cm.Discard(E, T("1C")))
    state, _ = apply(state, cm.CloseWindow())
    state.turn, state.step = E, "draw"
    state, _ = apply(state, cm.Draw(E))  # a quietly dead hand keeps drawing
    state, events = apply(state, cm.DeclareMahJongg(E))
    assert events[0].kind == "FalseMahJongg" and "DH-4" in events[0].public["why"]


def test_dh7_declared_dead_no_draw_discard_call_or_win(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    state.rack(S).declared_dead = "American DH-2 (g)"
    state, _ = apply(state, cm.Discard(E, T("6B")))
    with pytest.raises(RuleViolation, match="DH-7"):
        apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.CloseWindow())
    assert state.turn == W  # the dead hand's turn is skipped
    with pytest.raises(RuleViolation, match="DH-7"):
        apply(state, cm.Challenge(S, W))


def test_dh7_dead_hand_pays_single_sc6(table: Table) -> None:
    state = table(E="8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD 1C", S=SOUTH, W=WEST, N=NORTH,
                  wall="J 3C")
    state.rack(N).declared_dead = "American DH-2 (g)"
    state, _ = apply(state, cm.Discard(E, T("1C")))
    state, _ = apply(state, cm.CloseWindow())
    state.turn, state.step = E, "draw"
    state, _ = apply(state, cm.Draw(E))
    state, _ = apply(state, cm.DeclareMahJongg(E))
    result = state.result
    assert result is not None and result["net"] == {"E": 125, "S": -50, "W": -50, "N": -25}


def test_dh8_a_dead_hand_lasts_the_hand_only(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    state.rack(S).declared_dead = "American DH-2 (g)"
    fresh, _ = new_hand(state.card, AmericanOptions(), "full", random.Random(2))
    assert all(r.declared_dead is None and not r.evidence for r in fresh.racks.values())


def test_dh9_three_dead_hands_the_last_throws_in_nobody_paid(table: Table) -> None:
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    for seat in (S, W):
        state.rack(seat).declared_dead = "American DH-2 (g)"
    state.rack(N).evidence.append(Evidence("DH-2 (g)", "", True))
    state, _ = apply(state, cm.Challenge(E, N))
    assert state.result is not None and state.result["result"] == "dead"
    assert state.result["payments"] == []


def test_mirror_mode_mahjong_is_verified_from_the_shown_hand() -> None:
    state = mirror()
    state, _ = apply(state, cm.Discard(E, T("GD")))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.Draw(S))
    shown = parse_tiles("8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD J")
    with pytest.raises(Exception, match="concealed"):
        apply(state, cm.DeclareMahJongg(S))
    state, _ = apply(state, cm.DeclareMahJongg(S, concealed=tuple(shown)))
    assert state.result is not None and state.result["line"] == "EV-1"
    assert state.result["net"]["S"] == 150


def test_nothing_published_names_a_concealed_tile(table: Table) -> None:
    """Contracts: only tiles shown face up are published; the losers' racks stay private."""
    state = table(E=EAST, S=SOUTH, W=WEST, N="8B 8B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD")
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, events = apply(state, cm.DeclareMahJongg(N))
    published = str([e.public_json() for e in events]) + str(public_view(state))
    assert "1B" not in published and "9D" not in published  # South's and West's racks
    assert events[-1].private["racks"]["S"][0] == "6B"


def test_ch7_east_left_one_short_may_draw_before_the_first_discard() -> None:
    state = mirror()
    state, _ = apply(state, cm.Observed(N, "count:12"))
    assert state.result is None
    state, events = apply(state, cm.Draw(N))
    assert events[0].public["rule"] == "American CH-7" and state.rack(N).evidence == []
    assert state.rack(N).count == 14  # mirror: 13 counted on the deal, plus this one


def test_dh9_three_wrong_counts_after_the_first_discard_replay() -> None:
    state = mirror()
    state, _ = apply(state, cm.Discard(E, T("GD")))
    state, _ = apply(state, cm.Observed(S, "count:12"))
    state, _ = apply(state, cm.Observed(W, "count:15"))
    assert state.result is None  # two wrong: the other two play on
    state, _ = apply(state, cm.Observed(N, "count:11"))
    assert state.result is not None and state.result["rule"] == "American DH-9"


def test_j8_a_wrong_exchange_corrected_before_the_discard_costs_nothing() -> None:
    state = mirror()
    state.rack(S).exposures.append(exposed("NW NW J"))
    state, _ = apply(state, cm.JokerExchange(E, S, T("EW"), index=0))
    with pytest.raises(RuleViolation, match="J-4"):
        apply(state, cm.CorrectExchange(E, S, T("SW")))
    state, _ = apply(state, cm.CorrectExchange(E, S, T("NW")))
    assert state.rack(S).exposures[0].tiles == parse_tiles("NW NW NW")
    state, _ = apply(state, cm.Discard(E, T("GD")))
    assert rules(state, S) == [] and rules(state, E) == []
    with pytest.raises(RuleViolation, match="J-8"):
        apply(state, cm.CorrectExchange(E, S, T("NW")))


def test_p6_a_looked_ahead_tile_discarded_is_dead_but_for_mahjong(table: Table) -> None:
    north = "8B 8B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD"
    state = table(E=EAST, S=SOUTH, W=WEST, N=north)
    state, _ = apply(state, cm.Discard(E, T("6B"), looked_ahead=True))
    with pytest.raises(RuleViolation, match="P-6"):
        apply(state, cm.Call(S, "expose"))
    state, _ = apply(state, cm.Call(N, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, _ = apply(state, cm.DeclareMahJongg(N))
    result = state.result
    assert result is not None and result["payments"] == [
        {"from": "E", "to": "N", "amount": 200,
         "why": "pays for the table: four times the value (American P-6)"}]


@pytest.mark.parametrize("players", [3, 4])
def test_m4_w1_a_false_mahjong_on_the_last_tile_is_a_wall_game(table: Table,
                                                               players: int) -> None:
    # M-4: the false declarer is dead and the others play on; but the called tile was the
    # last of the wall, so nobody has a tile to draw: the wall is exhausted, a wall game (W-1).
    seated = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}
    if players == 3:
        del seated["N"]  # three-handed: North's seat is empty ("Two and three players")
    state = table(wall="", players=players, **seated)
    state, _ = apply(state, cm.Discard(E, T("6B")))
    state, _ = apply(state, cm.Call(S, "mahjong"))
    state, _ = apply(state, cm.CloseWindow())
    state, events = apply(state, cm.DeclareMahJongg(S))
    assert [e.kind for e in events] == ["FalseMahJongg", "HandEnded"]
    assert state.rack(S).declared_dead == "American M-4, DH-2 (l)"
    result = state.result
    assert result is not None and result["result"] == "wall"
    assert result["rule"] == "American W-1" and result["payments"] == []
    assert result["tournament"]["S"] == 0 and result["tournament"]["E"] == 10  # SC-9


def test_dh7_w1_a_hand_declared_dead_after_drawing_the_last_tile(table: Table) -> None:
    # DH-7: the dead hand stops; the next player would draw, but the wall is exhausted (W-1).
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH, wall="", turn="S")
    state.rack(S).evidence.append(Evidence("DH-2 (g)", "a short hand", True))
    state, events = apply(state, cm.Challenge(E, S))
    assert [e.kind for e in events][-2:] == ["DeclaredDead", "HandEnded"]
    assert state.result is not None and state.result["rule"] == "American W-1"


def test_m4_a_throw_in_leaves_the_window_on_the_discard_open(table: Table) -> None:
    # M-4: after a false Mah Jongg a player throws in right after discarding; the others may
    # still call that discard (C-5), and the turn then passes over both dead hands.
    state = table(E=EAST, S=SOUTH, W=WEST, N=NORTH)
    # A concealed hand that makes no line: dead (M-4).
    state, _ = apply(state, cm.DeclareMahJongg(E))
    state, _ = apply(state, cm.Draw(S))
    state, _ = apply(state, cm.Discard(S, T("1B")))
    state, _ = apply(state, cm.ThrowIn(S))
    assert state.step == "window" and state.live is not None
    state, _ = apply(state, cm.Call(N, "expose"))
    state, _ = apply(state, cm.WithdrawCall(N))
    state, _ = apply(state, cm.CloseWindow())
    assert state.turn == W and state.step == "draw"
