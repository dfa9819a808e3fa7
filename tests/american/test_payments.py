"""American payments (SC-1..SC-12, J-12, MN-3/4, DH-6, M-4, B-1..4) and tournament points."""

from __future__ import annotations

from engine.american.payments import (
    PaymentOptions,
    TournamentOptions,
    Win,
    bettor_settlement,
    false_mahjong_cascade,
    pay_for_the_table,
    settle_challenge,
    settle_win,
    tournament_points,
)
from engine.seats import SEATS, Seat

E, S, W, N = SEATS


def amounts(win: Win, dead: tuple[Seat, ...] = (), **opts: bool) -> dict[str, int]:
    settlement = settle_win(win, SEATS, dead, PaymentOptions(**opts))
    return {p.payer.name: p.amount for p in settlement.payments}


def test_seed_worked_example_50_jokerless_self_pick_is_200_each_600_in_all() -> None:
    # "50 x 2 x 2 = 200 from each player, 600 in all. Not 400 each" (SC-4, SC-3, CH-9).
    for by in ("wall", "heavenly", "earthly"):
        paid = amounts(Win(E, 50, by, jokerless=True))  # type: ignore[arg-type]
        assert paid == {"S": 200, "W": 200, "N": 200} and sum(paid.values()) == 600


def test_sc2_discard_win_discarder_pays_double() -> None:
    assert amounts(Win(S, 25, "discard", discarder=N)) == {"E": 25, "W": 25, "N": 50}


def test_sc4_jokerless_discard_win_is_four_and_two() -> None:
    assert amounts(Win(S, 25, "discard", discarder=N, jokerless=True)) == {
        "E": 50, "W": 50, "N": 100}


def test_j12_finesse_is_self_picked() -> None:
    assert amounts(Win(W, 30, "finesse")) == {"E": 60, "S": 60, "N": 60}


def test_sc6_dead_hand_pays_single_even_on_a_self_pick() -> None:
    assert amounts(Win(W, 30, "wall"), dead=(N,)) == {"E": 60, "S": 60, "N": 30}
    # The option: a dead discarder of the winning tile pays single as well.
    assert amounts(Win(W, 30, "discard", discarder=N), dead=(N,),
                   dead_discarder_pays_double=False) == {"E": 30, "S": 30, "N": 30}
    assert amounts(Win(W, 30, "discard", discarder=N), dead=(N,)) == {"E": 30, "S": 30, "N": 60}


def test_sc8_table_options_drop_doubles() -> None:
    assert amounts(Win(E, 50, "heavenly", jokerless=True), heavenly_earthly_double=False) == {
        "S": 100, "W": 100, "N": 100}
    assert amounts(Win(E, 50, "wall", jokerless=True), self_pick_double=False,
                   jokerless_double=True) == {"S": 100, "W": 100, "N": 100}


def test_sc10_east_pays_like_everyone_and_net_sums_to_zero() -> None:
    settlement = settle_win(Win(S, 40, "discard", discarder=E), SEATS)
    net = settlement.net(SEATS)
    assert net == {"E": -80, "S": 160, "W": -40, "N": -40}
    assert sum(net.values()) == 0


def test_three_handed_pays_among_players_present() -> None:
    settlement = settle_win(Win(S, 40, "wall"), (E, S, W))
    assert {p.payer.name: p.amount for p in settlement.payments} == {"E": 80, "W": 80}


def test_mn3_mn4_pay_for_the_table() -> None:
    [payment] = pay_for_the_table(30, misnamer=N, collector=E, rule="MN-3").payments
    assert (payment.payer, payment.payee, payment.amount) == (N, E, 120)
    assert "MN-3" in payment.why


def test_dh6_challenge_settlement_50_either_way() -> None:
    right = settle_challenge(S, W, challenger_was_right=True)
    wrong = settle_challenge(S, W, challenger_was_right=False)
    assert (right.payer, right.payee, right.amount) == (W, S, 50)
    assert (wrong.payer, wrong.payee, wrong.amount) == (S, W, 50)


def test_m4_false_mahjong_cascade() -> None:
    two_threw = false_mahjong_cascade(declarer=E, thrown_in=(S, W), intact=(N,),
                                      attempted_values={N: 35}, lowest_value=25)
    assert [(p.payer, p.payee, p.amount) for p in two_threw.payments] == [(E, N, 70)]
    one_threw = false_mahjong_cascade(declarer=E, thrown_in=(S,), intact=(W, N),
                                      attempted_values={W: 30, N: 40}, lowest_value=25,
                                      later_dead=W)
    assert [(p.payer, p.payee, p.amount) for p in one_threw.payments] == [(W, N, 80)]
    wall = false_mahjong_cascade(declarer=E, thrown_in=(), intact=(S, W, N),
                                 attempted_values={}, lowest_value=25, wall_destroyed_by=S)
    assert [(p.payer, p.payee, p.amount) for p in wall.payments] == [(S, W, 25), (S, N, 25)]


def test_bettor_b3_b4() -> None:
    base = settle_win(Win(S, 25, "discard", discarder=N), SEATS)
    assert sorted(bettor_settlement(base, chosen=S, winner=S)) == sorted([
        ("E", "B", 25, "the Bettor is paid as the winner (B-3)"),
        ("W", "B", 25, "the Bettor is paid as the winner (B-3)"),
        ("N", "B", 50, "the Bettor is paid as the winner (B-3)")])
    assert bettor_settlement(base, chosen=N, winner=S)[0][:3] == ("B", "S", 50)
    wall = bettor_settlement(base, chosen=E, winner=None, lowest_value=25, bet_on_wall=True,
                             players=SEATS)
    assert sum(a for _, _, a, _ in wall) == 100


def test_sc9_tournament_points() -> None:
    """SC-9 and W-2 (wall game points; dead hands score 0)."""
    pts = tournament_points(Win(S, 30, "wall", jokerless=True), SEATS)
    assert pts["S"][0] == 60  # 30 + 10 self-pick + 20 jokerless
    heavenly = tournament_points(Win(E, 30, "heavenly"), SEATS)
    assert heavenly["E"][0] == 30  # no self-pick bonus for Heavenly
    thrown = tournament_points(Win(S, 25, "discard", discarder=W, exposures=2), SEATS)
    assert thrown["W"][0] == -20 and thrown["S"][0] == 25
    assert tournament_points(Win(S, 25, "discard", discarder=W, exposures=3), SEATS)["W"][0] == -25
    assert tournament_points(Win(S, 25, "discard", discarder=W, exposures=1), SEATS)["W"][0] == -10
    wall = tournament_points(None, SEATS, dead=(N,))
    assert [wall[s][0] for s in "ESWN"] == [10, 10, 10, 0]
    assert all(v[0] == 0 for v in tournament_points(None, SEATS, unfinished=True).values())
    misnamed = tournament_points(Win(S, 25, "discard", discarder=W), SEATS, misnamer=W)
    assert misnamed["W"][0] == -35
    no_finesse = TournamentOptions(finesse_self_pick_bonus=False)
    assert tournament_points(Win(S, 25, "finesse"), SEATS, options=no_finesse)["S"][0] == 25
