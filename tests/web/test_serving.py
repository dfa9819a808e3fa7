"""Serving the page as a club deploys it: over https with the certificate deploy/make-certs.sh
makes, in the real browser trusting the table's own CA; a viewer code (what it lets in, what it
refuses); and a page opened after a real restart of the service, which draws what a page that
never left draws."""

from __future__ import annotations

import contextlib
import json
import os
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import CHROMEDRIVER, Running, console_errors, run_service, wait_for
from selenium.webdriver.common.by import By
from test_console_browser import first_discard, sign_in

from controller.inputs import Observation, ObservationKind, Press
from controller.service import now_us

ROOT = Path(__file__).resolve().parents[2]
CODE = "jade-dragon-7"


def service(tmp_path: Path, **web: Any) -> contextlib.AbstractContextManager[Running]:
    """The table service with its page (``web``: the config's [web] beside the defaults)."""
    return contextlib.contextmanager(run_service)(tmp_path, {"web": web} if web else None)


def table_certificates(where: Path) -> Path:
    """The table's CA and the page's certificate, made by the deploy script itself."""
    subprocess.run([str(ROOT / "deploy" / "make-certs.sh"), str(where), "table"], check=True,
                   capture_output=True, timeout=60)
    return where


@contextlib.contextmanager
def browser_trusting(ca: Path, home: Path, chromium_options: Any) -> Iterator[Any]:
    """Chromium with the table's CA imported as a club member would (its NSS store, under a
    HOME of its own): the certificate chain and the name are checked, nothing is skipped."""
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run(["certutil", "-N", "-d", f"sql:{nssdb}", "--empty-password"], check=True)
    subprocess.run(["certutil", "-A", "-d", f"sql:{nssdb}", "-n", "mahjong-table CA",
                    "-t", "C,,", "-i", str(ca)], check=True)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    driver = webdriver.Chrome(options=chromium_options(1280, 900), service=DriverService(
        CHROMEDRIVER, env={**os.environ, "HOME": str(home)}))
    try:
        yield driver
    finally:
        driver.quit()


def test_the_page_is_served_over_https_with_the_tables_certificate(
        tmp_path: Path, chromium_options: Any, browser: Any) -> None:
    certs = table_certificates(tmp_path / "certs")
    with service(tmp_path, certificate=str(certs / "server.crt"),
                 key=str(certs / "server.key")) as running:
        url = running.url
        assert url.startswith("https://127.0.0.1:")
        # plain http on the page's port is not served
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(url.replace("https", "http") + "api/snapshot", timeout=10)
        # a client that trusts the table's CA reads it; one that does not is refused
        trusting = ssl.create_default_context(cafile=str(certs / "ca.crt"))
        with urllib.request.urlopen(url + "api/snapshot", context=trusting, timeout=10) as r:
            assert json.loads(r.read())["settings"]["table"] == "face"
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            urllib.request.urlopen(url + "api/snapshot", context=ssl.create_default_context(),
                                   timeout=10)
        # a browser that has not imported the CA shows the warning, not the page
        browser.get(url)
        assert not browser.find_elements(By.ID, "table-view")
        # the referee's browser, the CA imported: the console over https, signed in
        with browser_trusting(certs / "ca.crt", tmp_path / "home", chromium_options) as chrome:
            sign_in(chrome, url)
            wait_for(lambda: chrome.find_element(By.ID, "link").text == "● live",
                     what="the feed over https")
            session = next(c for c in chrome.get_cookies() if c["name"] == "mjtable_referee")
            assert session["secure"] and session["httpOnly"]  # never sent in clear
            assert chrome.execute_script("return location.protocol") == "https:"
            assert console_errors(chrome) == []


def _get(url: str, cookie: str = "") -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read(2000).decode(), r.headers.get("Set-Cookie") or ""
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode(), ""


def test_a_viewer_code_lets_in_who_has_it_and_no_one_else(
        tmp_path: Path, browser: Any) -> None:
    with service(tmp_path, viewer_code=CODE) as running:
        url = running.url
        # without the code, or with a wrong one: every view, the feed, the snapshot and the
        # export are refused, saying what is missing
        for path in ("", "score", "console", "feed", "api/snapshot", "export.json",
                     "export.csv", "api/session"):
            for query in ("", "?code=jade-dragon-8", "?code="):
                status, text, _ = _get(url + path + query)
                assert status == 401, (path, query, status)
                assert "viewer code" in text and "?code=" in text
        # the assets carry nothing of the game: served to all (the page says what it needs)
        assert _get(url + "static/face.js")[0] == 200
        # the code lets a viewer in, and a cookie keeps him in without it
        status, text, cookie = _get(url + "?code=" + CODE)
        assert status == 200 and "table-view" in text
        assert "mjtable_viewer=" in cookie and "HttpOnly" in cookie
        kept = cookie.split(";")[0]
        assert _get(url + "api/snapshot", kept)[0] == 200
        assert _get(url + "api/snapshot", "mjtable_viewer=jade-dragon-8")[0] == 401
        # a viewer is not a referee: no command, code or not
        request = urllib.request.Request(url + "api/cmd/roll", data=b'{"seat": "E"}',
                                         headers={"Cookie": kept}, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401 and "sign in" in json.loads(refused.value.read())["error"]
        assert running.service.store.last_seq() == 1  # nothing but the first hand's start
        # in the browser: the address with the code shows the live table, then the scoreboard
        browser.get(url + "?code=" + CODE)
        wait_for(lambda: browser.find_element(By.ID, "link").text == "● live", what="live")
        browser.get(url + "score")
        wait_for(lambda: browser.find_element(By.ID, "link").text == "● live",
                 what="the scoreboard, the code kept")
        browser.delete_all_cookies()
        browser.get(url)
        assert "viewer code" in browser.find_element(By.TAG_NAME, "body").text
        assert all("401" in e["message"] for e in console_errors(browser))


def _rulings(browser: Any) -> list[str]:
    return list(browser.execute_script(
        "return [...document.querySelectorAll('#rulings li')].map(e => e.textContent)"))


def _log(url: str) -> list[Any]:
    with urllib.request.urlopen(url + "api/snapshot", timeout=10) as r:
        return list(json.loads(r.read())["log"])


def test_a_page_opened_after_a_restart_draws_what_a_page_that_never_left_draws(
        tmp_path: Path, browser: Any) -> None:
    with service(tmp_path) as running:
        first_discard(running)
        table = running.service.table
        running.call(lambda: table.press(Press("S", "pung", now_us()), now_us()))
        wait_for(lambda: table.state is not None and table.state.phase == "award", 10,
                 "S awarded East's discard")
        unsure = Observation(ObservationKind.EXPOSURE, "S", ("5C", "5C", "5C"), 0.3)
        running.call(lambda: table.observe(unsure, now_us()))  # the table asks the referee
        browser.get(running.url)
        wait_for(lambda: any("asks #1" in r for r in _rulings(browser)), what="the question")
        before, log_before = _rulings(browser), _log(running.url)
        assert any("takes 5C (pung)" in r for r in before), before
    # the service stops and starts again on the same store: a new page draws the same
    with service(tmp_path) as again:
        assert _log(again.url) == log_before
        browser.get(again.url)
        wait_for(lambda: _rulings(browser) == before, what="the same rulings after the restart")
        assert browser.find_elements(By.CSS_SELECTOR, '.seat-E .discards [data-tile="5C"]')
