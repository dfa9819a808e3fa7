"""American tournament points over a game, for the scoreboard and the export (American SC-9):
the numbers are the table's own (engine.american.payments.tournament_points, at each hand),
the reasons found by calling the same function with the hand's public result."""

from __future__ import annotations

from typing import Any

from controller.games import name_seats
from engine.american.payments import Win, settle_win, tournament_points
from engine.scoring.tournament import RECORDED, game_points, hand_points
from engine.seats import SEATS, Seat

SEATED = {"E": "Ann", "S": "Bob", "W": "Cy", "N": "Dee"}


def scored_hand(number: int, win: Win | None, dead: tuple[Seat, ...] = (),
                misnamer: Seat | None = None) -> dict[str, Any]:
    """A hand as the American table records it (engine/american/mahjong.py) and the export
    names it."""
    result: dict[str, Any] = {"winner": None, "result": "wall", "payments": []}
    if win is not None:
        result = {"winner": win.winner.name, "result": "mahjong", "by": win.by,
                  "points": win.value, "jokerless": win.jokerless,
                  **settle_win(win, SEATS, dead).as_json(SEATS)}
    result["tournament"] = {s: p for s, (p, _) in tournament_points(
        win, SEATS, dead, misnamer=misnamer).items()}
    return {"hand": number, "seats": dict(SEATED), "score": name_seats(result, SEATED)}


def test_a_discard_win_against_two_exposures() -> None:
    # SC-9: the winner scores the card value; the thrower loses 20 when the winner had two
    # exposures.
    hand = scored_hand(1, Win(Seat.S, 25, "discard", discarder=Seat.W, exposures=2))
    points = hand_points(hand)
    assert points is not None
    assert points["Bob"] == {"points": 25, "why": ["card value (SC-9)"]}
    assert points["Cy"]["points"] == -20 and "2 exposures" in points["Cy"]["why"][0]
    assert points["Ann"] == {"points": 0, "why": []}


def test_one_exposure_or_none_is_not_guessed() -> None:
    hand = scored_hand(1, Win(Seat.S, 25, "discard", discarder=Seat.W, exposures=1))
    points = hand_points(hand)
    assert points is not None
    assert points["Cy"] == {"points": -10, "why": [
        "threw the winning tile, winner had no exposure or one (SC-9)"]}


def test_a_jokerless_self_pick_adds_both_bonuses() -> None:
    # SC-9: self-pick +10 and jokerless +20 on the card value of 30
    points = hand_points(scored_hand(1, Win(Seat.E, 30, "wall", jokerless=True)))
    assert points is not None
    assert points["Ann"] == {"points": 60, "why": [
        "card value (SC-9)", "self-pick +10 (SC-9)", "jokerless +20 (SC-9)"]}


def test_a_wall_game_with_a_dead_hand() -> None:
    # SC-9, W-2: +10 each, a dead hand nothing
    points = hand_points(scored_hand(1, None, dead=(Seat.N,)))
    assert points is not None
    assert {p: v["points"] for p, v in points.items()} == {"Ann": 10, "Bob": 10, "Cy": 10,
                                                            "Dee": 0}
    assert points["Dee"]["why"] == ["dead hand: no wall points (SC-9, W-2)"]


def test_a_misnamed_discard_keeps_the_tables_numbers() -> None:
    # SC-9, MN-3: the misnamer loses 25 more; the public result cannot tell, the table's
    # numbers stand
    hand = scored_hand(1, Win(Seat.S, 25, "discard", discarder=Seat.W), misnamer=Seat.W)
    points = hand_points(hand)
    assert points is not None
    assert points["Cy"] == {"points": -35, "why": [RECORDED]}


def test_a_game_adds_up_and_ranks() -> None:
    game = {"players": list(SEATED.values()), "hands": [
        scored_hand(1, None),
        scored_hand(2, Win(Seat.S, 25, "discard", discarder=Seat.W)),
        scored_hand(3, Win(Seat.E, 30, "wall", jokerless=True)),
        {"hand": 4, "seats": dict(SEATED), "score": None},  # not scored: no points
    ]}
    points = game_points(game)
    assert points is not None
    assert points["totals"] == {"Ann": 70, "Bob": 35, "Cy": 0, "Dee": 10}
    assert points["standing"] == ["Ann", "Bob", "Dee", "Cy"]
    assert [h["hand"] for h in points["hands"]] == [1, 2, 3]
    assert "SC-9" in points["rule"]


def test_a_game_of_another_family_has_none() -> None:
    game = {"players": ["Ann", "Bob"], "hands": [
        {"hand": 1, "seats": {"E": "Ann", "W": "Bob"}, "score": {"net": {"Ann": 2}}}]}
    assert game_points(game) is None
