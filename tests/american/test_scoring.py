"""`mjtable score` for American hands, from the rule book: the League's payment schedule
(SC-1..SC-6, SC-10), the Finesse (J-12), misnamed discards (MN-3, MN-4), the wall game (W-1)
and a Mah Jongg in error (M-4)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from config.cards import load_card_text
from engine.american.compiled import CompiledCard
from engine.american.scoring import score_american
from engine.errors import MalformedInput

ROOT = Path(__file__).resolve().parents[2]
# A 50 line that takes Jokers (its kongs and pung), and a Singles and Pairs line of 50.
CARD_TEXT = b'''card "Rule-book test card" 2026
TS-1 X 50 : 1111a 33b 555c 7b 9999a "any 3 suits"
SP-1 C 50 : FF 13579a 13579b DDc "two suits, dragon of the third"
'''
JOKERLESS = ["1B", "1B", "1B", "1B", "3C", "3C", "5D", "5D", "5D", "7C", "9B", "9B", "9B", "9B"]
WITH_JOKER = ["1B", "1B", "1B", "J", "3C", "3C", "5D", "5D", "5D", "7C", "9B", "9B", "9B", "9B"]
SINGLES = ["F", "F", "1B", "3B", "5B", "7B", "9B", "1D", "3D", "5D", "7D", "9D", "RD", "RD"]


@pytest.fixture(scope="module")
def card() -> CompiledCard:
    return load_card_text(CARD_TEXT, "test.card", use_cache=False)


def scored(card: CompiledCard, tiles: list[str], by: str, source: str | None = None,
           **extra: Any) -> dict[str, Any]:
    win: dict[str, Any] = {"by": by}
    if source:
        win["from"] = source
    win.update(extra.pop("win", {}))
    doc = {"ruleset": "american", "hands": {"S": {"tiles": tiles}}, "winner": "S", "win": win,
           **extra}
    return score_american(doc, card)


def paid(result: dict[str, Any]) -> dict[str, int]:
    return {p["from"]: p["amount"] for p in result["payments"]}


def test_worked_example_50_jokerless_self_picked_is_200_from_each_600_in_all(
        card: CompiledCard) -> None:
    # "a 50 line, jokerless, self-picked (including Heavenly or Earthly) pays 50 x 2 x 2 = 200
    # from each player, 600 in all. Not 400 each: Heavenly is the self-pick" (SC-3, SC-4)
    for by in ("wall", "heavenly", "earthly"):
        doc = {"ruleset": "american", "hands": {"E": {"tiles": JOKERLESS}}, "winner": "E",
               "win": {"by": by}}
        east = score_american(doc, card)
        assert paid(east) == {"S": 200, "W": 200, "N": 200}, by
        assert east["net"]["E"] == 600
        result = scored(card, JOKERLESS, "wall")
        hand = result["hands"]["S"]
        assert hand["line"] == "TS-1" and hand["points"] == 50 and hand["value"] == 100
        assert hand["jokerless"] is True and hand["doubling"] == [50, 100]
        assert [i["rule"] for i in hand["items"]] == [
            "American SC-1 (the card's line TS-1)", "American SC-4"]


def test_sc2_discard_win_the_discarder_pays_double_east_like_everyone(
        card: CompiledCard) -> None:
    # SC-2; SC-10: East pays like every seat, no dealer double
    result = scored(card, WITH_JOKER, "discard", "E")
    assert paid(result) == {"E": 100, "W": 50, "N": 50}
    assert result["hands"]["S"]["jokerless"] is False
    why = {p["from"]: p["why"] for p in result["payments"]}
    assert "threw the winning tile: pays double (American SC-2)" in why["E"]


def test_sc4_jokerless_discard_costs_the_discarder_four_times_the_others_twice(
        card: CompiledCard) -> None:
    assert paid(scored(card, JOKERLESS, "discard", "N")) == {"E": 100, "W": 100, "N": 200}


def test_sc5_singles_and_pairs_take_no_jokerless_double(card: CompiledCard) -> None:
    result = scored(card, SINGLES, "wall")
    assert result["hands"]["S"]["line"] == "SP-1"
    assert result["hands"]["S"]["jokerless"] is False and result["hands"]["S"]["value"] == 50
    assert paid(result) == {"E": 100, "W": 100, "N": 100}


def test_j12_a_finesse_is_self_picked_and_never_jokerless(card: CompiledCard) -> None:
    result = scored(card, JOKERLESS, "finesse")
    assert result["hands"]["S"]["jokerless"] is False
    assert paid(result) == {"E": 100, "W": 100, "N": 100}


def test_sc6_a_dead_hand_pays_the_full_value_at_the_single_rate(card: CompiledCard) -> None:
    result = scored(card, WITH_JOKER, "wall", dead=["N"])
    assert paid(result) == {"E": 100, "W": 100, "N": 50}
    assert result["dead"] == ["N"]


def test_mn3_mahjong_on_a_misnamed_discard_the_misnamer_pays_for_the_table(
        card: CompiledCard) -> None:
    result = scored(card, WITH_JOKER, "discard", "W", win={"misnamed": "tile"})
    assert result["mahjong"] == {"valid": True, "line": "TS-1", "misnamed": "tile"}
    assert paid(result) == {"W": 200}
    assert result["net"] == {"E": 0, "S": 200, "W": -200, "N": 0}
    # MN-4: a discarded Joker called by a tile's name: the same four times
    joker = scored(card, JOKERLESS, "discard", "E", win={"misnamed": "joker"})
    assert paid(joker) == {"E": 400}  # four times the jokerless value of 100
    assert "MN-4" in joker["payments"][0]["why"]


def test_w1_a_wall_game_pays_nothing(card: CompiledCard) -> None:
    result = score_american({"ruleset": "american", "winner": None, "hands": {}}, card)
    assert result["payments"] == [] and set(result["net"].values()) == {0}
    assert result["mahjong"]["drawn"] is True and result["mahjong"]["rule"] == "American W-1"


def test_m4_a_mahjong_in_error_is_dead_and_says_what_it_lacks(card: CompiledCard) -> None:
    wrong = [*JOKERLESS[:-1], "8B"]  # 8B for the fourth 9B
    result = scored(card, wrong, "wall")
    mahjong = result["mahjong"]
    assert mahjong["valid"] is False and mahjong["rule"] == "American M-4"
    assert mahjong["closest"][0] == {"line": "TS-1", "tiles_away": 1, "needs": ["9B"],
                                     "joker_may_fill": ["9B"], "spare": ["8B"]}
    assert mahjong["lacks"].startswith("TS-1 needs 9B and has no place for 8B")
    assert result["payments"] == [] and result["dead"] == ["S"]


def test_the_announced_line_must_be_one_the_tiles_make(card: CompiledCard) -> None:
    with pytest.raises(MalformedInput, match="do not make 'SP-1'"):
        scored(card, JOKERLESS, "wall", line="SP-1")
    assert scored(card, JOKERLESS, "wall", line="TS-1")["mahjong"]["line"] == "TS-1"


def test_three_players_and_table_options(card: CompiledCard) -> None:
    result = scored(card, JOKERLESS, "discard", "W", players=["E", "S", "W"],
                    options={"jokerless_double": False})
    assert paid(result) == {"E": 50, "W": 100}
    with pytest.raises(MalformedInput, match="unknown option"):
        scored(card, JOKERLESS, "wall", options={"limit": 500})


@pytest.mark.parametrize(("doc", "where"), [
    ({"winner": "S", "win": {"by": "wall"}, "hands": {"S": {"tiles": ["ZZ"] * 14}}},
     "hands.S.tiles[0]"),
    ({"winner": "S", "win": {"by": "discard"}, "hands": {"S": {"tiles": JOKERLESS}}},
     "win.from"),
    ({"winner": "S", "win": {"by": "wall"}, "hands": {"S": {"tiles": JOKERLESS[:13]}}},
     "hands.S: tiles"),
    ({"winner": "S", "win": {"by": "ron"}, "hands": {"S": {"tiles": JOKERLESS}}}, "win.by"),
    ({"winner": "S", "win": {"by": "wall"}, "hands": {"S": {"tiles": JOKERLESS}}, "dead": 3},
     "dead"),
    ({"winner": "S", "win": {"by": "wall"}, "hands": {"S": {"tiles": JOKERLESS}},
      "dead": ["S"]}, "winner"),
    ({"winner": "S", "win": {"by": "wall"}, "hands": {"S": {"tiles": JOKERLESS}},
      "players": ["E", "W"]}, "winner"),
    ({"winner": "S", "win": {"by": "wall"}, "hands": {}}, "hands.S"),
    ({"winner": "S", "win": {"by": "heavenly"}, "hands": {"S": {"tiles": JOKERLESS}}},
     "win.by"),
])
def test_bad_input_names_the_place(card: CompiledCard, doc: dict[str, Any], where: str) -> None:
    with pytest.raises(MalformedInput) as err:
        score_american({"ruleset": "american", **doc}, card)
    assert err.value.where == where


def test_the_command_scores_an_american_hand_against_a_card_file(tmp_path: Path) -> None:
    path = tmp_path / "test.card"
    path.write_bytes(CARD_TEXT)
    doc = {"ruleset": "american", "card": str(path), "winner": "S",
           "hands": {"S": {"tiles": JOKERLESS}}, "win": {"by": "discard", "from": "N"}}
    bad = {**doc, "card": str(tmp_path / "missing.card")}
    run = subprocess.run(
        [sys.executable, "-c", "from controller.cli import main; raise SystemExit(main())",
         "score", "--batch", "-"],
        input=json.dumps(doc) + "\n" + json.dumps(bad) + "\n",
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert run.returncode == 0, run.stderr
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert first["net"] == {"E": -100, "S": 400, "W": -100, "N": -200}
    assert second["where"] == "line 2: card"


def test_m3_the_value_the_winner_announces_stands() -> None:
    # two lines the same tiles make: the one named is paid, even if the other is worth more
    card = load_card_text(
        b'card "Two lines" 2026\n'
        b'TS-1 X 50 : 1111a 33b 555c 7b 9999a "any 3 suits"\n'
        b'TS-2 X 25 : 1111a 33b 555c 7b 9999a "any 3 suits, the same hand"\n',
        "two.card", use_cache=False)
    named = scored(card, WITH_JOKER, "wall", line="TS-2")
    assert named["hands"]["S"]["line"] == "TS-2" and paid(named) == {"E": 50, "W": 50, "N": 50}
    best = scored(card, WITH_JOKER, "wall")
    assert best["mahjong"] == {"valid": True, "line": "TS-1", "also": ["TS-2"]}


def test_the_scoring_api_sends_an_american_hand_to_its_card() -> None:
    from engine.scoring import score_hand

    with pytest.raises(MalformedInput, match="scored against a card") as err:
        score_hand({"ruleset": "american", "winner": None})
    assert err.value.where == "ruleset"
