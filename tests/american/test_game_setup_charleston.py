"""The deal (setup §6.0) and the Charleston (CH-1..CH-10), by rule code."""

from __future__ import annotations

import random

import pytest

from engine.american import commands as cm
from engine.american.card import CompiledCard
from engine.american.game import (
    AmericanHand,
    AmericanOptions,
    apply,
    check_invariants,
    deal_from,
    new_hand,
)
from engine.american.payments import tournament_points
from engine.errors import RuleViolation
from engine.seats import SEATS, Seat
from engine.tiles import FLOWER, JOKER, parse_tiles

E, S, W, N = SEATS


def fresh(card: CompiledCard, seed: int = 3, **opts: object) -> AmericanHand:
    state, _ = new_hand(card, AmericanOptions(**opts), "full", random.Random(seed))  # type: ignore[arg-type]
    return state


def spare(state: AmericanHand, seat: Seat, n: int = 3) -> tuple[int, ...]:
    return tuple([t for t in state.rack(seat).concealed if t != JOKER][:n])


def pass_all(state: AmericanHand,
             blind: dict[Seat, int] | None = None) -> tuple[AmericanHand, list[str]]:
    """Every seat passes (``blind`` tiles of them blind); the hand after, and the kinds of the
    events."""
    kinds = []
    for s in SEATS:
        b = (blind or {}).get(s, 0)
        state, caused = apply(state, cm.CharlestonPass(s, spare(state, s, 3 - b), blind=b))
        kinds += [e.kind for e in caused]
    return state, kinds


def test_setup_walls_of_19_stacks_and_the_deal(card: CompiledCard) -> None:
    # "Building the walls": 4 x 19 x 2 = 152; "The deal": East 14, the others 13.
    state = fresh(card)
    assert [state.rack(s).count for s in SEATS] == [14, 13, 13, 13]
    assert state.wall_left == 152 - 53 == len(state.wall)
    assert check_invariants(state) == []
    assert sorted(state.rack(E).concealed + state.rack(S).concealed + state.rack(W).concealed
                  + state.rack(N).concealed + state.wall).count(FLOWER) == 8


def test_setup_breaking_the_wall_counts_stacks_from_east_right() -> None:
    # The dice count stacks at the right of East's wall; those are drawn last.
    wall = list(range(152))
    hands, rest = deal_from(wall, 5, SEATS)
    assert hands[E][:4] == [10, 11, 12, 13]  # dealing starts left of the fifth stack
    assert rest[-10:] == list(range(10))  # the counted stacks come last
    # East takes the first and third top tiles of the last four stacks; S the first bottom.
    assert hands[E][-2:] == [58, 62] and hands[S][-1] == 59 and hands[W][-1] == 60
    assert hands[N][-1] == 61 and rest[0] == 63


def test_ch1_first_charleston_is_compulsory(card: CompiledCard) -> None:
    state = fresh(card)
    with pytest.raises(RuleViolation, match="P-1"):
        apply(state, cm.Discard(E, state.rack(E).concealed[0]))
    with pytest.raises(RuleViolation, match="CH-4"):
        apply(state, cm.CharlestonVote(S, stop=True))


def test_ch2_three_tiles_right_across_left(card: CompiledCard) -> None:
    state = fresh(card)
    before = {s: spare(state, s) for s in SEATS}
    with pytest.raises(RuleViolation, match="CH-2"):
        apply(state, cm.CharlestonPass(E, before[E][:2]))
    state, kinds = pass_all(state)
    assert "CharlestonPassed" in kinds and state.stages == ["across", "left"]
    # Right: South received East's three.
    for t in before[E]:
        assert t in state.rack(S).concealed
    state, _ = pass_all(state)  # across
    state, _ = pass_all(state)  # left
    assert state.phase == "vote" and check_invariants(state) == []
    assert [state.rack(s).count for s in SEATS] == [14, 13, 13, 13]


def test_ch3_blind_pass_only_on_the_last_pass(card: CompiledCard) -> None:
    state = fresh(card)
    with pytest.raises(RuleViolation, match="CH-3"):
        apply(state, cm.CharlestonPass(E, spare(state, E, 2), blind=1))
    state, _ = pass_all(state)
    state, _ = pass_all(state)
    # First left: South passes on one tile from those arriving (from West) unseen.
    incoming_from_west = spare(state, W)
    state, _ = pass_all(state, blind={S: 1})
    assert incoming_from_west[0] in state.rack(E).concealed  # forwarded to the left: East
    assert check_invariants(state) == []


def test_ch10_everybody_blind_passing_is_refused(card: CompiledCard) -> None:
    state = fresh(card)
    state, _ = pass_all(state)
    state, _ = pass_all(state)
    for s in (E, S, W):
        state, _ = apply(state, cm.CharlestonPass(s, spare(state, s, 2), blind=1))
    with pytest.raises(RuleViolation, match="CH-10"):
        apply(state, cm.CharlestonPass(N, spare(state, N, 1), blind=2))


def test_ch4_any_one_player_stops_the_second_charleston(card: CompiledCard) -> None:
    state = fresh(card)
    for _ in range(3):
        state, _ = pass_all(state)
    state, _ = apply(state, cm.CharlestonVote(E, stop=False))
    state, caused = apply(state, cm.CharlestonVote(W, stop=True))
    kinds = [e.kind for e in caused]
    assert "SecondCharlestonStopped" in kinds and state.phase == "courtesy_offer"


def test_ch4_second_charleston_left_across_right(card: CompiledCard) -> None:
    state = fresh(card)
    for _ in range(3):
        state, _ = pass_all(state)
    for s in SEATS:
        state, _ = apply(state, cm.CharlestonVote(s, stop=False))
    assert state.phase == "charleston" and state.stages == ["left", "across", "right"]
    before = spare(state, E)
    state, _ = pass_all(state)
    for t in before:
        assert t in state.rack(N).concealed  # left of East is North


def test_ch5_courtesy_lower_wish_wins_and_none_if_either_wants_none(card: CompiledCard) -> None:
    state = fresh(card, second_charleston=False)
    for _ in range(3):
        state, _ = pass_all(state)
    assert state.phase == "courtesy_offer"
    with pytest.raises(RuleViolation, match="CH-5"):
        apply(state, cm.CourtesyOffer(E, 4))
    for s, n in zip(SEATS, (3, 0, 1, 2), strict=True):
        state, _ = apply(state, cm.CourtesyOffer(s, n))
    assert state.offers == {E: 1, S: 0, W: 1, N: 0}
    with pytest.raises(RuleViolation, match="CH-5"):
        apply(state, cm.CourtesyPass(S, spare(state, S, 1)))
    with pytest.raises(RuleViolation, match="CH-5"):
        apply(state, cm.CourtesyPass(E, spare(state, E, 2)))
    east_tile = spare(state, E, 1)
    state, _ = apply(state, cm.CourtesyPass(E, east_tile))
    state, _ = apply(state, cm.CourtesyPass(W, spare(state, W, 1)))
    assert state.phase == "play" and east_tile[0] in state.rack(W).concealed


def test_ch6_no_joker_is_ever_passed(card: CompiledCard) -> None:
    """CH-6, J-2."""
    state = fresh(card)
    state.rack(E).concealed[0] = JOKER
    with pytest.raises(RuleViolation, match="CH-6"):
        apply(state, cm.CharlestonPass(E, (JOKER, *spare(state, E, 2))))


def test_ch7_wrong_count_in_the_charleston_means_a_redeal(card: CompiledCard) -> None:
    state, _ = new_hand(card, AmericanOptions(), "mirror")
    state, events = apply(state, cm.CharlestonPass(S, count=2))
    assert state.result is not None and state.result["result"] == "redeal"
    assert "CH-7" in state.result["rule"] and events[-1].kind == "HandEnded"


def test_ch8_no_hand_goes_dead_during_the_charleston(card: CompiledCard) -> None:
    state = fresh(card)
    with pytest.raises(RuleViolation, match="CH-8"):
        apply(state, cm.Challenge(S, W))


def test_ch9_heavenly_hand_waives_the_charleston(card: CompiledCard) -> None:
    state = fresh(card)
    state.rack(E).concealed = parse_tiles("8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD WD")
    state, _ = apply(state, cm.DeclareMahJongg(E))
    assert state.result is not None and state.result["by"] == "heavenly"
    # Jokerless EV-1 (25) as a self-pick: 25 x 2 x 2 = 100 from each (SC-12, not a third double)
    assert state.result["net"] == {"E": 300, "S": -100, "W": -100, "N": -100}


def test_ch9_earthly_hand_declared_when_the_charleston_ends(card: CompiledCard) -> None:
    """CH-9; SC-11: a concealed line pays its printed value, no concealed bonus."""
    state = fresh(card, second_charleston=False, courtesy=False)
    for _ in range(3):
        state, _ = pass_all(state)
    assert state.phase == "play"
    state.rack(E).concealed = parse_tiles("F F 1B 3B 5B 7B 9B 1C 3C 5C 7C 9C WD WD")
    state, _ = apply(state, cm.DeclareMahJongg(E))
    assert state.result is not None and state.result["by"] == "earthly"
    assert state.result["line"] == "SP-1" and state.result["net"]["S"] == -100  # 50 x 2


def test_sc9_looking_at_a_blind_pass_tile_costs_10() -> None:
    assert tournament_points(None, SEATS, blind_peekers=(W,))["W"][0] == 0  # 10 wall - 10


def test_two_and_three_handed_have_no_charleston(card: CompiledCard) -> None:
    three = fresh(card, players=3)
    assert three.phase == "play" and set(three.racks) == {E, S, W}
    assert [three.rack(s).count for s in (E, S, W)] == [14, 13, 13]
    two = fresh(card, players=2)
    assert set(two.racks) == {E, W} and two.phase == "play"  # players sit opposite
    with pytest.raises(RuleViolation, match="Two and three players"):
        apply(two, cm.Draw(S))
    assert check_invariants(three) == [] and check_invariants(two) == []


def test_ch9_mahjong_during_the_charleston_does_not_stop_it(card: CompiledCard) -> None:
    state = fresh(card)
    state.rack(S).concealed = parse_tiles("8B 8B 6B 6B 6B 4D 4D 2D 2D 2D WD WD WD")
    with pytest.raises(RuleViolation, match="CH-9"):
        apply(state, cm.DeclareMahJongg(S))
    state, _ = pass_all(state)
    with pytest.raises(RuleViolation, match="CH-9"):
        apply(state, cm.DeclareMahJongg(E))  # Heavenly only before any pass
