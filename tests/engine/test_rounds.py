"""East's rotation and the prevailing wind (Code 1924, Laws 86, 88, 94-97; Classical;
Pung-Chow A), and the end of a hand (Law 88 drawn game)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine import events as ev
from engine.commands import Claim, CloseClaims, Discard, Draw, Expose
from engine.game import apply
from engine.rounds import Match, next_hand, start
from engine.rules import get_ruleset
from engine.seats import Seat
from engine.simulate import default_bots, play_hand
from engine.state import HandState
from engine.tiles import parse_tile, parse_tiles, tile_name, tile_set


def test_law_94_east_keeps_his_seat_on_his_win_or_a_draw() -> None:
    rules = get_ruleset("code1924/mixed")
    m = start(rules)
    assert next_hand(rules, m, east_stays=True) == Match(1, Seat.E, 0, 0)


def test_law_95_96_the_round_ends_when_each_has_held_and_lost_east() -> None:
    rules = get_ruleset("code1924/mixed")
    m = start(rules)
    for _ in range(3):
        m = next_hand(rules, m, east_stays=False)
        assert m.prevailing == Seat.E
    assert m.seat_of(0) == Seat.S  # the first East now sits as South... by wind
    m = next_hand(rules, m, east_stays=False)
    assert (m.prevailing, m.east_player, m.passes) == (Seat.S, 0, 0)  # South prevails


def test_law_97_four_rounds_make_a_round_of_the_winds() -> None:
    rules = get_ruleset("classical")
    m = start(rules)
    winds = []
    for _ in range(17):
        winds.append(m.prevailing)
        m = next_hand(rules, m, east_stays=False)
    assert winds == [Seat.E] * 4 + [Seat.S] * 4 + [Seat.W] * 4 + [Seat.N] * 4 + [Seat.E]


def test_pungchow_part_one_has_no_prevailing_wind() -> None:
    assert start(get_ruleset("pungchow")).prevailing is None
    assert start(get_ruleset("pungchow/limit")).prevailing == Seat.E


def _first_hand(ruleset: str, result: str) -> ev.HandEnded:
    rules = get_ruleset(ruleset)
    for seed in range(200):
        rng = random.Random(seed)
        state = play_hand(rules, rng, default_bots(rng), cross_check=False).state
        if state.result == result:
            ended = state.standing[-1]
            assert isinstance(ended, ev.HandEnded)
            if result == "drawn":
                assert state.live_left() == 0 or state.loose_left() == 0
            return ended
    raise AssertionError(f"no {result} hand in 200 seeds")


@pytest.mark.parametrize(
    ("ruleset", "rule", "east_stays"),
    [
        ("code1924/mixed", "Code 1924, Law 88", True),
        ("pungchow", "Pung-Chow, Part II, the last 14 tiles", True),
        ("classical", "Classical, washout", False),  # rotates after a washout too
    ],
)
def test_a_wall_played_out_is_a_drawn_hand(ruleset: str, rule: str, east_stays: bool) -> None:
    ended = _first_hand(ruleset, "drawn")
    assert (ended.rule, ended.east_stays, ended.winner) == (rule, east_stays, None)


def test_east_loses_his_seat_when_another_wins() -> None:
    rules = get_ruleset("code1924/mixed")
    for seed in range(50):
        rng = random.Random(seed)
        state = play_hand(rules, rng, default_bots(rng), cross_check=False).state
        if state.result == "mahjong":
            assert state.east_stays == (state.winner == Seat.E)


def test_law_88_the_last_discard_taken_for_a_kong_draws_the_game(
    rig: Callable[..., HandState],
) -> None:
    five = parse_tile("5D")
    east, west = "1B 1B 2B 3B 4B 6C 7C 8C 9C 9C NW NW WD WD", "5D 5D 5D"
    pool = [t for t in tile_set(144) if t < 34 and t != five]
    for t in parse_tiles(east + " " + west):
        if t != five:
            pool.remove(t)
    live = 144 - 53 - 14
    draws = [tile_name(t) for t in pool[-(live - 1) :]] + ["5D"]
    state = rig(hands={"E": east, "W": west}, draws=" ".join(draws))
    apply(state, Discard(seat=Seat.E, tile=parse_tile("WD")))
    apply(state, CloseClaims())
    while state.live_left() > 0:
        seat = state.turn
        apply(state, Draw(seat=seat))
        apply(state, Discard(seat=seat, tile=state.seats[seat].last_drawn or 0))
        if state.live_left() > 0:
            apply(state, CloseClaims())
    assert state.last_available_drawn and state.claimable == (five, Seat.S)
    apply(state, Claim(seat=Seat.W, kind="kong"))
    apply(state, CloseClaims())
    _, events = apply(state, Expose(seat=Seat.W, tiles=(five,) * 4))
    ended = events[-1]
    assert isinstance(ended, ev.HandEnded)
    assert (ended.result, ended.rule) == ("drawn", "Code 1924, Law 88")
