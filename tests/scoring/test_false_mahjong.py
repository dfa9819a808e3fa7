"""A false Mah-jongg is still a valid answer of `mjtable score`, but it says why the hand is no
Mah-jongg: the tiles that do not arrange, the closest arrangement, what it lacks (1924 Law 44,
86; the BMJA's one chow), and that the referee confirms before the penalty is entered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scoring_helpers import game, meld, score, seat_hand

ROOT = Path(__file__).resolve().parents[2]


def test_a_mistyped_tile_is_named_with_the_tile_that_completes_the_hand() -> None:
    # 9C typed for 9B: the pair 9B 9B is 9B 9C
    hand = seat_hand("SW SW SW 6D 7D 8D 9B 9C", meld("5B 5B 5B"), meld("2C 3C 4C"))
    result = score(game("code1924/mixed", {"S": hand}, "S", "9B"))
    mahjong = result["mahjong"]
    assert mahjong["valid"] is False and mahjong["rule"] == "Code 1924, Law 44"
    assert "9B 9C do not arrange" in mahjong["reason"]
    assert mahjong["unarranged"] == ["9B", "9C"]
    assert mahjong["closest"] == [
        ["5B", "5B", "5B"],
        ["2C", "3C", "4C"],
        ["6D", "7D", "8D"],
        ["SW", "SW", "SW"],
    ]
    assert {"held": "9C", "needed": "9B"} in mahjong["would_complete"]
    assert mahjong["lacks"].startswith("the pair; complete with")
    assert "9B in place of 9C" in mahjong["lacks"]
    assert "referee" in mahjong["confirm"]
    # and it is still settled as Law 86's false Mah-jongg: the limit to East, half to others
    assert result["net"] == {"E": 500, "S": -1000, "W": 250, "N": 250}


def test_a_hand_short_of_a_set_says_how_many_sets_it_lacks() -> None:
    hand = seat_hand("1B 2B 4C 5C 6C 7D 8D 9D 2D 3D 4D 6B 6B 9C")
    mahjong = score(game("classical", {"S": hand}, "S", "9C"))["mahjong"]
    assert mahjong["unarranged"] == ["1B", "2B", "9C"]
    assert mahjong["lacks"].startswith("1 set")
    assert mahjong["would_complete"] == [{"held": "9C", "needed": "3B"}]  # 1B 2B 3B


def test_bmja_two_chows_names_the_chows_and_shows_the_arrangement() -> None:
    hand = seat_hand("2B 3B 4B 5C 6C 7C 7D 7D 7D RD RD RD 9B 9B")
    result = score(game("classical/bmja", {"S": hand}, "S", "9B"))
    mahjong = result["mahjong"]
    assert mahjong["valid"] is False
    assert mahjong["reason"].startswith("2 chows: at most 1 chow")
    assert ["2B", "3B", "4B"] in mahjong["closest"] and ["5C", "6C", "7C"] in mahjong["closest"]
    assert mahjong["lacks"] == mahjong["reason"]
    assert result["net"]["S"] == -1500  # half the limit to each of the three


def test_the_command_answers_a_false_mahjong_with_exit_0_and_its_explanation() -> None:
    doc = game(
        "code1924/mixed",
        {"S": seat_hand("SW SW SW 6D 7D 8D 9B 9C", meld("5B 5B 5B"), meld("2C 3C 4C"))},
        "S",
        "9B",
    )
    run = subprocess.run(
        [sys.executable, "-m", "controller.cli", "score"],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["mahjong"]["would_complete"] == [
        {"held": "9B", "needed": "9C"},
        {"held": "9C", "needed": "9B"},
    ]
