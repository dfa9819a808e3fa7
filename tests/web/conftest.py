"""Real parts for the page tests: Debian's chromium driven by Selenium, a table service running
its page server on a thread of its own, and `mjtable simulate --web` in a process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import (
    CHROMEDRIVER,
    CHROMIUM,
    PASSWORD,
    Running,
    Simulation,
    serving,
)

from config.load import parse_config
from controller.web.auth import hash_password


@pytest.fixture(scope="session")
def chromium_options() -> Callable[[int, int], Any]:
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail("chromium and chromium-driver are missing: `./dev setup` installs them")
    from selenium.webdriver.chrome.options import Options

    def options(width: int, height: int) -> Options:
        o = Options()
        o.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", f"--window-size={width},{height}"):
            o.add_argument(arg)
        o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        return o

    return options


@pytest.fixture
def browser(chromium_options: Callable[[int, int], Any]) -> Iterator[Any]:
    yield from _driver(chromium_options(1280, 900))


@pytest.fixture
def phone(chromium_options: Callable[[int, int], Any]) -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options

    o: Options = chromium_options(390, 844)
    o.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2.0}})
    yield from _driver(o)


def _driver(options: Any) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    driver = webdriver.Chrome(options=options, service=DriverService(CHROMEDRIVER))
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def table_service(tmp_path: Path) -> Iterator[Running]:
    """A table service with its page, no board or broker: inputs are handed to it directly."""
    pw = tmp_path / "referee.pw"
    pw.write_text(hash_password(PASSWORD) + "\n")
    cfg = parse_config({
        "table": {"id": "face", "ruleset": "code1924/mixed"},
        "board": {"serial": "emulated"},
        "mqtt": {"enabled": False},
        "store": {"path": str(tmp_path / "table.sqlite3")},
        "web": {"enabled": True, "host": "127.0.0.1", "port": 0, "password_file": str(pw)},
    })
    with serving(cfg) as running:
        yield running


@pytest.fixture
def simulation(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Simulation]:
    """`mjtable simulate --headless --web 127.0.0.1:0`, its page's address read from its first
    line of output as the contract says."""
    args = getattr(request, "param", [])
    store = tmp_path / "sim.sqlite3"
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
         "simulate", "--headless", "--web", "127.0.0.1:0", "--store", str(store), *args],
        stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = json.loads(process.stdout.readline())
    try:
        yield Simulation(process, first["web"], store)
    finally:
        process.terminate()
        process.wait(20)
