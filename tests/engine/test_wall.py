"""Building, breaking and dealing (Code 1924, Laws 10-17 and 87; Pung-Chow B-C; Classical)."""

from __future__ import annotations

import random

import pytest

from engine.commands import Deal, Throw
from engine.errors import MalformedInput, RuleViolation
from engine.game import apply, new_hand
from engine.rules import RULESETS, get_ruleset
from engine.seats import Seat
from engine.tiles import tile_set
from engine.wall import break_point, breaker, deal_sizes, draw_order, wall_for


@pytest.mark.parametrize(
    ("throw", "seat"),
    [(5, Seat.E), (9, Seat.E), (2, Seat.S), (6, Seat.S), (10, Seat.S), (3, Seat.W),
     (7, Seat.W), (11, Seat.W), (4, Seat.N), (8, Seat.N), (12, Seat.N)],
)
def test_law_15_east_s_throw_selects_the_breaker(throw: int, seat: Seat) -> None:
    assert breaker(throw) == seat


def test_law_16_count_from_the_right_of_the_breaker_s_wall() -> None:
    # Pung-Chow's Illustration 7: East throws 7 (West), West throws 7: the 14th stack.
    assert break_point(7, 7, 17) == (Seat.W, 14)


def test_law_16_a_count_past_the_wall_carries_on_to_the_wall_on_the_left() -> None:
    # East throws 12 (North), North throws 12: 24 > 18 stacks, so the 6th stack of the wall
    # on North's left, which is West's.
    assert break_point(12, 12, 18) == (Seat.W, 6)


def test_law_16_the_lifted_stack_gives_the_first_loose_tiles() -> None:
    built = list(range(144))  # tile *positions*, to see where each draw comes from
    order = draw_order(built, Seat.W, 14, 18)
    west = 2 * 18 * 2  # West's wall starts after East's and South's
    lifted = [west + 2 * 13, west + 2 * 13 + 1]
    assert order[-2:] == lifted  # drawn first from the back
    assert order[:2] == [west + 2 * 14, west + 2 * 14 + 1]  # the stack left of the opening
    assert order[-4:-2] == [west + 2 * 12, west + 2 * 12 + 1]  # then the right of the opening
    assert sorted(order) == built


def test_wall_for_inverts_draw_order() -> None:
    rng = random.Random(5)
    draws = tile_set(136)
    rng.shuffle(draws)
    built = wall_for(draws, 6, 9, 17)
    assert draw_order(built, *break_point(6, 9, 17), 17) == draws


def test_law_17_the_deal_gives_east_fourteen() -> None:
    counts = [0, 0, 0, 0]
    for seat, n in deal_sizes():
        counts[seat] += n
    assert counts == [14, 13, 13, 13]
    assert deal_sizes()[:4] == [(Seat.E, 4), (Seat.S, 4), (Seat.W, 4), (Seat.N, 4)]


@pytest.mark.parametrize(
    ("name", "tiles", "stacks", "dead"),
    [
        ("code1924/mixed", 144, 18, 14),  # Laws 10, 87
        ("code1924/one-double", 144, 18, 0),  # Law 87: no dead wall
        ("code1924/cleared", 144, 18, 0),
        ("pungchow", 136, 17, 14),  # B; Part II "the last 14 tiles"
        ("pungchow/limit", 144, 18, 14),
        ("classical", 144, 18, 16),  # washout at 16
    ],
)
def test_walls_and_dead_walls_per_family(name: str, tiles: int, stacks: int, dead: int) -> None:
    rules = get_ruleset(name)
    assert (rules.tiles, rules.stacks_per_wall, rules.dead_wall) == (tiles, stacks, dead)
    assert rules.tiles == 4 * rules.stacks_per_wall * 2
    state, _ = new_hand(rules, "full", rng=random.Random(1))
    apply(state, Throw(seat=Seat.E, dice=(1, 1)))
    apply(state, Throw(seat=Seat.S, dice=(2, 3)))
    apply(state, Deal())
    assert state.remaining == tiles - 53
    assert state.live_left() == tiles - 53 - dead


def test_the_first_throw_is_east_s() -> None:
    state, _ = new_hand("classical", "mirror")
    with pytest.raises(RuleViolation, match="East throws first, not S"):
        apply(state, Throw(seat=Seat.S, dice=(3, 4)))


def test_the_second_throw_is_the_selected_player_s() -> None:
    state, _ = new_hand("code1924/mixed", "mirror")
    apply(state, Throw(seat=Seat.E, dice=(3, 4)))
    with pytest.raises(RuleViolation) as refused:
        apply(state, Throw(seat=Seat.S, dice=(1, 1)))
    assert refused.value.rule == "Code 1924, Law 16"
    assert "East threw 7, which selects W" in str(refused.value)


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (1, 2, 3), (1,)])
def test_bad_dice_are_malformed(dice: tuple[int, ...]) -> None:
    state, _ = new_hand("pungchow", "mirror")
    with pytest.raises(MalformedInput) as bad:
        apply(state, Throw(seat=Seat.E, dice=dice))
    assert bad.value.where == "dice"


def test_a_full_hand_needs_the_whole_set() -> None:
    with pytest.raises(MalformedInput, match="the 136-tile set"):
        new_hand("pungchow", "full", wall=tile_set(136)[:-1])


def test_every_ruleset_is_registered_and_unknown_names_are_refused() -> None:
    assert set(RULESETS) == {"code1924/mixed", "code1924/one-double", "code1924/cleared",
                             "pungchow", "pungchow/limit", "classical"}
    with pytest.raises(ValueError, match="unknown ruleset 'mah' \\(known: code1924/mixed"):
        get_ruleset("mah")
