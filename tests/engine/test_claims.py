"""Claiming and its priority: one example per law, each named by its law.

Code of 1924 Laws 34-43, 50-53, 64-65, 90; Classical claim priority (a)-(c); Pung-Chow F
rules 4-6. Hands are dealt from a rigged wall (conftest), so every tile is known.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import events as ev
from engine.commands import (
    AddKong,
    Claim,
    CloseClaims,
    DeclareKong,
    DeclareMahjong,
    Discard,
    Draw,
    Expose,
    GroundFlower,
    WashTiles,
)
from engine.errors import RuleViolation
from engine.game import apply
from engine.seats import Seat
from engine.state import HandState
from engine.tiles import parse_tile, parse_tiles

Rig = Callable[..., HandState]  # the ``rig`` fixture (conftest)
E, S, W, N = Seat.E, Seat.S, Seat.W, Seat.N
T = parse_tile


def close(state: HandState) -> ev.ClaimsClosed:
    _, events = apply(state, CloseClaims())
    closed = events[0]
    assert isinstance(closed, ev.ClaimsClosed)
    return closed


def east_discards(state: HandState, tile: str) -> None:
    apply(state, Discard(seat=E, tile=T(tile)))


# A hand of East's that holds 3C to throw; the rest does not matter.
EAST = "3C 1B 1B 1B 2B 3B 4B 5C 6C 7C EW EW RD RD"


def test_law_34_chow_only_from_the_left(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "1C 2C", "W": "4C 5C"})
    east_discards(state, "3C")
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="chow"))
    assert (refused.value.rule, refused.value.code) == ("Code 1924, Law 34", "chow_left")
    assert refused.value.command == Claim(seat=W, kind="chow")
    assert refused.value.seq == len(state.standing)
    assert "W may chow only the discard of the player on its left, not E's" in str(refused.value)
    apply(state, Claim(seat=S, kind="chow", tiles=parse_tiles("1C 2C")))
    closed = close(state)
    assert (closed.winner, closed.kind, closed.rule) == (S, "chow", "Code 1924, Law 34")
    apply(state, Expose(seat=S, tiles=parse_tiles("1C 2C 3C")))
    assert state.seats[S].melds[0].tiles == tuple(parse_tiles("1C 2C 3C"))


NORTH_CHOW_WAIT = "1C 2C 5D 5D 5D 7B 8B 9B GD GD GD WD WD"
NORTH_CHOW_ONLY = "1C 2C 5D 5D 5D 7B 8B 9B SW SW SW WD WD"


def test_law_35_mahjong_by_chow_from_any_player(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "N": NORTH_CHOW_ONLY})
    east_discards(state, "3C")
    apply(state, Claim(seat=N, kind="mahjong"))
    assert close(state).winner == N
    _, events = apply(state, DeclareMahjong(seat=N))
    won = events[0]
    assert isinstance(won, ev.MahjongDeclared)
    assert (won.by, won.discarder, won.win_tile) == ("discard", E, T("3C"))
    assert "earth" in won.context  # won on East's first discard (Law 100 XI)


def test_pungchow_mahjong_by_chow_only_from_the_left(rig: Rig) -> None:
    state = rig("pungchow", hands={"E": EAST, "N": NORTH_CHOW_ONLY})
    east_discards(state, "3C")
    apply(state, Claim(seat=N, kind="mahjong"))
    close(state)
    _, events = apply(state, DeclareMahjong(seat=N))
    false = events[0]
    assert isinstance(false, ev.FalseMahjong)
    assert false.rule == "Pung-Chow, E"
    assert state.result == "false_mahjong"


def test_law_36_37_pung_from_anyone_and_intervening_players_lose_their_turn(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "3C 3C"})
    east_discards(state, "3C")
    apply(state, Claim(seat=W, kind="pung"))
    closed = close(state)
    assert (closed.winner, closed.rule) == (W, "Code 1924, Law 36")
    with pytest.raises(RuleViolation, match="Law 58"):
        apply(state, Expose(seat=W, tiles=parse_tiles("3C 3C 4C")))
    apply(state, Expose(seat=W, tiles=parse_tiles("3C 3C 3C")))
    assert state.turn == W and not state.need_draw
    assert state.seats[E].discards == []  # the claimed tile left the discards
    west_tile = state.concealed_tiles(W)[0]
    apply(state, Discard(seat=W, tile=west_tile))
    assert state.turn == N  # South lost his turn (Law 37)
    with pytest.raises(RuleViolation, match="S drew out of turn"):
        apply(state, Draw(seat=S))


def test_law_38_kong_from_a_discard_takes_a_loose_tile(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "N": "3C 3C 3C"}, loose="9D")
    east_discards(state, "3C")
    apply(state, Claim(seat=N, kind="kong"))
    assert close(state).rule == "Code 1924, Law 38"
    apply(state, Expose(seat=N, tiles=parse_tiles("3C 3C 3C 3C")))
    with pytest.raises(RuleViolation, match="must draw a loose tile"):
        apply(state, Discard(seat=N, tile=state.concealed_tiles(N)[0]))
    back = state.back
    _, events = apply(state, Draw(seat=N))
    assert events == [ev.Drew(seat=N, loose=True, tile=T("9D"))]
    assert state.back == back - 1
    assert state.turn == N  # South and West lost their turns (Law 39)


def test_law_40_42_the_fourth_is_added_only_after_drawing(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "3C 3C 3C"}, draws="8D")
    east_discards(state, "3C")
    # South pungs with three in hand, keeping the fourth (Law 40).
    apply(state, Claim(seat=S, kind="pung"))
    close(state)
    apply(state, Expose(seat=S, tiles=parse_tiles("3C 3C 3C")))
    with pytest.raises(RuleViolation) as refused:
        apply(state, AddKong(seat=S, tile=T("3C")))
    assert refused.value.rule == "Code 1924, Law 40"
    apply(state, Discard(seat=S, tile=T("8D") if state.seats[S].concealed[T("8D")] else
                         state.concealed_tiles(S)[-1]))
    apply(state, CloseClaims())
    # West draws, discards; North and East too; then South draws and may add (Law 42).
    for seat in (W, N, E):
        apply(state, Draw(seat=seat))
        apply(state, Discard(seat=seat, tile=state.seats[seat].last_drawn or 0))
        apply(state, CloseClaims())
    apply(state, Draw(seat=S))
    _, events = apply(state, AddKong(seat=S, tile=T("3C")))
    assert events == [ev.KongAdded(seat=S, tile=T("3C"))]
    assert state.phase == "rob"  # Law 90: the added tile may be robbed
    apply(state, CloseClaims())
    assert state.seats[S].owed_loose == 1


def test_law_41_concealed_kong_only_immediately_after_drawing(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "9B 9B 9B 4D 4D"}, draws="9B")
    east_discards(state, "3C")
    close(state)
    apply(state, Draw(seat=S))
    _, events = apply(state, DeclareKong(seat=S, tile=T("9B")))
    assert events == [ev.KongDeclared(seat=S, tile=T("9B"))]
    assert state.seats[S].melds[-1].concealed
    apply(state, Draw(seat=S))  # the loose tile
    apply(state, Discard(seat=S, tile=state.seats[S].last_drawn or 0))
    apply(state, Claim(seat=W, kind="pung") if state.seats[W].concealed[
        state.seats[S].discards[-1]] >= 2 else CloseClaims())
    assert state.phase in ("play", "claims")


def test_law_41_no_concealed_kong_after_a_pung(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "3C 3C 8B 8B 8B 8B"})
    east_discards(state, "3C")
    apply(state, Claim(seat=W, kind="pung"))
    close(state)
    apply(state, Expose(seat=W, tiles=parse_tiles("3C 3C 3C")))
    with pytest.raises(RuleViolation) as refused:
        apply(state, DeclareKong(seat=W, tile=T("8B")))
    assert refused.value.rule == "Code 1924, Law 41"


def _grounded_pung_of_3c(rig: Rig, ruleset: str) -> HandState:
    """South pungs East's 3C; later West discards the fourth 3C."""
    state = rig(ruleset, hands={"E": EAST, "S": "3C 3C", "W": "3C"}, draws="9D 9D")
    east_discards(state, "3C")
    apply(state, Claim(seat=S, kind="pung"))
    close(state)
    apply(state, Expose(seat=S, tiles=parse_tiles("3C 3C 3C")))
    apply(state, Discard(seat=S, tile=state.concealed_tiles(S)[0]))
    close(state)
    apply(state, Draw(seat=W))
    apply(state, Discard(seat=W, tile=T("3C")))
    return state


def test_law_43_no_kong_of_a_grounded_triplet_from_a_discard(rig: Rig) -> None:
    state = _grounded_pung_of_3c(rig, "code1924/mixed")
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=S, kind="kong"))
    assert refused.value.rule == "Code 1924, Law 43"
    assert "a grounded triplet cannot be konged from a discard (3C)" in str(refused.value)


def test_pungchow_part_ii_allows_the_discarded_fourth_onto_an_exposed_pung(rig: Rig) -> None:
    state = _grounded_pung_of_3c(rig, "pungchow/limit")
    apply(state, Claim(seat=S, kind="kong"))
    close(state)
    apply(state, Expose(seat=S, tiles=parse_tiles("3C 3C 3C 3C")))
    assert [m.kind for m in state.seats[S].melds] == ["kong"]
    assert state.seats[S].owed_loose == 1


def test_law_50_mahjong_takes_the_discard_over_a_set(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "3C 3C", "N": NORTH_CHOW_WAIT})
    east_discards(state, "3C")
    apply(state, Claim(seat=S, kind="pung", time_us=1_000))
    apply(state, Claim(seat=N, kind="mahjong", time_us=9_000))
    closed = close(state)
    assert (closed.winner, closed.kind, closed.rule) == (N, "mahjong", "Code 1924, Law 50")
    assert closed.claims == ("S:pung", "N:mahjong")


def test_law_51_first_in_order_of_play_after_the_discarder(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "3C 3C", "N": NORTH_CHOW_WAIT})
    east_discards(state, "3C")
    apply(state, Claim(seat=N, kind="mahjong", time_us=1))
    apply(state, Claim(seat=W, kind="mahjong", time_us=2))
    closed = close(state)
    assert (closed.winner, closed.rule) == (W, "Code 1924, Law 51")


def test_law_52_pung_or_kong_before_chow(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "1C 2C", "N": "3C 3C"})
    east_discards(state, "3C")
    apply(state, Claim(seat=S, kind="chow", time_us=100))
    apply(state, Claim(seat=N, kind="pung", time_us=900))
    closed = close(state)
    assert (closed.winner, closed.kind, closed.rule) == (N, "pung", "Code 1924, Law 52")


def test_law_53_claim_after_the_next_player_drew_returns_his_tile(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "3C 3C"}, draws="7D")
    east_discards(state, "3C")
    front = state.front
    apply(state, Draw(seat=S))  # the window stays open: no claim yet
    assert state.claimable == (T("3C"), E)
    apply(state, Claim(seat=W, kind="pung"))
    _, events = apply(state, CloseClaims())
    assert events[1] == ev.DrawReturned(seat=S, tile=T("7D"))
    assert state.front == front and state.seats[S].n == 13
    apply(state, Expose(seat=W, tiles=parse_tiles("3C 3C 3C")))
    assert state.turn == W


def test_law_53_no_claim_after_the_drawer_grounds_a_kong(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "S": "9B 9B 9B", "W": "3C 3C"}, draws="9B")
    east_discards(state, "3C")
    apply(state, Draw(seat=S))
    apply(state, DeclareKong(seat=S, tile=T("9B")))
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))
    assert refused.value.rule == "Code 1924, Law 64"


def test_classical_claims_end_when_the_next_player_draws(rig: Rig) -> None:
    state = rig("classical", hands={"E": EAST, "W": "3C 3C"})
    east_discards(state, "3C")
    apply(state, Draw(seat=S))
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))
    assert refused.value.rule == "Classical, further notes on claiming tiles"


def test_law_53_claims_pending_stop_the_next_draw(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "3C 3C"})
    east_discards(state, "3C")
    apply(state, Claim(seat=W, kind="pung"))
    with pytest.raises(RuleViolation, match="close the claims before the next draw"):
        apply(state, Draw(seat=S))


def test_law_64_a_discard_is_dead_once_the_window_has_passed(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "3C 3C"}, draws="7D")
    east_discards(state, "3C")
    close(state)
    apply(state, Draw(seat=S))
    apply(state, Discard(seat=S, tile=T("7D")))
    # The live discard is now 7D; nothing may take the dead 3C, and a pung of 7D needs two.
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))
    assert refused.value.rule == "Code 1924, Law 36"
    close(state)
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))
    assert refused.value.rule == "Code 1924, Law 64"


def test_law_65_no_discard_before_drawing(rig: Rig) -> None:
    state = rig(hands={"E": EAST})
    east_discards(state, "3C")
    close(state)
    with pytest.raises(RuleViolation) as refused:
        apply(state, Discard(seat=S, tile=state.concealed_tiles(S)[0]))
    assert refused.value.rule == "Code 1924, Law 65"


def test_law_90_robbing_a_kong(rig: Rig) -> None:
    # South pungs 3C, later draws the fourth and adds it; North goes out on it.
    state = rig(hands={"E": EAST, "S": "3C 3C", "N": NORTH_CHOW_WAIT},
                draws="6D 6D 6D 3C")
    east_discards(state, "3C")
    apply(state, Claim(seat=S, kind="pung"))
    close(state)
    apply(state, Expose(seat=S, tiles=parse_tiles("3C 3C 3C")))
    apply(state, Discard(seat=S, tile=state.concealed_tiles(S)[0]))
    close(state)
    for seat in (W, N, E):
        apply(state, Draw(seat=seat))
        apply(state, Discard(seat=seat, tile=state.seats[seat].last_drawn or 0))
        close(state)
    apply(state, Draw(seat=S))
    apply(state, AddKong(seat=S, tile=T("3C")))
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))
    assert refused.value.rule == "Code 1924, Law 90"
    apply(state, Claim(seat=N, kind="mahjong"))
    assert close(state).winner == N
    _, events = apply(state, DeclareMahjong(seat=N))
    won = events[0]
    assert isinstance(won, ev.MahjongDeclared) and won.by == "robbed_kong"
    assert [m.kind for m in state.seats[S].melds] == ["pung"]  # the kong is a pung again


def test_classical_priority_a_pung_over_chow(rig: Rig) -> None:
    state = rig("classical", hands={"E": EAST, "S": "1C 2C", "W": "3C 3C"})
    east_discards(state, "3C")
    apply(state, Claim(seat=S, kind="chow"))
    apply(state, Claim(seat=W, kind="pung"))
    assert close(state).rule == "Classical, claim priority (a)"


def test_classical_priority_b_mahjong_over_any_claim(rig: Rig) -> None:
    state = rig("classical", hands={"E": EAST, "S": "3C 3C", "N": NORTH_CHOW_WAIT})
    east_discards(state, "3C")
    apply(state, Claim(seat=S, kind="pung"))
    apply(state, Claim(seat=N, kind="mahjong"))
    closed = close(state)
    assert (closed.winner, closed.rule) == (N, "Classical, claim priority (b)")


def test_classical_priority_c_nearest_mahjong(rig: Rig) -> None:
    state = rig("classical", hands={"E": EAST})
    east_discards(state, "3C")
    apply(state, Claim(seat=N, kind="mahjong"))
    apply(state, Claim(seat=S, kind="mahjong"))
    closed = close(state)
    assert (closed.winner, closed.rule) == (S, "Classical, claim priority (c)")


@pytest.mark.parametrize(
    ("claims", "winner", "rule"),
    [
        ([(S, "chow"), (W, "pung")], W, "Pung-Chow, F, rule 4"),
        ([(W, "pung"), (N, "mahjong")], N, "Pung-Chow, F, rule 5"),
        ([(N, "mahjong"), (W, "mahjong")], W, "Pung-Chow, F, rule 6"),
    ],
)
def test_pungchow_precedence_rules_4_to_6(
    rig: Rig, claims: list[tuple[Seat, str]], winner: Seat, rule: str
) -> None:
    state = rig("pungchow", hands={"E": EAST, "S": "1C 2C", "W": "3C 3C"})
    east_discards(state, "3C")
    for seat, kind in claims:
        apply(state, Claim(seat=seat, kind=kind))  # type: ignore[arg-type]
    closed = close(state)
    assert (closed.winner, closed.rule) == (winner, rule)


def test_refused_command_changes_nothing(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "4C 5C"})
    east_discards(state, "3C")
    before = (list(state.standing), state.phase, [s.n for s in state.seats])
    with pytest.raises(RuleViolation):
        apply(state, Claim(seat=W, kind="chow"))
    assert (list(state.standing), state.phase, [s.n for s in state.seats]) == before


def test_equal_set_claims_fall_to_the_earlier_call_on_the_board_clock(rig: Rig) -> None:
    # Two pungs of one tile cannot both be real; a mirrored table may still see two presses.
    state = rig(hands={"E": EAST}, mode="mirror")
    east_discards(state, "3C")
    apply(state, Claim(seat=N, kind="pung", time_us=5_000_100))
    apply(state, Claim(seat=S, kind="pung", time_us=5_000_400))
    closed = close(state)
    assert (closed.winner, closed.rule) == (N, "Code 1924, Law 52")
    assert state.phase == "award"


def test_law_23_a_flower_kept_past_the_first_discard_makes_a_short_hand(rig: Rig) -> None:
    state = rig(hands={"E": "F2 " + EAST[3:]})
    _, events = apply(state, Discard(seat=E, tile=T("1B")))
    assert events[-1] == ev.FaultRecorded(seat=E, fault="short", rule="Code 1924, Law 23",
                                          reason="a flower not grounded before the first "
                                                 "discard")
    close(state)
    for seat in (S, W, N):
        apply(state, Draw(seat=seat))
        drawn = state.seats[seat].last_drawn or 0
        if drawn >= 34:
            apply(state, GroundFlower(seat=seat, tile=drawn))  # a flower just drawn: fine
            apply(state, Draw(seat=seat))
            drawn = state.seats[seat].last_drawn or 0
        apply(state, Discard(seat=seat, tile=drawn))
        close(state)
    apply(state, Draw(seat=E))
    with pytest.raises(RuleViolation) as refused:
        apply(state, GroundFlower(seat=E, tile=T("F2")))
    assert refused.value.rule == "Code 1924, Law 23"


HEADS_9 = "1B 9B 1C 9C 1D EW SW WW RD 2B 3B 4B 5B"


def test_pungchow_part_ii_nine_different_heads_wash_the_tiles(rig: Rig) -> None:
    state = rig("pungchow/limit", hands={"E": EAST, "S": HEADS_9})
    _, events = apply(state, WashTiles(seat=S))
    assert events[0] == ev.TilesWashed(seat=S, concealed=tuple(sorted(parse_tiles(HEADS_9))),
                                       heads=9)
    assert (state.result, state.east_stays) == ("washed", True)


def test_pungchow_washing_needs_nine_heads_and_the_original_hand(rig: Rig) -> None:
    eight = HEADS_9.replace("RD", "6B")
    west = "9B 1C 9C 9D NW GD WD SW WW 7D 8D 2D 3D"  # nine Heads too
    state = rig("pungchow/limit", hands={"E": EAST, "S": eight, "W": west})
    with pytest.raises(RuleViolation) as refused:
        apply(state, WashTiles(seat=S))
    assert refused.value.rule == "Pung-Chow, Part II, washing the tiles"
    assert "8 different Heads" in str(refused.value)
    east_discards(state, "3C")
    close(state)
    apply(state, Draw(seat=S))
    apply(state, Discard(seat=S, tile=state.seats[S].last_drawn or 0))
    close(state)
    apply(state, Draw(seat=W))
    with pytest.raises(RuleViolation, match="no drawing is permitted"):
        apply(state, WashTiles(seat=W))
    with pytest.raises(RuleViolation, match="does not wash"):
        apply(rig("pungchow", hands={"S": HEADS_9}), WashTiles(seat=S))


PAIR_WAIT = "3C 5D 5D 5D 7B 8B 9B GD GD GD 1D 2D 3D"


def test_law_49_a_discard_may_complete_the_pair_only_for_mahjong(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": PAIR_WAIT})
    east_discards(state, "3C")
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))  # one 3C in hand: no triplet
    assert refused.value.rule == "Code 1924, Law 36"
    apply(state, Claim(seat=W, kind="mahjong"))
    closed = close(state)
    assert (closed.winner, closed.rule) == (W, "Code 1924, Law 49")
    _, events = apply(state, DeclareMahjong(seat=W))
    assert isinstance(events[0], ev.MahjongDeclared)


def test_classical_a_discard_completes_the_pair_only_to_go_out(rig: Rig) -> None:
    state = rig("classical", hands={"E": EAST, "W": PAIR_WAIT})
    east_discards(state, "3C")
    apply(state, Claim(seat=W, kind="mahjong"))
    assert close(state).rule == "Classical, claiming a tile for the pair"


def test_closing_the_calls_after_the_next_draw_kills_the_discard(rig: Rig) -> None:
    state = rig(hands={"E": EAST, "W": "3C 3C"}, draws="7D")
    east_discards(state, "3C")
    apply(state, Draw(seat=S))  # Law 53: still claimable ...
    closed = close(state)  # ... until the table closes the calls
    assert closed.winner is None and state.claimable is None
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="pung"))
    assert refused.value.rule == "Code 1924, Law 64"
    apply(state, Discard(seat=S, tile=T("7D")))  # South goes on with his turn
