"""What the page tests share: the browser's paths, waiting, screenshots, running parts."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from config.load import parse_config
from config.schema import TableConfig
from controller.mqtt import BrokerSettings
from controller.scoresheet import Scorer, engine_scorer
from controller.service import Service, ServiceOptions, broker_of
from controller.web.auth import hash_password
from tests.waiting import wait_until

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PASSWORD = "table-referee-1"
# The screenshots land in build/screenshots/ (ignored by git); MJTABLE_SHOTS=docs/images makes
# the run refresh the ones the README and docs/face.md show.
SHOTS = Path(os.environ.get("MJTABLE_SHOTS")
             or Path(__file__).resolve().parents[2] / "build" / "screenshots")


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    """What ``predicate`` gives once it is truthy (polled through ``wait_until``)."""
    from selenium.common.exceptions import StaleElementReferenceException

    got: list[Any] = [None]

    def ready() -> bool:
        try:
            got[0] = predicate()
        except StaleElementReferenceException:  # the page re-drew it meanwhile
            got[0] = None
        return bool(got[0])

    assert wait_until(ready, timeout, 0.05), f"timed out waiting for {what or predicate}"
    return got[0]


def password_field(driver: Any) -> Any:
    """The console's password field, once the page shows it: it asks the server whether the
    referee is signed in first, and a busy machine can answer after the page has loaded."""
    from selenium.webdriver.common.by import By

    return wait_for(lambda: (f := driver.find_element(By.ID, "password")).is_displayed() and f,
                    20, "the sign-in form")


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The browser console's errors and warnings (not Chromium's own advice)."""
    return [e for e in driver.get_log("browser")
            if e["level"] in ("SEVERE", "WARNING") and e.get("source") != "recommendation"]


def shot(driver: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    driver.save_screenshot(str(path))
    return path


@dataclass
class Running:
    service: Service
    url: str
    loop: asyncio.AbstractEventLoop

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the service's loop and wait for it (the table is single-threaded)."""
        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)


@dataclass
class Simulation:
    process: subprocess.Popen[str]
    url: str
    store: Path


def run_service(tmp_path: Path, extra: dict[str, Any] | None = None) -> Iterator[Running]:
    """The table service on a thread of its own, its page on a free port, its store in
    ``tmp_path`` (run again on the same path: the service restarted). ``extra``: config
    sections merged over these; given, the service scores with the engine's scorer."""
    pw = tmp_path / "referee.pw"
    pw.write_text(hash_password(PASSWORD) + "\n")
    sections: dict[str, Any] = {
        "table": {"id": "face", "ruleset": "code1924/mixed"},
        "board": {"serial": "emulated"},
        "mqtt": {"enabled": False},
        "store": {"path": str(tmp_path / "table.sqlite3")},
        "web": {"enabled": True, "host": "127.0.0.1", "port": 0, "password_file": str(pw)},
    }
    for name, section in (extra or {}).items():
        sections[name] = {**sections.get(name, {}), **section}
    cfg = parse_config(sections)
    scorer = engine_scorer if extra is not None else None
    with serving(cfg, scorer, broker_of(cfg)) as running:
        yield running


@contextlib.contextmanager
def serving(cfg: TableConfig, scorer: Scorer | None = None,
            broker: BrokerSettings | None = None) -> Iterator[Running]:
    """A table service with its page, on a thread of its own, for as long as the block runs
    (no board or broker unless the config names them: inputs are handed to it directly)."""
    service = Service(cfg, ServiceOptions(store_path=cfg.store.path, scorer=scorer,
                                          broker=broker))
    ready = threading.Event()
    stop: list[asyncio.Event] = []
    loops: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        stop.append(asyncio.Event())
        loops.append(asyncio.get_running_loop())
        await service.run(stop[0], on_ready=ready.set)

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(15), "the service did not start"
    try:
        yield Running(service, service.face.url, loops[0])
    finally:
        loops[0].call_soon_threadsafe(stop[0].set)
        thread.join(15)
