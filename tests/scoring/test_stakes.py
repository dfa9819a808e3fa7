"""Points to chips or money, with each book's rules on chips, limits and settling: worked
examples from the books (engine/scoring/stakes.py)."""

from __future__ import annotations

import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, score, seat_hand

from engine.american.payments import Win, settle_win
from engine.errors import MalformedInput
from engine.scoring.settle import pay_winner, settle_losers
from engine.scoring.stakes import (
    Stakes,
    convert_game,
    counters,
    money_rules,
    settle_totals,
)
from engine.seats import SEATS, Seat

PLAYERS = {"E": "Ann", "S": "Bob", "W": "Cy", "N": "Dee"}
USD_CENT = Stakes("USD", Decimal("0.01"))


def named(payments: list[Any]) -> list[dict[str, Any]]:
    """Payments as a game's export holds them: seats named by player."""
    return [{"from": PLAYERS[p.payer.name], "to": PLAYERS[p.payee.name], "amount": p.amount,
             "why": p.why} for p in payments]


def one_hand_game(ruleset: str, payments: list[dict[str, Any]], over: bool = True
                  ) -> dict[str, Any]:
    players = list(PLAYERS.values())
    net = {p: 0 for p in players}
    for p in payments:
        net[p["from"]] -= p["amount"]
        net[p["to"]] += p["amount"]
    return {"id": 1, "ruleset": ruleset, "players": players,
            "hands": [{"hand": 1, "net": net, "score": {"payments": payments}}],
            "totals": net, "final": {"settlement": net} if over else None}


def test_harr_first_illustration_settled_in_counters() -> None:
    # Harr, Illustrations of Score Settling: East Mah-Jonggs with 608 and, being East, collects
    # double, 1216 from each; West (400) collects the differences from South (64) and North
    # (16); South collects 48 from North. (The book prints 484 for West's from North: 400 - 16
    # is 384.)
    opts = {"east_double": True, "limit": None}
    paid = pay_winner(Seat.E, 608, opts, rule="Harr, Settling the Scores")
    paid += settle_losers({Seat.W: 400, Seat.S: 64, Seat.N: 16}, opts, "score", Seat.E,
                          "Harr, Settling the Scores")
    amounts = {(p.payer.name, p.payee.name): p.amount for p in paid}
    assert amounts == {("S", "E"): 1216, ("W", "E"): 1216, ("N", "E"): 1216,
                       ("S", "W"): 336, ("N", "W"): 384, ("N", "S"): 48}
    money = convert_game(one_hand_game("pungchow", named(paid)), Stakes(
        "USD", Decimal("0.001")))
    # each payment in the counters of the set (1,000, 500, 100, 10, 2 points)
    by_pair = {(p["from"], p["to"]): p for p in money["hands"][0]["payments"]}
    assert by_pair[("Bob", "Ann")]["counters"] == {"1000": 1, "100": 2, "10": 1, "2": 3}
    assert by_pair[("Dee", "Cy")]["counters"] == {"100": 3, "10": 8, "2": 2}
    assert by_pair[("Dee", "Bob")]["counters"] == {"10": 4, "2": 4}
    # a tenth of a cent a point, each payment rounded to the cent: 1.216 -> 1.22, three times
    assert by_pair[("Bob", "Ann")]["money"] == "1.22"
    assert money["hands"][0]["net"]["Ann"] == "3.66"
    assert sum(Decimal(v) for v in money["hands"][0]["net"].values()) == 0
    # Pung-Chow without a limit: Harr warns against stakes on unlimited hands
    assert money["limit"] is None and "impractical" in money["warning"]


def test_harr_second_illustration_west_collects_in_counters() -> None:
    # North wins with 22: 22 from West and South, 44 from East; West (2816) collects 5628 from
    # East (2814 doubled) and 2808 from South; South 8 from East (4 doubled).
    assert counters(5628) == {1000: 5, 500: 1, 100: 1, 10: 2, 2: 4}
    assert counters(2808) == {1000: 2, 500: 1, 100: 3, 2: 4}
    assert counters(44) == {10: 4, 2: 2}
    # an odd point no counter makes is rounded up to the smallest counter (our choice)
    assert counters(23) == {10: 2, 2: 2}


def test_code_1924_law_93_limit_in_money() -> None:
    # Law 100: the Hand from Heaven is a limit hand, 500; East wins it and is paid double:
    # 1000 from each (Law 93). At a cent a point: 10.00 from each, 30.00 to East.
    result = score(game("code1924/mixed",
                        {"E": seat_hand("2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B")},
                        "E", None, context=("heaven",)))
    assert result["net"] == {"E": 3000, "S": -1000, "W": -1000, "N": -1000}
    payments = [{**p, "from": PLAYERS[p["from"]], "to": PLAYERS[p["to"]]}
                for p in result["payments"]]
    money = convert_game(one_hand_game("code1924/mixed", payments), USD_CENT)
    assert money["hands"][0]["net"] == {"Ann": "30.00", "Bob": "-10.00", "Cy": "-10.00",
                                        "Dee": "-10.00"}
    assert money["limit"] == {"points": 500, "east_points": 1000, "amount": "5.00",
                              "east_amount": "10.00", "rule": money["rules"]["limit"]}
    assert "Law 93" in money["rules"]["limit"] and "Law 85" in money["rules"]["settling"]
    assert money["final"] == {"settlement": money["totals"]}


def test_american_values_are_cents_sc_2() -> None:
    # "Values and units": the card's values in cents. A 25 line won on West's discard: the
    # discarder pays double, 50, the others 25 (SC-2): 0.50, 0.25, 0.25; the winner 1.00.
    win = Win(Seat.S, 25, "discard", discarder=Seat.W)
    paid = settle_win(win, SEATS).payments
    money = convert_game(one_hand_game("american", named(paid)), USD_CENT)
    assert money["hands"][0]["net"] == {"Ann": "-0.25", "Bob": "1.00", "Cy": "-0.50",
                                        "Dee": "-0.25"}
    assert money["limit"] is None and "no limit" in money["rules"]["limit"]
    assert "SC-2" in money["rules"]["settling"]


def test_chips_are_whole_and_our_choice() -> None:
    # a chip for every 10 points: 136 points are 14 chips (13.6 rounded half up)
    chips = Stakes("chips", Decimal("0.1"))
    payments = [{"from": "Bob", "to": "Ann", "amount": 136}, {"from": "Cy", "to": "Ann",
                                                              "amount": 64}]
    money = convert_game(one_hand_game("classical", payments, over=False), chips)
    assert money["hands"][0]["net"]["Ann"] == "20"  # 14 + 6
    assert money["final"] is None
    assert money["rules"]["chips"].startswith("our choice")
    assert money["rules"]["limit"].startswith("our choice")


def test_settled_once_at_the_game_end_still_sums_to_zero() -> None:
    # three players each owed a third of a chip: rounded down, the odd chip to the largest
    # remainder
    chips = Stakes("chips", Decimal("0.1"), settle="game")
    totals = {"Ann": 34, "Bob": 33, "Cy": 33, "Dee": -100}
    assert settle_totals(totals, chips) == {"Ann": Decimal(4), "Bob": Decimal(3),
                                            "Cy": Decimal(3), "Dee": Decimal(-10)}


@settings(max_examples=200, derandomize=True)
@given(st.lists(st.integers(-5000, 5000), min_size=3, max_size=3),
       st.sampled_from(["0.01", "0.1", "0.003", "1", "0.25"]))
def test_a_game_settled_once_sums_to_zero(three: list[int], rate: str) -> None:
    totals = dict(zip(["Ann", "Bob", "Cy"], three, strict=True)) | {"Dee": -sum(three)}
    stakes = Stakes("chips", Decimal(rate), settle="game")
    settled = settle_totals(totals, stakes)
    assert sum(settled.values()) == 0
    for p, t in totals.items():  # never more than a step from the exact amount
        assert abs(settled[p] - Decimal(t) * Decimal(rate)) < stakes.step


@pytest.mark.parametrize(("unit", "rate", "settle", "where"), [
    ("", "0.01", "hand", "stakes.unit"),
    ("USD", "0", "hand", "stakes.per_point"),
    ("USD", "-1", "hand", "stakes.per_point"),
    ("USD", "NaN", "hand", "stakes.per_point"),
    ("USD", "0.01", "week", "stakes.settle"),
])
def test_bad_stakes_are_named(unit: str, rate: str, settle: Any, where: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        Stakes(unit, Decimal(rate), settle=settle)
    assert caught.value.where == where


def test_each_book_has_its_rules() -> None:
    assert money_rules("pungchow/limit").limit == 300
    assert money_rules("pungchow", limit=600).warning == ""  # a limit set before play
    assert money_rules("classical/bmja").limit == 1000
    with pytest.raises(MalformedInput):
        money_rules("chess")


@settings(max_examples=200, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(list(PLAYERS.values())),
                          st.sampled_from(list(PLAYERS.values())),
                          st.integers(1, 5000)), max_size=8),
       st.sampled_from(["0.01", "0.001", "0.1", "0.003"]),
       st.sampled_from(["USD", "chips"]))
def test_each_hand_in_money_sums_to_zero_and_follows_its_points(
        paid: list[tuple[str, str, int]], rate: str, unit: str) -> None:
    payments = [{"from": a, "to": b, "amount": n} for a, b, n in paid if a != b]
    stakes = Stakes(unit, Decimal(rate))
    money = convert_game(one_hand_game("code1924/mixed", payments), stakes)
    net = {p: Decimal(v) for p, v in money["hands"][0]["net"].items()}
    assert sum(net.values()) == 0
    for p in net:  # each payment within half a step of exact: the hand within that many
        points = sum(x["amount"] for x in payments if x["to"] == p) - sum(
            x["amount"] for x in payments if x["from"] == p)
        touching = sum(1 for x in payments if p in (x["from"], x["to"]))
        assert abs(net[p] - points * Decimal(rate)) <= touching * stakes.step / 2


def test_a_house_limit_over_the_books() -> None:
    # a table may override the documented default (Law 93's 500) through its options
    assert money_rules("code1924/mixed", limit=1000).limit == 1000
    unlimited = money_rules("code1924/mixed", unlimited=True)
    assert unlimited.limit is None and "house rule" in unlimited.limit_rule
    assert "Law 93" in unlimited.limit_rule  # the book's word stays cited beside it
    assert "impractical" in money_rules("pungchow/limit", unlimited=True).warning


def test_the_tables_options_name_its_limit() -> None:
    from controller.game_extras import HouseLimit, table_limit

    assert table_limit({}) == HouseLimit()
    assert table_limit({"limit": None}) == HouseLimit(unlimited=True)
    assert table_limit({"limit": 600}) == HouseLimit(600)
