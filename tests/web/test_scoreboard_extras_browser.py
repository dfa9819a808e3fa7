"""In a real browser: the American Charleston drawn on the table view as it happens, and the
scoreboard's money at the table's stakes and American tournament points (American SC-9)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import Running, Simulation, console_errors, serving, shot, wait_for
from selenium.webdriver.common.by import By

from config.load import parse_config

NAMES = ["Ann", "Bob", "Cy", "Dee"]
CHARLESTON = ["--ruleset", "american", "--hands", "1", "--seed", "2", "--names", ",".join(NAMES),
              "--pace", "0.25", "--pause-ms", "200", "--linger", "60"]


def mjtable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
         *args], capture_output=True, text=True, timeout=300)


def events_of(store: Path, kind: str) -> list[dict[str, Any]]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM events WHERE type = ? ORDER BY seq", (kind,))
        return [json.loads(body) for (body,) in rows.fetchall()]
    finally:
        db.close()


def text_of(browser: Any, selector: str) -> str:
    """An element's text, read in one go (the page redraws as messages arrive)."""
    return str(browser.execute_script(
        "return document.querySelector(arguments[0]).textContent", selector))


def texts(browser: Any, selector: str) -> list[str]:
    return list(browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)",
        selector))


def steps(browser: Any) -> dict[str, str]:
    """The Charleston's steps as the page shows them: step -> done, now, due or skipped."""
    pairs = browser.execute_script(  # in the page's order (a returned object's keys are not)
        "return [...document.querySelectorAll('#charleston .ch-step')]"
        ".map(e => [e.dataset.step, e.dataset.state])") or []
    return {step: state for step, state in pairs}


@pytest.mark.parametrize("simulation", [CHARLESTON], indirect=True)
def test_the_charleston_is_drawn_as_it_happens(simulation: Simulation, browser: Any) -> None:
    browser.get(simulation.url)
    # a pass under way: its arrows drawn, solid for the seats that have passed, dashed for
    # those that owe it
    wait_for(lambda: "now" in steps(browser).values(), 60, "a Charleston pass under way")
    # read at one moment: the page redraws the Charleston with every message
    direction, arrows = browser.execute_script(
        "const box = document.getElementById('charleston');"
        "return [box.dataset.direction, [...box.querySelectorAll('.ch-arrow')]"
        ".map(a => [a.dataset.from, a.dataset.to])]")
    assert len(arrows) == 4
    offset = {"right": 1, "across": 2, "left": 3}[direction]
    for start, end in arrows:  # each seat passes to the seat the direction names (CH-2, CH-4)
        assert "ESWN"[("ESWN".index(start) + offset) % 4] == end
    shot(browser, "table-charleston.png")
    # the first Charleston in order, right, across, left (CH-2), then the second or its stop
    wait_for(lambda: steps(browser).get("first-left") == "done", 60, "the first Charleston")
    wait_for(lambda: steps(browser).get("courtesy") == "done", 60, "the courtesy pass")
    shown = steps(browser)
    passed = events_of(simulation.store, "CharlestonPassed")
    done = [s for s, state in shown.items() if state == "done" and s != "courtesy"]
    assert len(done) == len(passed)
    assert [s.split("-")[1] for s in done] == [e["public"]["direction"] for e in passed]
    stopped = events_of(simulation.store, "SecondCharlestonStopped")
    if stopped:  # CH-4: any one player stops it; the page names who
        assert shown["second-left"] == "skipped"
        name = simulation_player(simulation, stopped[0]["seat"])
        assert name in text_of(browser, "#charleston")
    # the courtesy pass: the numbers agreed across, as the table agreed them (CH-5)
    agreed = events_of(simulation.store, "CourtesyAgreed")[0]["public"]
    courtesy = text_of(browser, '[data-step="courtesy"]')
    assert f": {agreed['E']}" in courtesy
    # the windows after the Charleston read as the table ruled them: a window without calls
    # names no discarder in the American decision, and the page must not invent one
    wait_for(lambda: any("→" in t for t in texts(browser, "#rulings li")), 60, "a window's ruling")
    assert not [t for t in texts(browser, "#rulings li") if "undefined" in t]
    # what the page was given holds no tile of any pass
    with urllib.request.urlopen(simulation.url + "api/snapshot", timeout=10) as r:
        snapshot = json.loads(r.read())
    for item in snapshot["log"]:
        if item["topic"] == "events" and "Pass" in item["body"]["type"]:
            assert "tiles" not in json.dumps(item["body"]), item["body"]
    assert console_errors(browser) == []


def simulation_player(simulation: Simulation, seat: str) -> str:
    started = events_of(simulation.store, "HandStarted")[-1]
    return str((started.get("players") or dict(zip("ESWN", NAMES, strict=True)))[seat])


@pytest.fixture(scope="module")
def american_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole American game (the configured four hands), played headless into a store."""
    store = tmp_path_factory.mktemp("american-game") / "table.sqlite3"
    done = mjtable("simulate", "--headless", "--ruleset", "american", "--game", "--seed", "2",
                   "--names", ",".join(NAMES), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store


@contextlib.contextmanager
def table_over(played: Path, tmp_path: Path, ruleset: str,
               stakes: dict[str, Any]) -> Iterator[Running]:
    """The table of a game played before, started again over a copy of its store with these
    stakes, its page served."""
    store = tmp_path / "table.sqlite3"
    store.write_bytes(played.read_bytes())
    cfg = parse_config({
        "table": {"id": "sim", "ruleset": ruleset},
        "board": {"serial": "emulated"},
        "mqtt": {"enabled": False},
        "store": {"path": str(store)},
        "web": {"enabled": True, "host": "127.0.0.1", "port": 0},
        "stakes": stakes,
    })
    with serving(cfg) as running:
        yield running


@pytest.fixture
def staked_table(american_game: Path, tmp_path: Path) -> Iterator[Running]:
    """The American game's table playing for a cent a point ("Values and units")."""
    with table_over(american_game, tmp_path, "american",
                    {"unit": "USD", "per_point": 0.01}) as running:
        yield running


def test_the_scoreboard_shows_money_and_tournament_points(
    staked_table: Running, american_game: Path, browser: Any
) -> None:
    done = mjtable("export", "--store", str(american_game), "--unit", "USD", "--per-point",
                   "0.01")
    game = json.loads(done.stdout)["games"][0]
    assert game["final"] is not None  # four hands make the game (table.hands_per_game)
    browser.get(staked_table.url + "score")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "[data-money-settle]"), 30,
             "the final settlement in money")
    for name in NAMES:
        # the running total in dollars: the points at a cent a point, as the export says
        total = browser.find_element(By.CSS_SELECTOR, f'[data-money-player="{name}"]')
        assert Decimal(total.get_attribute("data-money")) == Decimal(game["totals"][name]) / 100
        assert total.get_attribute("data-money") == game["stakes"]["totals"][name]
        settle = browser.find_element(By.CSS_SELECTOR, f'[data-money-settle="{name}"]')
        assert settle.get_attribute("data-amount") == game["stakes"]["final"]["settlement"][name]
        # tournament points: the table's, hand by hand, added up (SC-9)
        points = browser.find_element(By.CSS_SELECTOR, f'[data-tournament-player="{name}"]')
        assert int(points.get_attribute("data-tournament")) == sum(
            h["score"]["tournament"][name] for h in game["hands"] if h["score"])
    # each hand's money under its points
    money = browser.find_elements(By.CSS_SELECTOR, ".hand-row .money")
    assert len(money) == len(NAMES) * len(game["hands"])
    text = browser.find_element(By.ID, "stakes").text
    assert "0.01 USD a point" in text and "Values and units" in text and "SC-2" in text
    tp = browser.find_element(By.ID, "tournament").text
    assert "SC-9" in tp and "card line" in tp
    browser.execute_script("document.getElementById('stakes').scrollIntoView()")
    shot(browser, "scoreboard-stakes.png")
    assert console_errors(browser) == []


def test_the_money_and_points_fit_a_phone(staked_table: Running, phone: Any) -> None:
    phone.get(staked_table.url + "score")
    wait_for(lambda: phone.find_elements(By.CSS_SELECTOR, "[data-tournament-player]"), 30,
             "tournament points")
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"the scoreboard is {width} px wide on a 390 px phone"
    phone.execute_script("document.getElementById('stakes').scrollIntoView()")
    shot(phone, "scoreboard-stakes-phone.png")
    assert console_errors(phone) == []


def test_pung_chow_pays_in_harrs_counters_and_warns_without_a_limit(
    tmp_path: Path, browser: Any
) -> None:
    played = tmp_path / "played.sqlite3"
    done = mjtable("simulate", "--headless", "--ruleset", "pungchow", "--hands", "2",
                   "--seed", "5", "--names", ",".join(NAMES), "--store", str(played))
    assert done.returncode == 0, done.stderr
    done = mjtable("export", "--store", str(played), "--unit", "chips", "--per-point", "0.1")
    game = json.loads(done.stdout)["games"][0]
    last = game["stakes"]["hands"][-1]
    assert last["payments"]  # seed 5: the second hand is won and paid
    with table_over(played, tmp_path, "pungchow", {"unit": "chips", "per_point": 0.1}) as t:
        browser.get(t.url + "score")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#stakes"), 30, "the stakes")
        text = text_of(browser, "#stakes")
        # Harr: unlimited hands are impractical with a stake (Playing with a Limit)
        assert "impractical" in text and "Harr" in text
        assert "Harr, Settling the Scores" in text
        for name in NAMES:  # a chip for every 10 points, whole chips
            total = browser.find_element(By.CSS_SELECTOR, f'[data-money-player="{name}"]')
            assert total.get_attribute("data-money") == game["stakes"]["totals"][name]
        # the last hand paid in the set's counters (1,000, 500, 100, 10, 2)
        shown = texts(browser, ".counters li")
        assert len(shown) == len(last["payments"])
        first = last["payments"][0]
        made = ", ".join(f"{n} × {v}" for v, n in sorted(
            first["counters"].items(), key=lambda c: -int(c[0])))
        assert shown[0] == f"{first['from']} pays {first['to']} {first['points']}: {made}"
        assert console_errors(browser) == []


@pytest.mark.parametrize("simulation", [CHARLESTON], indirect=True)
def test_the_charleston_fits_a_phone(simulation: Simulation, phone: Any) -> None:
    phone.get(simulation.url)
    wait_for(lambda: "now" in steps(phone).values(), 60, "a Charleston pass under way")
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"the table view is {width} px wide on a 390 px phone"
    drawn = phone.execute_script(
        "return document.querySelector('#charleston .ch-arrows').getBoundingClientRect().width")
    assert drawn >= 150  # the passes readable on a phone
    phone.execute_script("document.getElementById('charleston').scrollIntoView()")
    shot(phone, "table-charleston-phone.png")
    assert console_errors(phone) == []


LIVE = ["--ruleset", "american", "--hands", "2", "--seed", "2", "--names", ",".join(NAMES),
        "--pace", "0.02", "--pause-ms", "150", "--linger", "60", "--stakes", "USD:0.05"]


@pytest.mark.parametrize("simulation", [LIVE], indirect=True)
def test_points_and_money_follow_a_game_as_it_is_played(simulation: Simulation,
                                                         browser: Any) -> None:
    browser.get(simulation.url + "score")

    def shown() -> dict[str, int]:
        pairs = browser.execute_script(
            "return [...document.querySelectorAll('[data-tournament-player]')]"
            ".map(e => [e.dataset.tournamentPlayer, +e.dataset.tournament])") or []
        return {p: int(v) for p, v in pairs}

    def scored() -> dict[str, int]:
        sums = dict.fromkeys(NAMES, 0)
        for event in events_of(simulation.store, "HandScored"):
            for seat, points in event["score"]["tournament"].items():
                sums[event["players"][seat]] += points
        return sums

    # hand by hand, the page's totals catch up with what the table has scored (SC-9)
    wait_for(lambda: events_of(simulation.store, "HandScored"), 180, "the first hand scored")
    wait_for(lambda: shown() and shown() == scored(), 20, "the first hand's points")
    wait_for(lambda: len(events_of(simulation.store, "HandScored")) == 2, 180, "two hands")
    wait_for(lambda: shown() == scored(), 20, "the tournament points of both hands")
    hands = browser.execute_script(
        "return document.querySelectorAll('#tournament .tp-hand').length")
    assert hands == 2
    # `simulate --stakes USD:0.05`: the money beside the points, a nickel a point
    totals = {name: 0 for name in NAMES}
    for event in events_of(simulation.store, "HandScored"):
        for name, net in event["net_by_player"].items():
            totals[name] += net
    money = wait_for(lambda: browser.execute_script(
        "return [...document.querySelectorAll('[data-money-player]')]"
        ".map(e => [e.dataset.moneyPlayer, e.dataset.money])"), 20, "the money")
    assert {p: Decimal(v) for p, v in money} == {p: Decimal(t) / 20 for p, t in totals.items()}
    assert console_errors(browser) == []
