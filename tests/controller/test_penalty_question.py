"""A false Mah-jongg found by scoring is asked of the referee before its penalty is booked
(Code 1924, Law 86 makes it a penalty; the BMJA admits at most one chow): held on the record and
the scoreboard, booked on `cmd/confirm`, dropped on `cmd/dismiss`, still asked after a
restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.games import export_games
from controller.inputs import Press
from controller.lights import LightLog
from controller.scoresheet import engine_scorer
from controller.store import EventStore
from controller.table import Table, TableSettings

from .test_table import PAUSE_US, WINDOW_US, WINNING_14, _to_first_discard, obs

NAMES = {"E": "Ann", "S": "Bob", "W": "Cy", "N": "Dee"}


def _bmja_table(path: Path) -> Table:
    """Played as Classical, scored by the BMJA preset (at most one chow in a Mah-jongg)."""
    settings = TableSettings("t1", "classical", courtesy_pause_ms=PAUSE_US // 1000,
                             scoring="classical/bmja", players=NAMES,
                             options={"losers_settle": False})
    return Table(settings, EventStore(path / "table.sqlite3"), LightLog(),
                 scorer=engine_scorer)


def _two_chows_by_south(table: Table) -> int:
    """South goes out on East's 5C with two chows (1C 2C 3C, 7B 8B 9B): the table's engine
    accepts four sets and a pair; the BMJA's scorer does not."""
    now = _to_first_discard(table)
    table.press(Press("S", "mahjong", now + 700), now + 1_100)
    table.tick(now + WINDOW_US + 1_000)
    shown = obs("hand_shown", "S", *WINNING_14, source="referee")
    outcome = table.observe(shown, now + 2 * WINDOW_US)
    assert outcome.accepted, outcome.error
    return now + 2 * WINDOW_US


def _prompts(table: Table) -> list[dict[str, Any]]:
    return [json.loads(m.payload) for m in table.store.pending(0, 1000)
            if m.topic.endswith("/prompts")]


def test_the_penalty_is_asked_not_booked_and_a_restart_keeps_the_question(
        tmp_path: Path) -> None:
    table = _bmja_table(tmp_path)
    _two_chows_by_south(table)
    (scored,) = [r for r in table.store.events() if r["type"] == "HandScored"]
    assert scored["score"]["mahjong"]["valid"] is False and scored["held"] == 1
    assert scored["net_by_player"]["Bob"] < 0  # the penalty the scorer priced
    # nothing booked: the totals and the game's hand show it pending
    assert set(table.totals.values()) == {0}
    game = table.scores()["game"]
    assert game["questions"] == [1] and set(game["totals"].values()) == {0}
    (hand,) = game["hands"]
    assert hand["penalty"]["status"] == "pending" and hand["penalty"]["seat"] == "Bob"
    assert hand["penalty"]["net"] == scored["net_by_player"]
    # the question, on the state and on `prompts`, explains the hand and cites the rule
    (question,) = table.public_state()["pending"]
    assert question["id"] == 1 and question["kind"] == "false_mahjong"
    assert question["seat"] == "S" and question["player"] == "Bob"
    assert question["reason"].startswith("2 chows") and "BMJA" in question["rule"]
    assert ["1C", "2C", "3C"] in question["closest"] and question["lacks"]
    assert "would_complete" in question
    (prompt,) = _prompts(table)
    assert prompt["type"] == "PenaltyHeld" and prompt["id"] == 1
    assert prompt["closest"] == question["closest"]
    # a restart: the question is still open, nothing booked
    again = _bmja_table(tmp_path)
    assert sorted(again.pending) == [1] and set(again.totals.values()) == {0}
    assert again.scores()["game"]["questions"] == [1]


def test_confirmed_the_penalty_is_booked_everywhere(tmp_path: Path) -> None:
    table = _bmja_table(tmp_path)
    now = _two_chows_by_south(table)
    penalty = next(r for r in table.store.events() if r["type"] == "HandScored")["net_by_player"]
    # correcting is not an answer to a penalty: refused, nothing changed
    before = table.store.last_seq()
    wrong = table.command("correct", b'{"pending": 1, "tiles": ["5C"]}', now + 1)
    assert wrong["ok"] is False and "confirm or dismiss" in wrong["error"]
    assert table.store.last_seq() == before
    result = table.command("confirm", b'{"pending": 1}', now + 2)
    assert result == {"ok": True, "seq": before + 1, "pending": 1, "how": "confirmed",
                      "events": ["PenaltySettled"]}
    assert table.totals == penalty and not table.pending
    game = table.scores()["game"]
    assert game["totals"] == penalty and game["questions"] == []
    assert game["hands"][0]["penalty"]["status"] == "confirmed"
    assert game["hands"][0]["net"] == penalty
    scored_seq = next(r["seq"] for r in table.store.events() if r["type"] == "HandScored")
    assert game["hands"][0]["seq"] == scored_seq  # kept when the answer folds the game again
    # the record says so, the export agrees, a restart agrees, a second answer is refused
    (settled,) = [r for r in table.store.events() if r["type"] == "PenaltySettled"]
    assert settled["how"] == "confirmed" and settled["net_by_player"] == penalty
    (exported,) = export_games(table.store.events(0), "classical")
    assert exported["totals"] == penalty
    assert _bmja_table(tmp_path).totals == penalty
    late = table.command("dismiss", b'{"pending": 1}', now + 3)
    assert late["ok"] is False and "no held observation 1" in late["error"]
    assert table.totals == penalty


def test_dismissed_nothing_is_booked_and_the_record_says_so(tmp_path: Path) -> None:
    table = _bmja_table(tmp_path)
    now = _two_chows_by_south(table)
    result = table.command("dismiss", b'{"pending": 1}', now + 1)
    assert result["ok"] and result["how"] == "dismissed"
    assert set(table.totals.values()) == {0} and not table.pending
    (settled,) = [r for r in table.store.events() if r["type"] == "PenaltySettled"]
    assert settled["how"] == "dismissed" and settled["net_by_player"] == {}
    hand = table.scores()["game"]["hands"][0]
    assert hand["penalty"]["status"] == "dismissed" and set(hand["net"].values()) == {0}
    (exported,) = export_games(table.store.events(0), "classical")
    assert exported["hands"][0]["penalty"]["status"] == "dismissed"
    assert set(exported["totals"].values()) == {0}


def test_the_answer_reaches_the_retained_scores(tmp_path: Path) -> None:
    table = _bmja_table(tmp_path)
    now = _two_chows_by_south(table)
    table.command("confirm", b'{"pending": 1}', now + 1)
    (scores,) = [json.loads(r.payload) for r in table.store.retained_all()
                 if r.topic.endswith("/scores")]
    assert scores["totals"] == table.totals and set(scores["totals"].values()) != {0}
    assert scores["game"]["hands"][0]["penalty"]["status"] == "confirmed"
    assert scores["hands"][0]["held"] == 1 and scores["hands"][0]["penalty"] == "confirmed"
    # the snapshot a restart starts from says the same
    assert _bmja_table(tmp_path).scores()["hands"][0]["penalty"] == "confirmed"
