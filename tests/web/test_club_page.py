"""The club page in the real browser: a simulated table live on the club broker, an event's
standings and next seating, a player's page with the plot of their results."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from face_helpers import console_errors, shot, wait_for
from paho.mqtt import publish

from controller.broker import LocalMosquitto
from hub.db import ClubDB
from hub.ingest import Folder
from hub.rounds_mqtt import RoundsService
from hub.web.club_view import ClubView
from hub.web.server import ClubPage

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]


@dataclass
class Club:
    broker: LocalMosquitto
    db: ClubDB
    desk: RoundsService
    url: str


@pytest.fixture
def club(tmp_path: Path) -> Iterator[Club]:
    mosq = LocalMosquitto(persistence=False)
    mosq.start()
    db = ClubDB(str(tmp_path / "club.db"))
    desk = RoundsService(db, mosq.host, mosq.port, tick=0.2)
    desk.start()
    assert desk.subscribed.wait(10)
    view = ClubView(mosq.host, mosq.port)
    view.start()
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    page = ClubPage(view, db)
    url = asyncio.run_coroutine_threadsafe(page.start(), loop).result(10)
    try:
        yield Club(mosq, db, desk, url)
    finally:
        asyncio.run_coroutine_threadsafe(page.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        view.stop()
        desk.stop()
        db.close()
        mosq.close()


def finished_game(folder: Folder, table: str, players: list[str], hands: list[tuple[str, dict[
        str, int], str | None]], seq: int = 1) -> None:
    """A game's events as its table publishes them: seated, hands scored, ended."""
    folder.ingest(table, {"seq": seq, "type": "GameStarted", "game": 1,
                          "ruleset": "code1924/mixed", "players": players})
    seats = dict(zip("ESWN", players, strict=True))
    for i, (winner, net, line) in enumerate(hands, start=1):
        score: dict[str, Any] = {"winner": winner, "hands": {winner: {"value": 100,
                                                                      "limit_hand": line}}}
        folder.ingest(table, {"seq": seq + i, "type": "HandScored", "hand": i,
                              "players": seats, "net": net, "winner": winner,
                              "result": "mahjong", "score": score})
    folder.ingest(table, {"seq": seq + len(hands) + 1, "type": "GameEnded", "game": 1,
                          "reason": "round over"})


def command(club: Club, verb: str, body: dict[str, Any]) -> dict[str, Any]:
    return club.desk.answer(verb, json.dumps(body).encode())


def test_the_club_page_shows_tables_standings_seating_and_players(
        club: Club, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    created = command(club, "event", {"action": "create", "event": "friday",
                                      "name": "Friday club night", "players": PLAYERS,
                                      "tables": ["t1", "t2"], "rounds": 3,
                                      "scheme": "placement"})
    assert created["ok"]
    started = command(club, "round", {"event": "friday", "action": "start"})
    seated = started["tables"]
    club.desk.publish_event(club.desk.desk.event("friday"))
    # Table t1 plays its round for real: a simulated table on the club broker.
    sim = subprocess.Popen(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
         "simulate", "--headless", "--hands", "1", "--seed", "5", "--mqtt",
         f"{club.broker.host}:{club.broker.port}", "--table", "t1",
         "--names", ",".join(seated["t1"]), "--store", str(tmp_path / "t1.sqlite3")],
        stdout=subprocess.PIPE, text=True)
    # Table t2's round, already over: its record folded into the club database.
    folder = Folder(club.db)
    a, b, c, d = seated["t2"]
    finished_game(folder, "t2", seated["t2"], [
        ("E", {"E": 300, "S": -100, "W": -100, "N": -100}, "Thirteen Orphans"),
        ("S", {"E": -40, "S": 120, "W": -40, "N": -40}, None),
        ("E", {"E": 60, "S": -20, "W": -20, "N": -20}, "Thirteen Orphans"),
    ])
    try:
        browser.get(club.url + "/")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".mini[data-table='t1'] .tile"),
                 60, "table t1 live with tiles")
        # standings: the finished game's places (placement points 4, 2, 1, 0)
        rows = wait_for(lambda: [r for r in browser.find_elements(
            By.CSS_SELECTOR, "[data-event='friday'] table.standings[data-scheme] tr[data-player]")
            if r.text] if len(browser.find_elements(By.CSS_SELECTOR, "[data-event='friday'] "
                                                   "table.standings[data-scheme] tr[data-player]"))
            >= 4 else None, 20, "standings")
        first = rows[0].find_elements(By.TAG_NAME, "td")
        assert first[1].text == a and first[2].text == "4"
        # the next round's seating, each table's seats by wind
        # Each read is retried: the live page redraws these parts as the table plays and
        # the clock ticks, and an element redrawn between finding and reading is stale.
        tables = created["seating"][1]["tables"]

        def next_seating() -> dict[str, list[str]] | None:
            seating = browser.find_element(By.CSS_SELECTOR, "[data-event='friday'] .seating")
            if "Next: round 2" not in seating.text:
                return None
            return {t["table_id"]: seating.find_element(
                By.CSS_SELECTOR, f"tr[data-table='{t['table_id']}']").text.split() for t in tables}

        shown = wait_for(next_seating, 20, "the next round's seating")
        for table in tables:
            assert shown[table["table_id"]] == [table["table_id"]] + [
                x for w in ("East", "South", "West", "North") for x in (w[0], table["seats"][w])]
        clock = wait_for(lambda: browser.find_element(By.ID, "clock-friday").text, 20, "the clock")
        assert "round 1:" in clock
        mini = wait_for(
            lambda: browser.find_element(By.CSS_SELECTOR, ".mini[data-table='t1']").text,
            20, "table t1's names")
        for name in seated["t1"]:
            assert name in mini
        shot(browser, "club-page.png")

        # a table answers the round's cmd/game with a refusal: the organiser sees it named
        publish.single("mahjong/v1/t2/cmd/game/result", json.dumps(
            {"ok": False, "error": "a game with booked hands goes on"}), qos=1,
            hostname=club.broker.host, port=club.broker.port)
        warning = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".refused-table"),
                           10, "the refusal shown")
        assert warning[0].text == \
            "t2 did not start the round: a game with booked hands goes on"

        # a player's page from the standings
        browser.find_element(By.LINK_TEXT, a).click()
        wait_for(lambda: browser.execute_script("return document.body.dataset.ready")
                 == "player", 20, "the player's page")
        facts = browser.find_element(By.ID, "player-facts").text
        assert "Hands won\n2" in facts and "Points\n320" in facts
        assert "Thirteen Orphans × 2" in browser.find_element(By.ID, "made-most").text
        dots = browser.find_elements(By.CSS_SELECTOR, "#plot circle.dot")
        assert [d.get_attribute("data-value") for d in dots] == ["320"]
        assert b in browser.find_element(By.ID, "player-games").text
        shot(browser, "club-player.png")
        assert console_errors(browser) == []
    finally:
        sim.terminate()
        sim.wait(20)
    del c, d
