"""The table's page in a real browser (Debian's chromium, driven by Selenium): a simulated game
watched to its end, the console's corrections, a reload mid-hand, a phone's width."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import (
    PASSWORD,
    Running,
    Simulation,
    console_errors,
    password_field,
    shot,
    wait_for,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from controller.inputs import Observation, ObservationKind

NAMES = ["Ann", "Bob", "Cy", "Dee"]
GAME = ["--ruleset", "code1924/mixed", "--hands", "3", "--seed", "5", "--names", ",".join(NAMES),
        "--pace", "0.03", "--pause-ms", "400", "--linger", "60"]


def texts(browser: Any, selector: str) -> list[str]:
    """The text of every element matching ``selector``, read in one go (the page redraws as
    messages arrive)."""
    return list(browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", selector))


def retained_scores(store: Any) -> dict[str, Any]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT payload FROM retained WHERE topic LIKE '%/scores'").fetchone()
    finally:
        db.close()
    return dict(json.loads(row[0]))


def snapshot(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/snapshot", timeout=10) as r:
        return dict(json.loads(r.read()))


@pytest.mark.parametrize("simulation", [GAME], indirect=True)
def test_a_simulated_game_watched_to_its_end(simulation: Simulation, browser: Any) -> None:
    browser.get(simulation.url)
    # the players by name at their seats, the turn marked, discards drawn as tiles
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".discards .tile"), what="discards")
    assert set(texts(browser, ".seat .player")) == set(NAMES)
    # the turn: data-turn on the table and the one seat marked, read at one moment
    turn, marked = wait_for(lambda: browser.execute_script(
        "const t = document.getElementById('table').dataset.turn;"
        "return t && [t, [...document.querySelectorAll('.seat.turn')].map(e => e.dataset.seat)]"),
        what="data-turn")
    assert turn in "ESWN" and marked == [turn]
    # the call window's countdown beside the live discard, marked in its seat's discards too
    wait_for(lambda: browser.find_element(By.ID, "countdown").is_displayed()
             and browser.find_elements(By.CSS_SELECTOR, ".middle .tile.live:not(.t-unknown)")
             and browser.find_elements(By.CSS_SELECTOR, ".discards .tile.live"),
             what="the countdown and the live discard")
    shot(browser, "table-desktop.png")
    rules = wait_for(lambda: texts(browser, ".ruling.decision .rule"), what="an adjudication")
    assert all(rule.startswith("Code 1924, Law") for rule in rules), rules
    browser.get(simulation.url + "score")
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".hand-row")) >= 3, 180,
             "three hands on the scoreboard")
    scores = retained_scores(simulation.store)
    game = scores["game"]
    for name in NAMES:
        total = browser.find_element(By.CSS_SELECTOR, f'[data-player="{name}"][data-total]')
        assert int(total.get_attribute("data-total")) == game["totals"][name]
    assert game["totals"] == scores["totals"]
    browser.find_element(By.CSS_SELECTOR, ".hand-row").click()  # a hand opens its scoresheet
    sheet = wait_for(lambda: texts(browser, "tr.sheet"), what="the hand's scoresheet")
    assert "Law" in sheet[0]
    shot(browser, "scoreboard-desktop.png")
    assert console_errors(browser) == []
    # the export of the store agrees with the page
    done = subprocess.run([sys.executable, "-c", "import sys; from controller.cli import main; "
                           "sys.exit(main())", "export", "--store", str(simulation.store)],
                          capture_output=True, text=True, timeout=60)
    exported = json.loads(done.stdout)["games"][0]
    assert exported["players"] == NAMES and exported["totals"] == game["totals"]


@pytest.mark.parametrize("simulation", [GAME], indirect=True)
def test_a_reload_mid_hand_shows_what_a_page_that_never_left_shows(
    simulation: Simulation, browser: Any
) -> None:
    browser.get(simulation.url)
    wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".discards .tile")) >= 6,
             what="a hand under way")
    browser.execute_script("window.open(arguments[0])", simulation.url)
    first, second = browser.window_handles
    # the service paused between two looks: compare what both pages show at one moment
    for _ in range(20):
        browser.switch_to.window(second)
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".discards .tile"), what="load")
        seq_b, table_b = _look(browser)
        browser.switch_to.window(first)
        seq_a, table_a = _look(browser)
        if seq_a == seq_b:
            assert table_a == table_b
            return
        browser.switch_to.window(second)
        browser.refresh()
    pytest.fail("the two pages never showed the same moment")


def _look(browser: Any) -> tuple[Any, str]:
    # one script: no message can land between reading the moment and the page
    seq, html = browser.execute_script(
        "return [face.state && face.state.seq, document.getElementById('table').outerHTML + "
        "document.getElementById('rulings').outerHTML]")
    return seq, html


@pytest.mark.parametrize("simulation", [GAME], indirect=True)
def test_the_phone_width_shows_the_table_and_the_scores(simulation: Simulation,
                                                         phone: Any) -> None:
    phone.get(simulation.url)
    wait_for(lambda: phone.find_elements(By.CSS_SELECTOR, ".discards .tile"), what="discards")
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    tile_width = phone.execute_script(
        "return document.querySelector('.discards .tile').getBoundingClientRect().width")
    assert tile_width >= 26  # readable on a phone
    shot(phone, "table-phone.png")
    phone.get(simulation.url + "score")
    wait_for(lambda: phone.find_elements(By.CSS_SELECTOR, "[data-total]"), 120, "totals")
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"the scoreboard is {width} px wide on a 390 px phone"
    shot(phone, "scoreboard-phone.png")
    assert console_errors(phone) == []


def _hold_a_discard(running: Running) -> None:
    """East's first discard, seen by an unsure camera: the table asks the referee."""
    svc = running.service
    for obs in (Observation(ObservationKind.DICE, "E", dice=(3, 4)),
                Observation(ObservationKind.DICE, None, dice=(2, 2)),
                Observation(ObservationKind.DEAL, None),
                Observation(ObservationKind.DISCARD, "E", tiles=("5B",), confidence=0.5)):
        running.call(lambda o=obs: svc.table.observe(o, 0))
    assert list(svc.table.pending) == [1]


def test_the_console_signs_in_and_a_correction_changes_the_record(
    table_service: Running, browser: Any
) -> None:
    url = table_service.url
    browser.get(url + "console")
    # a game started and its players seated from the console
    password_field(browser).send_keys("wrong-password")
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    wait_for(lambda: "wrong password" in browser.find_element(By.ID, "signin").text,
             what="the refusal of a wrong password")
    browser.find_element(By.ID, "password").clear()
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    wait_for(lambda: browser.find_element(By.ID, "console").is_displayed(), what="console")
    for seat, name in zip("ESWN", NAMES, strict=True):
        browser.find_element(By.ID, f"p-{seat}").send_keys(name)
    browser.find_element(By.CSS_SELECTOR, "#game-form button").click()
    wait_for(lambda: set(texts(browser, ".seat .player")) == set(NAMES),
             what="the players seated")
    _hold_a_discard(table_service)
    question = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".question"),
                        what="the table's question")
    assert "5B" in question[0].get_attribute("innerHTML")
    shot(browser, "console-desktop.png")
    # the camera read 5B; the referee sees 9C and corrects it with the tile picker
    question[0].find_element(By.CSS_SELECTOR, "button.correct").click()
    browser.find_element(By.CSS_SELECTOR, '#picker-tiles .tile[data-tile="9C"]').click()
    browser.find_element(By.ID, "picker-send").click()
    wait_for(lambda: "correct: done" in browser.find_element(By.ID, "answer").text,
             what="the correction accepted")
    records = list(table_service.service.store.events(0))
    settled = [r for r in records if r["type"] == "ObservationSettled"]
    discards = [r for r in records if r["type"] == "Discarded"]
    assert settled[-1]["how"] == "corrected" and discards[-1]["tile"] == "9C"
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '.seat-E .discards [data-tile="9C"]'),
             what="the corrected discard on the table view")
    # an observation the camera missed, entered by tapping tiles: S discards before drawing,
    # which the rules refuse, and the refusal shows its rule
    before = table_service.service.store.last_seq()
    Select(browser.find_element(By.ID, "observe-seat")).select_by_visible_text("S")
    browser.find_element(By.CSS_SELECTOR, "#observe-form button").click()
    browser.find_element(By.CSS_SELECTOR, '#picker-tiles .tile[data-tile="3D"]').click()
    browser.find_element(By.ID, "picker-send").click()
    answer = wait_for(lambda: "observe" in browser.find_element(By.ID, "answer").text
                      and browser.find_element(By.ID, "answer").text, what="the answer")
    assert "refused" in answer and "Law" in answer, answer
    assert table_service.service.store.last_seq() == before
    # a stale answer (the question is settled): refused with its reason, nothing changed
    before = table_service.service.store.last_seq()
    result = browser.execute_async_script(
        "const done = arguments[0]; command('confirm', {pending: 1}).then(done);")
    assert result["ok"] is False and "no held observation 1" in result["error"]
    assert table_service.service.store.last_seq() == before
    # the one error the console shows is the wrong password's refusal, made on purpose
    errors = console_errors(browser)
    assert all("/api/login" in e["message"] and "401" in e["message"] for e in errors), errors


def test_a_viewer_cannot_command(table_service: Running) -> None:
    url = table_service.url
    request = urllib.request.Request(url + "api/cmd/roll", data=b'{"seat": "E"}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    assert "sign in" in json.loads(refused.value.read())["error"]
    assert table_service.service.store.last_seq() == 1  # nothing but the first hand's start


AMERICAN = ["--ruleset", "american", "--hands", "1", "--seed", "3", "--pace", "0",
            "--pause-ms", "200", "--linger", "30"]


@pytest.mark.parametrize("simulation", [AMERICAN], indirect=True)
def test_nothing_concealed_reaches_a_viewer(simulation: Simulation) -> None:
    """Everything a viewer receives, from the first snapshot to the hand's end, against the
    log, which keeps every concealed tile."""
    received: list[str] = []
    with urllib.request.urlopen(simulation.url + "feed", timeout=60) as stream:
        for raw in stream:
            line = raw.decode()
            received.append(line)
            if '"type":"HandScored"' in line:
                break
    text = "".join(received)
    assert '"HandStarted"' in text or "snapshot" in text
    assert '"private"' not in text
    db = sqlite3.connect(f"file:{simulation.store}?mode=ro", uri=True)
    try:
        private = db.execute("SELECT COUNT(*) FROM events WHERE body LIKE '%\"private\"%'"
                             ).fetchone()[0]
    finally:
        db.close()
    assert private > 0  # the log has them; the page never does


WHOLE_GAME = ["--ruleset", "classical", "--game", "--seed", "4", "--names", ",".join(NAMES),
              "--pause-ms", "300",
              "--linger", "60"]


@pytest.mark.parametrize("simulation", [WHOLE_GAME], indirect=True)
def test_a_whole_game_ends_with_its_final_settlement_on_the_page_and_in_the_export(
    simulation: Simulation, browser: Any
) -> None:
    browser.get(simulation.url + "score")
    final = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".final"), 240,
                     "the final settlement")
    assert "Final settlement" in final[0].text
    rows = browser.find_elements(By.CSS_SELECTOR, ".hand-row")
    assert len(rows) == 16  # Classical: the seats rotate after every hand, four winds
    done = subprocess.run([sys.executable, "-c", "import sys; from controller.cli import main; "
                           "sys.exit(main())", "export", "--store", str(simulation.store)],
                          capture_output=True, text=True, timeout=60)
    game = json.loads(done.stdout)["games"][0]
    assert game["final"]["settlement"] == game["totals"] and game["final"]["rounds"] == 4
    for name in NAMES:
        shown = browser.find_element(By.CSS_SELECTOR, f'.final [data-settle="{name}"]')
        assert int(shown.get_attribute("data-amount")) == game["final"]["settlement"][name]
    browser.execute_script("window.scrollTo(0, 0)")
    shot(browser, "scoreboard-final.png")
