"""The referee's console in a real browser (Debian's chromium, driven by Selenium): a false
Mah-jongg's penalty asked before it is booked (confirmed, it appears; dismissed, it does not),
and a past move amended by picking it in the move list."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import PASSWORD, Running, console_errors, password_field, shot, wait_for
from selenium.webdriver.common.by import By

from controller.inputs import Observation, ObservationKind, Press
from controller.service import now_us

NAMES = {"E": "Ann", "S": "Bob", "W": "Cy", "N": "Dee"}
# Played as Classical, scored by the BMJA preset, which admits at most one chow.
BMJA = {"table": {"ruleset": "classical", "scoring": "classical/bmja",
                  "options": {"losers_settle": False}},
        "seats": {s: {"player": n} for s, n in NAMES.items()}}
TWO_CHOWS = ("1C", "2C", "3C", "5C", "5C", "5C", "7B", "8B", "9B", "GD", "GD", "GD", "WD", "WD")


def sign_in(browser: Any, url: str) -> None:
    browser.get(url + "console")
    password_field(browser).send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    wait_for(lambda: browser.find_element(By.ID, "console").is_displayed(), what="console")


def observe(running: Running, *observations: Observation) -> None:
    table = running.service.table
    for o in observations:
        outcome = running.call(lambda o=o: table.observe(o, now_us()))
        assert outcome.accepted, outcome.error


def first_discard(running: Running) -> None:
    """The dice (East 3+4 selects West, Law 15), West's throw, the deal, East discards 5C."""
    observe(running, Observation(ObservationKind.DICE, "E", dice=(3, 4)),
            Observation(ObservationKind.DICE, "W", dice=(2, 2)),
            Observation(ObservationKind.DEAL, None),
            Observation(ObservationKind.DISCARD, "E", ("5C",), 0.99))


def two_chows_by_south(running: Running) -> None:
    """South takes East's 5C for Mah-jongg with two chows: the table's engine accepts four
    sets and a pair, the BMJA's scorer does not (a false Mah-jongg)."""
    first_discard(running)
    table = running.service.table
    running.call(lambda: table.press(Press("S", "mahjong", now_us()), now_us()))
    wait_for(lambda: table.state is not None and table.state.phase == "award", 10,
             "the call window closed, S awarded the discard")
    observe(running, Observation(ObservationKind.HAND_SHOWN, "S", TWO_CHOWS, 1.0,
                                 source="referee"))


def totals_shown(browser: Any) -> dict[str, int]:
    return {e.get_attribute("data-player"): int(e.get_attribute("data-total"))
            for e in browser.find_elements(By.CSS_SELECTOR, ".total[data-player]")}


@pytest.mark.parametrize("table_service", [BMJA], indirect=True)
@pytest.mark.parametrize("answer", ["confirm", "dismiss"])
def test_the_referee_answers_a_false_mahjong_before_its_penalty_is_booked(
        table_service: Running, browser: Any, answer: str) -> None:
    url = table_service.url
    sign_in(browser, url)
    two_chows_by_south(table_service)
    question = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".question.penalty"),
                        what="the false Mah-jongg asked")[0]
    text = question.text
    assert "S (Bob) declared Mah-jongg" in text and "2 chows" in text and "BMJA" in text
    assert "Penalty if confirmed: " in text and "Bob -" in text
    assert question.find_elements(By.CSS_SELECTOR, '.meld [data-tile="1C"]')  # the closest
    doubt = browser.find_element(By.CSS_SELECTOR, "#doubts .doubt").text  # the table view
    assert "Bob (S in hand 1): a false Mah-jongg, its penalty awaiting the referee" in doubt
    if answer == "confirm":
        browser.execute_script("document.getElementById('questions').parentElement"
                               ".scrollIntoView()")
        shot(browser, "console-false-mahjong.png")
    # the scoreboard, opened in another tab meanwhile, shows the hand pending, nothing booked
    browser.execute_script("window.open(arguments[0])", url + "score")
    console, board = browser.window_handles
    browser.switch_to.window(board)
    row = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, ".hand-row.pending"),
                   what="the hand pending on the scoreboard")[0]
    assert "Bob: false Mah-jongg, penalty pending" in row.text
    assert set(totals_shown(browser).values()) == {0}
    if answer == "confirm":
        shot(browser, "scoreboard-penalty-pending.png")
    browser.switch_to.window(console)
    button = "button.confirm" if answer == "confirm" else "button.dismiss"
    question.find_element(By.CSS_SELECTOR, button).click()
    wait_for(lambda: f"{answer}: done" in browser.find_element(By.ID, "answer").text,
             what="the answer taken")
    wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, ".question.penalty"),
             what="the question gone")
    scored = next(r for r in table_service.service.store.events(0)
                  if r["type"] == "HandScored")
    penalty = scored["net_by_player"]
    browser.switch_to.window(board)
    if answer == "confirm":
        wait_for(lambda: totals_shown(browser) == penalty, what="the penalty in the totals")
        assert "penalty confirmed" in browser.find_element(By.CSS_SELECTOR, ".hand-row").text
    else:
        wait_for(lambda: "penalty dismissed" in browser.find_element(
            By.CSS_SELECTOR, ".hand-row").text, what="the dismissal on the scoreboard")
        assert set(totals_shown(browser).values()) == {0}
    (settled,) = [r for r in table_service.service.store.events(0)
                  if r["type"] == "PenaltySettled"]
    assert settled["how"] == ("confirmed" if answer == "confirm" else "dismissed")
    assert console_errors(browser) == []


def test_a_past_move_is_amended_by_picking_it_in_the_move_list(
        table_service: Running, browser: Any) -> None:
    url = table_service.url
    sign_in(browser, url)
    first_discard(table_service)  # the camera read 5C; East discarded 6C
    browser.find_element(By.ID, "list-moves").click()
    move = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '.move[data-type="Discard"]'),
                    what="the discard in the move list")[0]
    assert "E Discard 5C" in move.text
    at = int(move.get_attribute("data-at"))
    browser.execute_script("document.getElementById('moves').parentElement.scrollIntoView()")
    shot(browser, "console-move-list.png")
    move.find_element(By.CSS_SELECTOR, "button.amend").click()
    browser.find_element(By.CSS_SELECTOR, '#picker-tiles .tile[data-tile="6C"]').click()
    browser.find_element(By.ID, "picker-send").click()
    wait_for(lambda: "correct: done" in browser.find_element(By.ID, "answer").text,
             what="the amendment taken")
    amended = [r for r in table_service.service.store.events(0) if r["type"] == "Amended"]
    assert [a["at"] for a in amended] == [at]
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '.seat-E .discards [data-tile="6C"]'),
             what="the amended discard on the table view")
    assert not browser.find_elements(By.CSS_SELECTOR, '.seat-E .discards [data-tile="5C"]')
    wait_for(lambda: any("E Discard 6C" in e.text for e in
                         browser.find_elements(By.CSS_SELECTOR, ".move")),
             what="the list listed again with the amended move")
    # a pick from a list out of date (another referee amended the move meanwhile): refused
    before = table_service.service.store.last_seq()
    stale = browser.execute_async_script(
        "const done = arguments[1]; command('correct', {at: arguments[0], reason: 'x',"
        " command: {type: 'Discard', seat: 'E', tile: '7C'},"
        " was: {type: 'Discard', seat: 'E', tile: '5C'}}).then(done);", at)
    assert stale["ok"] is False and "amended meanwhile" in stale["error"]
    assert table_service.service.store.last_seq() == before
    assert "refused" in browser.find_element(By.ID, "answer").text
    assert console_errors(browser) == []
