"""The 1924 Two- and Three-Hand Games (Code of Laws, "Laws for more or less than four
players"), also played under Classical rules, and Harr's Two and Three-Handed Games."""

from __future__ import annotations

import random

import pytest

from engine.commands import Claim, Deal, Discard, Throw
from engine.errors import MalformedInput, RuleViolation
from engine.game import apply, new_hand
from engine.rounds import next_hand, start
from engine.rules import get_ruleset
from engine.seats import Seat
from engine.simulate import default_bots, play_hand
from engine.tiles import parse_tile

E, S, W, N = Seat.E, Seat.S, Seat.W, Seat.N


def test_two_hand_game_an_odd_throw_selects_east_an_even_one_west() -> None:
    state, _ = new_hand("code1924/mixed", "mirror", players=2)
    _, events = apply(state, Throw(seat=E, dice=(3, 4)))
    assert events[0].selects == E  # type: ignore[attr-defined]
    state, _ = new_hand("code1924/mixed", "mirror", players=2)
    _, events = apply(state, Throw(seat=E, dice=(3, 3)))
    assert events[0].selects == W  # type: ignore[attr-defined]


def test_two_hand_game_a_discard_cannot_be_chowed_and_turns_alternate() -> None:
    state, _ = new_hand("code1924/mixed", "mirror", players=2)
    apply(state, Throw(seat=E, dice=(3, 4)))
    apply(state, Throw(seat=E, dice=(1, 1)))
    apply(state, Deal())
    assert [s.n for s in state.seats] == [14, 0, 13, 0]
    apply(state, Discard(seat=E, tile=parse_tile("3C")))
    assert state.turn == W
    with pytest.raises(RuleViolation) as refused:
        apply(state, Claim(seat=W, kind="chow"))
    assert refused.value.rule == "Code 1924, Two-Hand Game"
    with pytest.raises(MalformedInput, match="S has no player"):
        apply(state, Claim(seat=S, kind="pung"))


def test_two_hand_game_positions_change_after_each_game() -> None:
    rules = get_ruleset("code1924/mixed")
    m = start(rules, 2)
    assert m.players == (E, W)
    rng = random.Random(3)
    state = play_hand(rules, rng, default_bots(rng), players=2).state
    assert state.east_stays is False
    m2 = next_hand(rules, m, bool(state.east_stays))
    assert m2.seat_of(0) == W and m2.seat_of(2) == E


def test_three_hand_game_has_no_west_player_and_the_empty_wind_moves() -> None:
    rules = get_ruleset("code1924/mixed")
    m = start(rules, 3)
    missing = []
    for _ in range(4):
        missing.append(({E, S, W, N} - set(m.players)).pop())
        m = next_hand(rules, m, east_stays=False)
    # "there is no South player for the second game ... no North player for the third"
    assert missing == [W, S, N, W]


@pytest.mark.parametrize(("ruleset", "players"),
                         [("code1924/mixed", 2), ("code1924/cleared", 3), ("classical", 3),
                          ("pungchow", 3), ("pungchow/limit", 2)])
def test_small_tables_play_whole_hands_cleanly(ruleset: str, players: int) -> None:
    rules = get_ruleset(ruleset)
    m = start(rules, players)
    rng = random.Random(8)
    bots = default_bots(rng)
    for hand in range(8):
        out = play_hand(rules, rng, bots, players=m.players, prevailing=m.prevailing, hand=hand)
        assert out.violations == [] and out.state.phase == "ended"
        m = next_hand(rules, m, bool(out.state.east_stays))


def test_harr_small_tables_east_throws_for_the_dummy_wall() -> None:
    # Harr, Two and Three-Handed Games: "East Wind acts for the dummy, throwing the dice for
    # it whenever indicated": East's 7 counts round all four sides to the empty West wall.
    state, _ = new_hand("pungchow", "mirror", players=3)
    _, events = apply(state, Throw(seat=E, dice=(3, 4)))
    assert events[0].selects == W  # type: ignore[attr-defined]
    with pytest.raises(RuleViolation, match="selects E to throw next \\(for the dummy W\\)"):
        apply(state, Throw(seat=N, dice=(1, 1)))
    _, events = apply(state, Throw(seat=E, dice=(1, 1)))
    assert events[-1].wall_of == W  # type: ignore[attr-defined]
    # The 1924 Three-Hand Game counts "the actual players": the same 7 selects East.
    state, _ = new_hand("code1924/mixed", "mirror", players=3)
    _, events = apply(state, Throw(seat=E, dice=(3, 4)))
    assert events[0].selects == E  # type: ignore[attr-defined]


def test_harr_two_handed_game_chows_and_east_keeps_his_seat_on_a_win() -> None:
    # "in exactly the same way that it is played by four": the other player may chow (E),
    # and East stays East on his own win (A), unlike the 1924 Two-Hand Game's alternation.
    state, _ = new_hand("pungchow", "mirror", players=2)
    apply(state, Throw(seat=E, dice=(2, 3)))
    apply(state, Throw(seat=E, dice=(1, 1)))
    apply(state, Deal())
    apply(state, Discard(seat=E, tile=parse_tile("3C")))
    apply(state, Claim(seat=W, kind="chow"))
    rules = get_ruleset("pungchow")
    assert rules.east_may_stay(2) and not get_ruleset("code1924/mixed").east_may_stay(2)
    rng = random.Random(1)
    bots = default_bots(rng)
    ends = [play_hand(rules, rng, bots, players=2, hand=h).state for h in range(6)]
    assert all(s.east_stays == (s.winner == E) for s in ends if s.result == "mahjong")
