"""The organiser's desk on the club page in the real browser: signed in with the organiser's
password, an event created, a round started and ended through the hub's desk, the tables told
over the club broker; a wrong password and an unsigned POST refused; no desk without a
password."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from face_helpers import console_errors, shot, wait_for
from paho.mqtt.enums import CallbackAPIVersion

from controller.broker import LocalMosquitto
from controller.web.auth import hash_password
from hub.db import ClubDB
from hub.rounds_mqtt import RoundsService
from hub.web.club_view import ClubView
from hub.web.server import ClubPage, organiser_sessions

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
PASSWORD = "east wind rises"


@dataclass
class Desk:
    url: str  # the page with the organiser's desk
    bare_url: str  # a page of a hub without an organiser's password
    heard: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    mosq = LocalMosquitto(persistence=False)
    mosq.start()
    db = ClubDB(str(tmp_path / "club.db"))
    rounds = RoundsService(db, mosq.host, mosq.port, tick=0.2)
    rounds.start()
    assert rounds.subscribed.wait(10)
    view = ClubView(mosq.host, mosq.port)
    view.start()
    # what the tables and a scripted console hear on the club broker
    heard: list[tuple[str, dict[str, Any]]] = []
    listener = mqtt.Client(CallbackAPIVersion.VERSION2)
    listener.on_message = lambda _c, _u, m: heard.append((m.topic, json.loads(m.payload)))
    ready = threading.Event()
    listener.on_subscribe = lambda *_: ready.set()
    listener.on_connect = lambda c, *_: c.subscribe(
        [("mahjong/v1/+/cmd/game", 1), ("mahjong/v1/club/cmd/+/result", 1)])
    listener.connect(mosq.host, mosq.port)
    listener.loop_start()
    assert ready.wait(10)
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    page = ClubPage(view, db, ask=rounds.ask,
                    sessions=organiser_sessions(hash_password(PASSWORD)))
    bare = ClubPage(view, db)
    urls = [asyncio.run_coroutine_threadsafe(p.start(), loop).result(10) for p in (page, bare)]
    try:
        yield Desk(urls[0], urls[1], heard)
    finally:
        for p in (page, bare):
            asyncio.run_coroutine_threadsafe(p.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        listener.loop_stop()
        listener.disconnect()
        view.stop()
        rounds.stop()
        db.close()
        mosq.close()


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_a_post_without_sign_in_is_refused_and_no_password_means_no_desk(desk: Desk) -> None:
    status, body = post(desk.url + "/api/desk/round", {"event": "friday", "action": "start"})
    assert (status, body["error"]) == (401, "sign in as the organiser first")
    status, body = post(desk.url + "/api/desk/login", {"password": "north wind"})
    assert (status, body["error"]) == (401, "wrong password")
    for path in ("/api/desk/login", "/api/desk/event"):
        status, body = post(desk.bare_url + path, {"password": PASSWORD, "action": "show"})
        assert status == 403
        assert "--organiser-password-file" in body["error"]
    with urllib.request.urlopen(desk.bare_url + "/api/desk/session", timeout=10) as r:
        assert json.loads(r.read()) == {"offered": False, "organiser": False}
    assert not [t for t, _ in desk.heard if "/cmd/" in t]  # nothing reached the desk


def fill(browser: Any, form: str, values: dict[str, str]) -> None:
    from selenium.webdriver.common.by import By

    for name, value in values.items():
        field_ = browser.find_element(By.CSS_SELECTOR, f"#{form} [name='{name}']")
        if field_.tag_name == "select":
            from selenium.webdriver.support.ui import Select

            Select(field_).select_by_visible_text(value)
        else:
            field_.clear()
            field_.send_keys(value)


def answer_text(browser: Any, before: str) -> str:
    from selenium.webdriver.common.by import By

    return str(wait_for(lambda: (t := browser.find_element(By.ID, "desk-answer").text) != before
                        and t, 20, "the desk's answer"))


def test_the_organiser_signs_in_creates_an_event_and_runs_a_round(
        desk: Desk, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    browser.get(desk.url + "/")
    opener = wait_for(lambda: [b for b in browser.find_elements(By.ID, "desk-open")
                               if b.is_displayed()], 20, "the organiser's button")[0]
    assert not browser.find_element(By.ID, "desk-forms").is_displayed()
    opener.click()
    browser.find_element(By.ID, "desk-password").send_keys("north wind")
    browser.find_element(By.CSS_SELECTOR, "#desk-login button").click()
    wait_for(lambda: browser.find_element(By.ID, "desk-login-error").text
             == "Not signed in: wrong password", 10, "the wrong password refused")
    assert not browser.find_element(By.ID, "desk-forms").is_displayed()
    browser.find_element(By.ID, "desk-password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#desk-login button").click()
    wait_for(lambda: browser.find_element(By.ID, "desk-forms").is_displayed(), 10, "signed in")

    fill(browser, "desk-create", {"event": "friday", "name": "Friday club night",
                                  "players": "\n".join(PLAYERS), "tables": "t1, t2",
                                  "rounds": "3", "scheme": "placement",
                                  "round_minutes": "60"})
    browser.find_element(By.CSS_SELECTOR, "#desk-create button").click()
    created = answer_text(browser, "")
    assert created == ("event friday created: 8 players, tables t1, t2, 3 rounds of "
                       "60 minutes")

    fill(browser, "desk-round", {"event": "friday"})
    browser.find_element(By.CSS_SELECTOR, "#desk-round button[value='start']").click()
    started = answer_text(browser, created)
    assert started.startswith("round 1 started: t1: ")
    # each table was told its players over the club broker, as the answer names them
    games = wait_for(lambda: (g := {t.split("/")[2]: b for t, b in desk.heard
                                    if t.endswith("/cmd/game")}) and len(g) == 2 and g,
                     10, "both tables told")
    seated = {t: games[t]["players"] for t in ("t1", "t2")}
    assert sorted(seated["t1"] + seated["t2"]) == sorted(PLAYERS)
    assert started == "round 1 started: " + "; ".join(
        f"{t}: {', '.join(names)}" for t, names in seated.items())
    # one answer, on the broker as well (it reaches a listener there on its own time)
    results = wait_for(lambda: [b for t, b in desk.heard
                                if t == "mahjong/v1/club/cmd/round/result"], 10, "the result")
    assert len(results) == 1 and results[0]["tables"] == seated
    # the page shows the event: the clock running and the next round's seating
    clock = wait_for(lambda: [c.text for c in browser.find_elements(By.ID, "clock-friday")
                              if c.text.startswith("round 1:")], 20, "the clock")[0]
    assert clock.endswith("left") and clock.split()[2].startswith(("59:", "60:"))
    seating = browser.find_element(By.CSS_SELECTOR, "[data-event='friday'] .seating")
    assert "Next: round 2" in seating.text
    assert len(seating.find_elements(By.CSS_SELECTOR, "tr[data-table]")) == 2
    shot(browser, "club-desk.png")

    # the next round while this one runs is refused by the desk; the page says what it named
    browser.find_element(By.CSS_SELECTOR, "#desk-round button[value='start']").click()
    refused = answer_text(browser, started)
    assert refused == "refused: round 1 is still running: end it first (round)"
    assert browser.find_element(By.ID, "desk-answer").get_attribute("data-ok") == "false"
    browser.find_element(By.CSS_SELECTOR, "#desk-round [name='end_games']").click()
    browser.find_element(By.CSS_SELECTOR, "#desk-round button[value='end']").click()
    assert answer_text(browser, refused) == "round 1 ended; games ended at t1, t2"
    ends = wait_for(lambda: [b for t, b in desk.heard if t.endswith("/cmd/game")
                             and b.get("action") == "end"], 10, "the tables told to end")
    assert {b["reason"] for b in ends} == {"round 1 time"}
    wait_for(lambda: browser.find_element(By.ID, "clock-friday").text == "round 1 ended",
             20, "the clock stopped")

    # a viewer (no organiser's cookie) sees no desk
    browser.delete_all_cookies()
    browser.get(desk.url + "/")
    wait_for(lambda: browser.execute_script("return document.body.dataset.ready") == "club",
             20, "the club page")
    wait_for(lambda: browser.find_element(By.ID, "desk-open").is_displayed(), 10, "button")
    assert not browser.find_element(By.ID, "desk").is_displayed()
    # the one error the browser logs is the wrong password's 401
    assert [e["message"].split(" - ")[0].rsplit("/", 3)[1:] for e in console_errors(browser)] \
        == [["api", "desk", "login"]]
