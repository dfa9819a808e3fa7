"""The scoresheet across hands: totals per player, East's rotation per family, JSON and CSV."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, score, seat_hand

from engine.errors import MalformedInput
from engine.scoring.sheet import Scoresheet

SEQ_HAND = "2B 3B 4B 5C 6C 7C 3D 4D 5D 6D 7D 8D 9B 9B"
PLAYERS = ["Ann", "Bob", "Cy", "Di"]


def win(ruleset: str, seat: str, prevailing: str = "E") -> dict:
    return score(game(ruleset, {seat: seat_hand(SEQ_HAND)}, seat, "9B", prevailing=prevailing))


def drawn(ruleset: str) -> dict:
    return score(game(ruleset, {}, None, prevailing="E"))


def test_totals_follow_the_players_as_the_winds_move() -> None:
    sheet = Scoresheet("code1924/mixed", PLAYERS)
    first = win("code1924/mixed", "S")  # Bob (South) wins: East passes to Bob (Law 95)
    sheet.record(first)
    assert sheet.player_at(sheet.match.seat_of(1)) == "Bob"
    assert sheet.rows[0].winner == "Bob" and sheet.rows[0].east == "Ann"
    second = win("code1924/mixed", "S")  # now South is Cy
    row = sheet.record(second)
    assert row.east == "Bob" and row.winner == "Cy"
    assert sheet.totals["Cy"] == first["net"]["W"] + second["net"]["S"]
    assert sheet.totals["Bob"] == first["net"]["S"] + second["net"]["E"]
    assert sum(sheet.totals.values()) == 0


def test_east_keeps_his_seat_on_his_win_a_draw_or_anothers_false_call() -> None:
    sheet = Scoresheet("code1924/mixed", PLAYERS)
    sheet.record(win("code1924/mixed", "E"))
    sheet.record(drawn("code1924/mixed"))
    false_call = score(
        game("code1924/mixed", {"S": seat_hand(SEQ_HAND.replace("9B 9B", "9B 1C"))}, "S", "1C")
    )
    with pytest.raises(MalformedInput, match="the referee confirms"):
        sheet.record(false_call)
    assert len(sheet.rows) == 2  # nothing booked until confirmed
    sheet.record(false_call, confirmed=True)
    assert [r.outcome for r in sheet.rows] == ["win", "drawn", "false_mahjong"]
    assert sheet.match.east_player == 0 and sheet.match.hand == 3


def test_four_passes_make_the_next_wind_prevail() -> None:
    sheet = Scoresheet("code1924/mixed", PLAYERS)
    for _ in range(4):
        sheet.record(win("code1924/mixed", "S"))
    assert sheet.match.prevailing is not None and sheet.match.prevailing.name == "S"
    assert sheet.to_json()["next"] == {"hand": 5, "prevailing": "S", "east": "Ann"}


def test_classical_rotates_after_every_hand_washouts_too() -> None:
    sheet = Scoresheet("classical/bmja", PLAYERS)
    sheet.record(drawn("classical/bmja"))
    assert sheet.match.east_player == 1


def test_csv_export() -> None:
    sheet = Scoresheet("pungchow", PLAYERS)
    result = score(game("pungchow", {"W": seat_hand(SEQ_HAND)}, "W", "9B", prevailing=None))
    sheet.record(result)
    rows = list(csv.reader(io.StringIO(sheet.to_csv())))
    assert rows[0][:5] == ["hand", "prevailing", "east", "winner", "outcome"]
    assert rows[1][:5] == ["1", "", "Ann", "Cy", "win"]
    assert int(rows[1][5 + 2]) == result["net"]["W"]


def test_bad_sheet_input() -> None:
    with pytest.raises(MalformedInput, match="4 different players"):
        Scoresheet("classical", ["A", "A", "B", "C"])
    with pytest.raises(MalformedInput, match="net"):
        Scoresheet("classical", PLAYERS).record({"mahjong": {"valid": True}})
