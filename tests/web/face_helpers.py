"""What the page tests share: the browser's paths, waiting, screenshots, running parts."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from config.schema import TableConfig
from controller.service import Service, ServiceOptions

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PASSWORD = "table-referee-1"
# The screenshots land in build/screenshots/ (ignored by git); MJTABLE_SHOTS=docs/images makes
# the run refresh the ones the README and docs/face.md show.
SHOTS = Path(os.environ.get("MJTABLE_SHOTS")
             or Path(__file__).resolve().parents[2] / "build" / "screenshots")


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    from selenium.common.exceptions import StaleElementReferenceException

    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except StaleElementReferenceException:  # the page re-drew it meanwhile
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what or predicate}"
        time.sleep(0.05)


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


@contextlib.contextmanager
def serving(cfg: TableConfig) -> Iterator[Running]:
    """A table service with its page, on a thread of its own, for as long as the block runs
    (no board or broker unless the config names them: inputs are handed to it directly)."""
    service = Service(cfg, ServiceOptions(store_path=cfg.store.path))
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
