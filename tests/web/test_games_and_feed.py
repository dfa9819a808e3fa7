"""Games folded from the log, `cmd/game`, the export's contract, the page's feed and sign-in."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from controller.commands.export import to_csv
from controller.games import GameBook, export_games, name_seats
from controller.inputs import Observation, ObservationKind
from controller.store import EventStore
from controller.table import Table, TableSettings
from controller.web.auth import Sessions, check_password, hash_password
from controller.web.feed import QUEUE, Feed

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def scored(seq: int, hand: int, seats: dict[str, str], net: dict[str, int],
           winner: str | None, result: str = "mahjong") -> dict[str, Any]:
    return {"seq": seq, "hand": hand, "type": "HandScored", "result": result,
            "winner": winner, "players": seats, "net": net,
            "score": {"net": net, "mahjong": {"valid": result == "mahjong"},
                      "payments": [{"from": "E", "to": winner or "E", "amount": 1, "why": "x"}]}}


def table(tmp_path: Path, **settings: Any) -> Table:
    return Table(TableSettings("t1", "code1924/mixed", **settings),
                 EventStore(tmp_path / "t.sqlite3"))


def game_cmd(t: Table, body: dict[str, Any]) -> dict[str, Any]:
    return t.command("game", json.dumps(body).encode(), 0)


def test_a_game_started_seats_its_players_and_a_restart_goes_on_with_it(tmp_path: Path) -> None:
    t = table(tmp_path, snapshot_every=1)  # a snapshot after every event
    t.start()
    assert t.players == {"E": "Player 1", "S": "Player 2", "W": "Player 3", "N": "Player 4"}
    out = game_cmd(t, {"action": "start", "players": NAMES})
    assert out["ok"] and out["game"] == 1
    assert t.players == dict(zip("ESWN", NAMES, strict=True))
    game = t.scores()["game"]
    assert game["players"] == NAMES and game["hands"] == [] and game["final"] is None
    again = table(tmp_path, snapshot_every=1)  # restarted: the same game, the same seats
    assert again.players == t.players and again.games.count == 1
    assert again.scores()["game"] == t.scores()["game"]


def test_cmd_game_refusals_change_nothing(tmp_path: Path) -> None:
    t = table(tmp_path)
    t.start()
    before = t.store.last_seq()
    cases = [
        ({"action": "start", "players": ["Ann", "Bob", "Cy"]}, "players", "4 players"),
        ({"action": "start", "players": ["Ann", "Bob", "Cy", "W"]}, "players[3]", "seat letter"),
        ({"action": "start", "players": ["Ann", "Ann", "Cy", "Dee"]}, "players", "own"),
        ({"action": "end", "reason": "late"}, "action", "no game"),
        ({"action": "end"}, "reason", "reason"),
        ({"action": "fold"}, "action", "start, seat, end"),
    ]
    for body, where, words in cases:
        out = game_cmd(t, body)
        assert not out["ok"] and out["where"] == where and words in out["error"], out
    assert t.store.last_seq() == before
    # a hand in play belongs to the game going on: players are seated between hands
    for obs in (Observation(ObservationKind.DICE, "E", dice=(3, 4)),
                Observation(ObservationKind.DICE, None, dice=(2, 2)),
                Observation(ObservationKind.DEAL, None)):
        t.observe(obs, 0)
    assert game_cmd(t, {"action": "start", "players": NAMES[::-1]})["ok"]  # dealt, not played
    for obs in (Observation(ObservationKind.DISCARD, "E", tiles=("5B",)),):
        t.observe(obs, 0)
    out = game_cmd(t, {"action": "seat", "players": NAMES})
    assert not out["ok"] and "between hands" in out["error"]
    assert t.players["E"] == "Dee"


def test_hands_fold_into_games_that_end_by_the_book() -> None:
    records: list[dict[str, Any]] = [
        {"seq": 1, "hand": 1, "type": "HandStarted", "prevailing": "E", "ruleset": "classical"},
        {"seq": 2, "hand": 1, "type": "GameStarted", "game": 1, "ruleset": "classical",
         "players": NAMES},
    ]
    seats = dict(zip("ESWN", NAMES, strict=True))
    seq = 3
    for hand in range(1, 17):  # Classical: the seats rotate after every hand, 16 make a game
        records.append(scored(seq, hand, seats, {"E": -30, "S": 90, "W": -30, "N": -30}, "S"))
        seats = {s: seats["SWNE"["ESWN".index(s)]] for s in "ESWN"}
        seq += 1
    records.append(scored(seq, 17, seats, {"E": 0, "S": 0, "W": 0, "N": 0}, None, "drawn"))
    games = export_games(records, "classical")
    assert [g["id"] for g in games] == [1, 2]
    first = games[0]
    assert first["final"] is not None and sum(first["final"]["settlement"].values()) == 0
    assert first["hands"][0]["winner"] == "Bob" and first["hands"][1]["winner"] == "Cy"
    assert first["totals"] == {n: 4 * 90 - 12 * 30 for n in NAMES}
    # each hand's whole result, its seats named by player
    assert first["hands"][0]["score"]["payments"][0] == {"from": "Ann", "to": "Bob",
                                                         "amount": 1, "why": "x"}
    assert games[1]["final"] is None and len(games[1]["hands"]) == 1


def test_a_log_from_before_names_books_its_players_by_default_names() -> None:
    seats = {"E": "S", "S": "W", "W": "N", "N": "E"}  # East had passed once
    games = export_games([scored(1, 2, seats, {"E": 10, "S": -10, "W": 0, "N": 0}, "E")])
    assert games[0]["hands"][0]["winner"] == "Player 2"


def test_export_csv_one_row_per_hand_and_player() -> None:
    seats = dict(zip("ESWN", NAMES, strict=True))
    records = [scored(1, 1, seats, {"E": -2, "S": 6, "W": -2, "N": -2}, "S"),
               scored(2, 2, {"E": "Bob", "S": "Cy", "W": "Dee", "N": "Ann"},
                      {"E": 3, "S": -1, "W": -1, "N": -1}, "E")]
    rows = list(csv.reader(io.StringIO(to_csv(export_games(records)))))
    assert rows[0] == ["game", "hand", "player", "seat", "wind", "net", "total"]
    assert rows[1:5] == [["1", "1", "Ann", "E", "E", "-2", "-2"],
                         ["1", "1", "Bob", "S", "E", "6", "6"],
                         ["1", "1", "Cy", "W", "E", "-2", "-2"],
                         ["1", "1", "Dee", "N", "E", "-2", "-2"]]
    assert rows[6] == ["1", "2", "Bob", "E", "E", "3", "9"]


def test_name_seats_names_keys_and_seat_fields_only() -> None:
    seats = {"E": "Ann", "S": "Bob"}
    out = name_seats({"hands": {"E": {"items": [{"item": "E wind", "rule": "Law 89"}]}},
                      "winner": "S", "payments": [{"from": "E", "to": "S"}]}, seats)
    assert out == {"hands": {"Ann": {"items": [{"item": "E wind", "rule": "Law 89"}]}},
                   "winner": "Bob", "payments": [{"from": "Ann", "to": "Bob"}]}


def test_the_feed_gives_a_reloaded_page_what_the_others_folded_and_drops_a_slow_one() -> None:
    async def run() -> None:
        feed = Feed("mahjong/v1/t1")
        page = feed.open()
        start = {"type": "HandStarted", "seq": 5}
        feed.on_store([("mahjong/v1/t1/events", json.dumps(start).encode(), 5),
                       ("mahjong/v1/t1/cmd/roll/result", b'{"ok": true}', None)],
                      {"mahjong/v1/t1/state": b'{"seq": 5}'})
        batch = json.loads(page.queue.get_nowait() or "[]")
        assert [i["topic"] for i in batch] == ["events", "state"]  # no command results
        snap = feed.snapshot()
        assert snap["state"] == {"seq": 5} and snap["log"] == [batch[0]]
        slow = feed.open()
        for n in range(QUEUE + 1):
            feed.on_store([("mahjong/v1/t1/events", json.dumps({"seq": n}).encode(), n)], {})
            page.queue.get_nowait()  # this page keeps up
        assert slow.dropped and slow not in feed.pages and page in feed.pages
        assert slow.queue.get_nowait() is None  # told to reload
    asyncio.run(run())


def test_sign_in_wrong_password_and_expiry() -> None:
    now = [0.0]
    line = hash_password("correct horse")
    assert check_password("correct horse", line) and not check_password("wrong", line)
    assert not check_password("x", "not a hash")
    sessions = Sessions(line, minutes=1, clock=lambda: now[0])
    assert sessions.sign_in("wrong") is None
    token = sessions.sign_in("correct horse")
    assert token is not None and sessions.why_not(token) is None
    assert sessions.why_not("forged") == "sign in as the referee first"
    now[0] = 61.0
    assert "expired" in (sessions.why_not(token) or "")
    assert "no referee's password" in (Sessions(None).why_not(token) or "")


def test_game_book_seat_refused_once_hands_are_booked() -> None:
    book = GameBook("code1924/mixed")
    book.fold({"seq": 1, "type": "GameStarted", "game": 1, "players": NAMES})
    book.fold(scored(2, 1, dict(zip("ESWN", NAMES, strict=True)),
                     {"E": 1, "S": -1, "W": 0, "N": 0}, "E"))
    with pytest.raises(ValueError, match="keep their chairs"):
        book.command({"action": "seat", "players": NAMES}, 4, False)


def test_replay_takes_a_store_and_finds_a_tampered_log(tmp_path: Path) -> None:
    import sqlite3
    import subprocess
    import sys

    t = Table(TableSettings("t1", "code1924/mixed", publish=True),
              EventStore(tmp_path / "t.sqlite3"))
    t.start()
    for obs in (Observation(ObservationKind.DICE, "E", dice=(3, 4)),
                Observation(ObservationKind.DICE, None, dice=(2, 2)),
                Observation(ObservationKind.DEAL, None),
                Observation(ObservationKind.DISCARD, "E", tiles=("5B",))):
        t.observe(obs, 0)
    t.store.close()

    def replay() -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-c", "import sys; from controller.cli import "
                               "main; sys.exit(main())", "replay", str(tmp_path / "t.sqlite3")],
                              capture_output=True, text=True, timeout=60)
        return dict(json.loads(done.stdout))

    report = replay()
    assert report["hands"] == 1 and report["mismatches"] == [] and report["events"] > 5
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    db.execute("UPDATE events SET body = replace(body, '\"5B\"', '\"9C\"') "
               "WHERE type = 'Discarded'")
    db.commit()
    db.close()
    assert "differs from the retained state" in replay()["mismatches"][0]["problem"]


def test_mjtable_run_serves_the_page(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time
    import urllib.request

    cli = "import sys; from controller.cli import main; sys.exit(main())"
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\nid = "web-table"\n[board]\nserial = ""\n'
        '[gpio]\nenabled = true\nfactory = "mock"\n[camera]\nsource = "none"\n'
        '[mqtt]\nenabled = false\n[seats.E]\nplayer = "Ann"\n'
        f'[store]\npath = "{tmp_path / "store.sqlite3"}"\n'
        '[web]\nenabled = true\nport = 0\n')
    proc = subprocess.Popen([sys.executable, "-c", cli, "run", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = ""
        deadline = time.monotonic() + 20
        while not url and time.monotonic() < deadline:
            status = subprocess.run([sys.executable, "-c", cli, "status", "--config",
                                     str(config)], capture_output=True, text=True, timeout=30)
            url = json.loads(status.stdout).get("service", {}).get("web", {}).get("url", "")
            time.sleep(0.2)
        assert url.startswith("http://127.0.0.1:"), status.stdout
        with urllib.request.urlopen(url, timeout=10) as page:
            assert b"/static/face.js" in page.read()
        with urllib.request.urlopen(url + "api/snapshot", timeout=10) as snap:
            state = json.loads(snap.read())["state"]
        assert state["players"]["E"] == "Ann" and state["players"]["S"] == "Player 2"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
