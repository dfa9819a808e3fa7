"""Standings schemes, with worked examples: raw points, table placement points with ties
split, American tournament points (SC-9) with a wall game, a dead hand and a false Mah Jongg."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from hub.records import GameRecord, HandRecord, SeatRecord
from hub.schemes import SchemeError, placement_points, standings

PLAYERS = ("Ann", "Bob", "Cy", "Di")


def hand(n: int, outcome: str = "win", winner: str | None = None,
         tournament: dict[str, int] | None = None, dead: tuple[str, ...] = (),
         false_mahjong: str | None = None) -> HandRecord:
    return HandRecord(hand=n, seq=n, table_hand=n, outcome=outcome,  # type: ignore[arg-type]
                      winner=winner, value=None, name=None, false_mahjong=false_mahjong,
                      dead=dead, net={}, totals={}, seats={}, prevailing=None, rule=None,
                      tournament=tournament)


def game(table: str, totals: dict[str, int], hands: tuple[HandRecord, ...] = (),
         ruleset: str = "code1924", finished: bool = True, **kw: Any) -> GameRecord:
    return GameRecord(table=table, game=kw.get("number", 1), ruleset=ruleset,
                      seats=tuple(SeatRecord(w, p) for w, p in zip("ESWN", totals,
                                                                     strict=False)),
                      totals=totals, finished=finished, started_seq=1, hands=hands)


def as_rows(games: list[GameRecord], scheme: str) -> list[tuple[str, object]]:
    return [(p["name"], p["points"])  # type: ignore[index]
            for p in standings(games, scheme).to_json()["players"]]  # type: ignore[union-attr]


def test_raw_points_sum_the_scoresheets_and_skip_games_in_progress() -> None:
    games = [
        game("t1", {"Ann": 120, "Bob": -40, "Cy": -40, "Di": -40},
             (hand(1, winner="Ann"), hand(2, "drawn"))),
        game("t2", {"Ann": -10, "Bob": 30, "Cy": -10, "Di": -10}, (hand(1, winner="Bob"),),
             number=2),
        game("t3", {"Ann": 500, "Bob": 0, "Cy": 0, "Di": -500}, finished=False),
    ]
    out = standings(games, "raw").to_json()
    assert out["players"] == [
        {"name": "Ann", "points": 110, "games": 2, "hands_won": 1},
        {"name": "Bob", "points": -10, "games": 2, "hands_won": 1},
        {"name": "Cy", "points": -50, "games": 2, "hands_won": 0},
        {"name": "Di", "points": -50, "games": 2, "hands_won": 0},  # tie: by name
    ]


@pytest.mark.parametrize(("totals", "expected"), [
    ({"Ann": 300, "Bob": 100, "Cy": -100, "Di": -300}, [4, 2, 1, 0]),
    # two tied for first share (4 + 2) / 2
    ({"Ann": 200, "Bob": 200, "Cy": -100, "Di": -300}, [3, 3, 1, 0]),
    # three tied for second share (2 + 1 + 0) / 3
    ({"Ann": 300, "Bob": -100, "Cy": -100, "Di": -100}, [4, 1, 1, 1]),
    # tied for third share (1 + 0) / 2
    ({"Ann": 300, "Bob": 100, "Cy": -200, "Di": -200}, [4, 2, Fraction(1, 2), Fraction(1, 2)]),
    # all four equal: (4 + 2 + 1 + 0) / 4
    ({"Ann": 0, "Bob": 0, "Cy": 0, "Di": 0}, [Fraction(7, 4)] * 4),
    # a table of three: 4, 2, 1
    ({"Ann": 10, "Bob": 0, "Cy": -10}, [4, 2, 1]),
])
def test_placement_points_with_ties_split(totals: dict[str, int], expected: list[Any]) -> None:
    points = placement_points(totals)
    assert [points[p] for p in totals] == expected


def test_placement_standings_break_ties_on_raw_points() -> None:
    games = [
        game("t1", {"Ann": 300, "Bob": 100, "Cy": -100, "Di": -300}),
        game("t2", {"Di": 50, "Cy": 40, "Bob": -40, "Ann": -50}, number=2),
    ]
    # Ann 4+0, Di 0+4: equal on placement, Ann ahead on raw (250 against -250).
    # Bob 2+1, Cy 1+2: equal, Bob ahead on raw (60 against -60).
    assert as_rows(games, "placement") == [("Ann", 4), ("Di", 4), ("Bob", 3), ("Cy", 3)]


def test_american_tournament_points_hand_by_hand() -> None:
    """Worked example (American "Tournament points", SC-9):

    hand 1, Ann wins on Bob's discard, a 25-point line, jokerless, two exposures: Ann 25 + 20
    jokerless = 45, Bob threw the winning tile to two exposures: -20 (the engine books this);
    hand 2, a wall game with Di's hand dead: 10 each, Di 0 (SC-9, W-2);
    hand 3, Cy declares a false Mah Jongg with tiles exposed, Ann and Bob throw in, Di's hand
    stays intact: Di 10, the rest 0 (M-4, tournament form)."""
    hands = (
        hand(1, winner="Ann", tournament={"Ann": 45, "Bob": -20, "Cy": 0, "Di": 0}),
        hand(2, "drawn", dead=("Di",)),
        hand(3, "false_mahjong", false_mahjong="Cy", dead=("Ann", "Bob")),
    )
    games = [game("t1", {"Ann": 100, "Bob": -60, "Cy": -20, "Di": -20}, hands,
                      ruleset="american")]
    assert as_rows(games, "american") == [("Ann", 55), ("Cy", 10), ("Di", 10), ("Bob", -10)]


def test_american_three_others_thrown_in_all_score_zero() -> None:
    hands = (hand(1, "false_mahjong", false_mahjong="Cy", dead=("Ann", "Bob", "Di")),)
    games = [game("t1", {"Ann": 0, "Bob": 0, "Cy": 0, "Di": 0}, hands, ruleset="american")]
    assert {p for _, p in as_rows(games, "american")} == {0}


def test_american_wall_game_uses_the_engine_schedule() -> None:
    # A wall game with nobody dead: +10 to every player (SC-9) from tournament_points.
    hands = (hand(1, "drawn"), hand(2, "drawn"))
    games = [game("t1", {"Ann": 0, "Bob": 0, "Cy": 0, "Di": 0}, hands, ruleset="american")]
    assert as_rows(games, "american") == [("Ann", 20), ("Bob", 20), ("Cy", 20), ("Di", 20)]


def test_american_scheme_names_what_it_did_not_count() -> None:
    games = [
        game("t1", {"Ann": 0, "Bob": 0, "Cy": 0, "Di": 0}, (hand(1, winner="Ann"),),
             ruleset="american"),
        game("t2", {"Ann": 10, "Bob": 0, "Cy": 0, "Di": -10}, number=2),
    ]
    out = standings(games, "american").to_json()
    assert out["notes"] == [
        "1 games of other rule families are not counted by American tournament points",
        "table t1 game 1 hand 1: a won hand without the tournament points its scorer books "
        "(American SC-9)",
    ]


def test_unknown_scheme_is_named() -> None:
    with pytest.raises(SchemeError) as e:
        standings([], "swiss")
    assert (e.value.where, e.value.error) == (
        "--scheme", "unknown scheme 'swiss': one of raw, placement, american")


def test_mjtable_hub_standings_by_placement(tmp_path: Path) -> None:
    from hub.db import ClubDB
    from hub.ingest import Folder

    db_path = tmp_path / "club.db"
    db = ClubDB(str(db_path))
    folder = Folder(db)
    for table, players, net in (("t1", ["Ann", "Bob", "Cy", "Di"], [300, -100, -100, -100]),
                                ("t2", ["Di", "Cy", "Bob", "Ann"], [50, 50, -40, -60])):
        folder.ingest(table, {"seq": 1, "type": "GameStarted", "game": 1,
                              "ruleset": "code1924/mixed", "players": players})
        folder.ingest(table, {"seq": 2, "type": "HandScored", "hand": 1, "result": "mahjong",
                              "players": dict(zip("ESWN", players, strict=True)),
                              "net": dict(zip("ESWN", net, strict=True)), "winner": "E"})
        folder.ingest(table, {"seq": 3, "type": "GameEnded", "game": 1, "reason": "over"})
    db.close()

    def hub_standings(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", "import sys; from controller.cli import "
                               "main; sys.exit(main())", "hub", "standings",
                               "--db", str(db_path), *extra],
                              capture_output=True, text=True, timeout=60)

    out = hub_standings("--scheme", "placement")
    assert out.returncode == 0, out.stderr
    # t1: Ann 4, Bob/Cy/Di tied (2+1+0)/3 = 1; t2: Di and Cy tied first (4+2)/2 = 3, Bob 1,
    # Ann 0. Three on 4: Ann ahead on raw points (240); Di and Cy both -50, Di won a hand.
    rows = [(p["name"], p["points"]) for p in json.loads(out.stdout)["players"]]
    assert rows == [("Ann", 4), ("Di", 4), ("Cy", 4), ("Bob", 2)]
    bad = hub_standings("--scheme", "swiss")
    assert bad.returncode == 2 and json.loads(bad.stdout)["where"] == "--scheme"


def test_american_points_from_a_simulated_table_reach_the_standings(tmp_path: Path) -> None:
    """An American table plays (the engine books each hand's tournament points with
    tournament_points, SC-9); its log is folded by the hub; the american scheme sums exactly
    what the table booked, seat by seat mapped to the players who sat there."""
    import sqlite3

    from hub.db import ClubDB
    from hub.ingest import Folder

    store = tmp_path / "table.sqlite3"
    run = subprocess.run([sys.executable, "-c", "import sys; from controller.cli import main; "
                          "sys.exit(main())", "simulate", "--headless", "--ruleset", "american",
                          "--hands", "3", "--seed", "4", "--names", "Ann,Bob,Cy,Dee",
                          "--store", str(store)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    with sqlite3.connect(store) as conn:
        events = [json.loads(b) for (b,) in conn.execute("SELECT body FROM events ORDER BY seq")]
    db = ClubDB(str(tmp_path / "club.db"))
    folder = Folder(db)
    expected: dict[str, int] = {}
    for event in events:
        folder.ingest("am1", event)
        if event["type"] == "HandScored":
            for seat, points in event["score"]["tournament"].items():
                name = event["players"][seat]
                expected[name] = expected.get(name, 0) + points
    last = events[-1]["seq"]
    folder.ingest("am1", {"seq": last + 1, "type": "GameEnded", "game": 1, "reason": "time"})
    out = standings(db.games(), "american").to_json()
    db.close()
    assert {p["name"]: p["points"] for p in out["players"]} == expected  # type: ignore[union-attr]
    assert len(expected) == 4 and any(expected.values())
