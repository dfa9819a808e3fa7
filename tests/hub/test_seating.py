"""The seating draw: every seat filled, everyone once a round, meetings spread evenly, winds in
turn; bad rosters answered with the options."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.seating import (
    EMPTY_SEAT,
    WINDS,
    RoundSeating,
    SeatingError,
    _step,
    draw,
    meetings,
    pair,
    table_sizes,
)


def names(n: int) -> list[str]:
    return [f"player {i:02d}" for i in range(n)]


def cost_of(seatings: list[RoundSeating]) -> dict[tuple[str, str], int]:
    return meetings(seatings)


def no_swap_helps(seatings: list[RoundSeating]) -> bool:
    """Recompute, independently of the draw, whether swapping two players between two tables
    of any one round would spread the meetings more evenly."""
    met = meetings(seatings)
    for r in seatings:
        tables = [t.players for t in r.tables]
        for table in tables:
            for a, b in combinations(table, 2):
                met[pair(a, b)] -= 1
        for (t1, x), (t2, y) in combinations(enumerate(tables), 2):
            for a in x:
                for b in y:
                    delta = sum(_step(met.get(pair(b, q), 0)) - _step(met.get(pair(a, q), 0))
                                for q in x if q != a)
                    delta += sum(_step(met.get(pair(a, q), 0)) - _step(met.get(pair(b, q), 0))
                                 for q in y if q != b)
                    if delta < 0:
                        return False
            del t1, t2
        for table in tables:
            for a, b in combinations(table, 2):
                met[pair(a, b)] += 1
    return True


rosters = st.tuples(st.integers(min_value=3, max_value=30), st.integers(1, 7),
                    st.sampled_from(["fours", "byes", "threes"]), st.integers(0, 3))


@settings(derandomize=True, max_examples=40, deadline=None)
@given(rosters)
def test_every_seat_filled_and_everyone_once_a_round(roster: tuple[int, int, str, int]) -> None:
    n, rounds, fill, seed = roster
    players = names(n)
    try:
        seatings = draw(players, rounds, fill, seed=seed, effort=3000)  # type: ignore[arg-type]
    except SeatingError as e:
        # Only rosters that really cannot be seated are refused.
        assert (fill == "fours" and n % 4) or (fill == "byes" and n < 4) or \
            (fill == "threes" and n % 4 and n < 3 * (4 - n % 4)), e
        return
    assert [r.number for r in seatings] == list(range(1, rounds + 1))
    for r in seatings:
        seated = [p for t in r.tables for p in t.players]
        assert sorted(seated + list(r.byes)) == sorted(players)  # each player once a round
        for t in r.tables:
            assert [w for w, _ in t.seats] == list(WINDS)
            empty = [w for w, p in t.seats if p == EMPTY_SEAT]
            assert len(empty) == (0 if fill != "threes" else len(empty))
            assert len(empty) <= 1 and (len(empty) == 0 or fill == "threes")
        assert len(r.byes) == (n % 4 if fill == "byes" else 0)
    # Byes go round: nobody sits out twice before everyone has sat out once.
    byes = Counter(p for r in seatings for p in r.byes)
    if fill == "byes" and n % 4:
        counts = [byes.get(p, 0) for p in players]
        assert max(counts) - min(counts) <= 1


@settings(derandomize=True, max_examples=30, deadline=None)
@given(rosters)
def test_each_wind_in_turn(roster: tuple[int, int, str, int]) -> None:
    n, rounds, fill, seed = roster
    try:
        seatings = draw(names(n), rounds, fill, seed=seed, effort=2000)  # type: ignore[arg-type]
    except SeatingError:
        return
    for start in range(0, rounds, 4):
        block = seatings[start:start + 4]
        winds: dict[str, list[str]] = {}
        for r in block:
            for t in r.tables:
                for w, p in t.seats:
                    if p:
                        winds.setdefault(p, []).append(w)
        for player, sat in winds.items():
            assert len(sat) == len(set(sat)), (player, sat)  # no wind twice in a block
            if len(block) == 4 and len(sat) == 4:
                assert sorted(sat) == sorted(WINDS)  # all four winds in four rounds


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.integers(2, 7), st.integers(2, 6), st.integers(0, 3))
def test_meetings_spread_as_evenly_as_a_swap_can_tell(tables: int, rounds: int,
                                                     seed: int) -> None:
    seatings = draw(names(4 * tables), rounds, seed=seed, effort=3000)
    assert no_swap_helps(seatings)
    met = meetings(seatings)
    every = [met.get(pair(a, b), 0) for a, b in combinations(names(4 * tables), 2)]
    average = sum(every) / len(every)
    assert max(every) <= int(average) + 2  # nobody meets far more often than the average


def test_no_swap_check_can_fail() -> None:
    # The property above would pass anything if the check could not fail: a draw that seats
    # the same four together twice while others never met is caught.
    players = names(8)
    bad = draw(players, 1)
    assert not no_swap_helps([bad[0], RoundSeating(2, bad[0].tables)])


@pytest.mark.parametrize(("players", "rounds", "each_pair"), [
    (16, 5, 1),  # the affine plane of order 4: all 15 opponents in 5 rounds, nobody twice
    (8, 7, 3),  # the resolvable design on 8 points: every pair exactly 3 times
])
def test_known_designs_are_found(players: int, rounds: int, each_pair: int) -> None:
    met = meetings(draw(names(players), rounds))
    assert {met.get(pair(a, b), 0) for a, b in combinations(names(players), 2)} == {each_pair}


def test_a_hundred_players_never_meet_twice_in_eight_rounds() -> None:
    met = meetings(draw(names(100), 8))
    assert max(met.values()) == 1
    assert len(met) == 100 * 8 * 3 // 2


def test_history_counts_rounds_already_played() -> None:
    players = names(16)
    first = draw(players, 2)
    rest = draw(players, 3, history=first)
    assert [r.number for r in rest] == [3, 4, 5]
    blind = draw(players, 3, seed=1)  # the same rounds drawn as if nothing had been played

    def repeats(seatings: list[RoundSeating]) -> int:
        return sum(m - 1 for m in meetings(seatings).values() if m > 1)

    assert repeats(first + rest) * 2 < repeats(first + blind)


def test_deterministic_for_a_seed() -> None:
    assert draw(names(12), 3, seed=7) == draw(names(12), 3, seed=7)


@pytest.mark.parametrize(("n", "fill", "message"), [
    (13, "fours", "13 players cannot fill tables of four; options: byes (1 sit out each round);"
                  " tables of three where the ruleset allows (3 of three and 1 of four)"),
    (5, "threes", "5 players cannot be seated at tables of four and three (they need 9 for 3"
                  " tables of three); use byes"),
    (2, "fours", "2 players cannot fill a table: a table needs four (three where the ruleset"
                 " plays three-handed)"),
    (3, "byes", "3 players cannot fill one table of four"),
])
def test_rosters_that_cannot_fill_tables_get_the_options(n: int, fill: str,
                                                         message: str) -> None:
    with pytest.raises(SeatingError) as e:
        draw(names(n), 1, fill)  # type: ignore[arg-type]
    assert e.value.error == message
    assert e.value.where == "players"


def test_tables_of_three_take_the_fewest_threes() -> None:
    assert table_sizes(14, "threes") == ([4, 4, 3, 3], 0)
    assert table_sizes(13, "threes") == ([4, 3, 3, 3], 0)
    assert table_sizes(13, "byes") == ([4, 4, 4], 1)


def test_bad_rosters_name_the_place() -> None:
    with pytest.raises(SeatingError, match=r"players\[2\]: 'a' is listed twice"):
        draw(["a", "b", "a", "c"], 1)
    with pytest.raises(SeatingError, match="rounds: 0 rounds"):
        draw(names(4), 0)
    with pytest.raises(SeatingError, match="unknown fill 'twos'"):
        draw(names(4), 1, "twos")  # type: ignore[arg-type]
