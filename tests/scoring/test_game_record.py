"""The game record: each book's rule for when East passes, for a drawn hand and for when the
game ends, at every table size; players by name; the final settlement."""

from __future__ import annotations

import pytest

from engine.errors import MalformedInput
from engine.scoring.sheet import Scoresheet, default_players, game_rules
from engine.seats import Seat

FOUR = ["Ann", "Bob", "Cy", "Di"]


def won(seat: str, amount: int = 24, seats: tuple[str, ...] = ("E", "S", "W", "N")) -> dict:
    """A won hand: the winner takes ``amount`` from each other seat."""
    net = {s: -amount for s in seats}
    net[seat] = amount * (len(seats) - 1)
    return {"net": net, "winner": seat, "mahjong": {"valid": True}}


def drawn(seats: tuple[str, ...] = ("E", "S", "W", "N")) -> dict:
    return {"net": {s: 0 for s in seats}, "winner": None, "mahjong": {"valid": False,
                                                                      "drawn": True}}


def test_code1924_law_94_east_keeps_the_seat_on_his_win_and_a_drawn_hand() -> None:
    sheet = Scoresheet("code1924/mixed", FOUR)
    sheet.record(won("E"))
    sheet.record(drawn())
    assert sheet.player_at(Seat.E) == "Ann"
    assert sheet.rows[1].outcome == "drawn"


def test_code1924_law_95_south_becomes_east_and_the_players_keep_their_chairs() -> None:
    sheet = Scoresheet("code1924/mixed", FOUR)
    row = sheet.record(won("W"))
    assert row.winner == "Cy" and row.east == "Ann"
    assert sheet.seating() == {"E": "Bob", "S": "Cy", "W": "Di", "N": "Ann"}
    # the next hand's West is Di: her win is booked to her, not to the first hand's West
    row = sheet.record(won("W"))
    assert row.winner == "Di" and sheet.totals["Di"] == 72 - 24


def test_code1924_laws_96_97_four_rounds_make_a_round_of_the_winds_and_end_the_game() -> None:
    sheet = Scoresheet("code1924/mixed", FOUR)
    prevailing = []
    for _ in range(15):
        sheet.record(won("S"))
        prevailing.append(sheet.rows[-1].prevailing)
        assert not sheet.over
    sheet.record(won("S"))
    assert prevailing[:5] == ["E", "E", "E", "E", "S"] and sheet.rows[-1].prevailing == "N"
    assert sheet.over and sheet.rounds_done == 4
    final = sheet.final()
    assert final is not None and "Law 97" in final["why"]
    assert sum(final["settlement"].values()) == 0 and final["settlement"] == sheet.totals
    with pytest.raises(MalformedInput, match="game is over"):
        sheet.record(won("E"))


def test_code1924_law_94_a_drawn_hand_does_not_advance_the_round() -> None:
    sheet = Scoresheet("code1924/mixed", FOUR)
    for _ in range(20):
        sheet.record(drawn())
    assert not sheet.over and sheet.match.passes == 0


def test_code1924_three_hand_game_passes_east_round_three_chairs() -> None:
    sheet = Scoresheet("code1924/mixed", ["Ann", "Bob", "Di"])
    assert sheet.seating() == {"E": "Ann", "S": "Bob", "N": "Di"}
    sheet.record(won("S", seats=("E", "S", "N")))
    # the empty chair's wind moves: West, South, North (1924, Three-Hand Game)
    assert sheet.seating() == {"E": "Bob", "W": "Di", "N": "Ann"}
    for _ in range(2):
        in_play = tuple(sheet.seating())
        sheet.record(won(in_play[1], seats=in_play))
    # three passes make a round in the Three-Hand Game: South prevails (Law 96)
    assert sheet.match.prevailing == Seat.S and sheet.player_at(Seat.E) == "Ann"
    assert sum(sheet.totals.values()) == 0


def test_two_hand_game_seats_players_opposite() -> None:
    sheet = Scoresheet("pungchow", ["Ann", "Cy"])
    assert sheet.seating() == {"E": "Ann", "W": "Cy"}
    sheet.record(won("W", seats=("E", "W")))
    assert sheet.seating() == {"E": "Cy", "W": "Ann"}


def test_harr_part_i_a_east_remains_on_a_draw_and_part_ii_a_sets_end_the_game() -> None:
    sheet = Scoresheet("pungchow/limit", FOUR, sets=2)
    sheet.record(drawn())
    assert sheet.player_at(Seat.E) == "Ann"
    for _ in range(16):
        sheet.record(won("N"))
    assert not sheet.over  # two sets decided before starting (Part II, A)
    for _ in range(16):
        sheet.record(won("N"))
    assert sheet.over and "Part II, A" in (sheet.final() or {})["why"]


def test_harr_part_i_has_no_prevailing_wind() -> None:
    sheet = Scoresheet("pungchow", FOUR)
    sheet.record(won("S"))
    assert sheet.rows[0].prevailing is None and sheet.match.prevailing is None


def test_classical_rotates_after_every_hand_a_washout_too_and_ends_after_four_winds() -> None:
    sheet = Scoresheet("classical", FOUR)
    sheet.record(won("E"))
    assert sheet.player_at(Seat.E) == "Bob"  # even East's own win
    sheet.record(drawn())
    assert sheet.player_at(Seat.E) == "Cy"  # a washout too
    for _ in range(14):
        sheet.record(drawn())
    assert sheet.over and sheet.rows[-1].prevailing == "N"


def test_american_choosing_east_passes_after_a_win_or_wall_game_and_config_makes_the_game() -> None:
    sheet = Scoresheet("american", FOUR, hands_per_game=3)
    sheet.record({"net": {"E": 0, "S": 0, "W": 0, "N": 0}, "result": "wall", "winner": None})
    assert sheet.player_at(Seat.E) == "Bob" and sheet.rows[0].prevailing is None
    sheet.record({"net": {"E": 0, "S": 0, "W": 0, "N": 0}, "result": "redeal",
                  "winner": None})
    assert sheet.player_at(Seat.E) == "Bob"  # a hand thrown in is dealt again (CH-7)
    assert sheet.rows[-1].outcome == "thrown_in" and not sheet.over
    sheet.record({"net": {"E": 0, "S": 0, "W": 0, "N": 0}, "result": "wall", "winner": None})
    assert not sheet.over
    sheet.record({"net": {"E": 50, "S": -50, "W": 0, "N": 0}, "result": "mahjong",
                  "winner": "E"})
    assert sheet.over and sheet.rows[-1].winner == "Cy"
    assert game_rules("american").hands == 4


def test_the_table_word_on_seats_and_prevailing_is_kept() -> None:
    sheet = Scoresheet("code1924/mixed", FOUR)
    row = sheet.record(won("S"), seats={"E": "Ann", "S": "Bob", "W": "Cy", "N": "Di"},
                       prevailing="S")
    assert row.prevailing == "S"  # the wind the hand was played in, as given


def test_an_early_end_gives_the_final_settlement() -> None:
    sheet = Scoresheet("code1924/mixed", FOUR)
    sheet.record(won("N"))
    assert sheet.final() is None
    sheet.end("the club closes at midnight")
    final = sheet.final()
    assert final is not None and final["why"] == "the club closes at midnight"
    assert final["ranking"][0] == "Di"


def test_players_are_people_never_seat_letters() -> None:
    assert default_players(4) == ["Player 1", "Player 2", "Player 3", "Player 4"]
    with pytest.raises(MalformedInput, match="seat letter"):
        Scoresheet("code1924/mixed", ["E", "S", "W", "N"])
    with pytest.raises(MalformedInput, match="2, 3 or 4"):
        Scoresheet("code1924/mixed", ["Ann"])
    with pytest.raises(MalformedInput, match="does not play"):
        Scoresheet("code1924/mixed", FOUR).record(won("E"), seats={"E": "Zed"})
