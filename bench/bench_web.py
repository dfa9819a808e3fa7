"""The table's page, measured: an event at the table to its change on the page (p50/p99) with one
real browser, and with 20 light SSE clients open beside it; the first load (bytes, time); the
table's CPU with 20 pages open against none.

Each run is `mjtable simulate --headless --web 127.0.0.1:0` with the same seed and pace, so the
runs differ only in the pages open. An event's time is its ``ts`` (the service's clock, ms); a
page's is when it finished drawing the message (Date.now() after render, same machine's clock);
a light client's is when its SSE line arrived.

    .venv/bin/python bench/bench_web.py [--hands 3] [--clients 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
MARKS = """
window.__marks = [];
const drawn = render;
render = function () {
  drawn();
  if (face.state) window.__marks.push([face.state.seq, Date.now()]);
};
"""


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {"n": len(ordered), "p50": round(statistics.median(ordered), 1),
            "p99": round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))], 1),
            "max": round(ordered[-1], 1)}


def start_sim(args: argparse.Namespace, store: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
         "simulate", "--headless", "--web", "127.0.0.1:0", "--hands", str(args.hands),
         "--seed", str(args.seed), "--pace", str(args.pace), "--pause-ms", "300",
         "--linger", "3", "--store", str(store)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["web"]


def event_times(store: Path) -> dict[int, float]:
    """seq -> the event's time (epoch ms) as the service stamped it."""
    from datetime import datetime

    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, body FROM events").fetchall()
    finally:
        db.close()
    return {int(seq): datetime.fromisoformat(json.loads(body)["ts"]).timestamp() * 1000
            for seq, body in rows}


class LightClient(threading.Thread):
    """An SSE reader: the arrival time (epoch ms) of each state seq."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.arrivals: dict[int, float] = {}

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.url + "feed", timeout=120) as stream:
                for raw in stream:
                    now = time.time() * 1000
                    if not raw.startswith(b"data: ["):
                        continue
                    for item in json.loads(raw[6:]):
                        if item["topic"] == "state":
                            self.arrivals.setdefault(int(item["body"]["seq"]), now)
        except OSError:
            return


def latencies(arrivals: dict[int, float], stamped: dict[int, float]) -> list[float]:
    return [arrivals[s] - stamped[s] for s in arrivals if s in stamped]


def run_once(args: argparse.Namespace, browser: bool, clients: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-web-"))
    store = tmp / "table.sqlite3"
    started = time.monotonic()
    proc, url = start_sim(args, store)
    readers = [LightClient(url) for _ in range(clients)]
    for r in readers:
        r.start()
    driver = None
    out: dict[str, Any] = {"browser": browser, "clients": clients}
    if browser:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        o = Options()
        o.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
            o.add_argument(a)
        driver = webdriver.Chrome(options=o, service=Service(CHROMEDRIVER))
        t0 = time.monotonic()
        driver.get(url)
        out["first_load"] = driver.execute_script("""
            const nav = performance.getEntriesByType('navigation')[0];
            const res = performance.getEntriesByType('resource')
                .filter(r => !r.name.endsWith('/feed'));
            return {bytes: nav.transferSize + res.reduce((a, r) => a + r.transferSize, 0),
                    decoded: nav.decodedBodySize + res.reduce((a, r) => a + r.decodedBodySize, 0),
                    ms: Math.round(nav.loadEventEnd - nav.startTime)};""")
        out["first_load"]["wall_ms"] = round((time.monotonic() - t0) * 1000)
        driver.execute_script(MARKS)
    rusage = os.wait4(proc.pid, 0)[2]
    wall = time.monotonic() - started
    out["cpu_percent_of_one_core"] = round(100 * (rusage.ru_utime + rusage.ru_stime) / wall, 1)
    out["seconds"] = round(wall, 1)
    stamped = event_times(store)
    if driver is not None:
        marks = driver.execute_script("return window.__marks")
        first: dict[int, float] = {}
        for seq, at in marks:
            first.setdefault(int(seq), float(at))
        out["browser_ms"] = percentiles(latencies(first, stamped))
        driver.quit()
    if readers:
        values: list[float] = []
        for r in readers:
            r.join(5)
            values += latencies(r.arrivals, stamped)
        out["light_clients_ms"] = percentiles(values)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--pace", type=float, default=0.05)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    runs = [
        run_once(args, browser=False, clients=0),
        run_once(args, browser=True, clients=0),
        run_once(args, browser=True, clients=args.clients),
        run_once(args, browser=False, clients=args.clients),
    ]
    report = {"runs": runs, "settings": vars(args)}
    none, pages = runs[0]["cpu_percent_of_one_core"], runs[3]["cpu_percent_of_one_core"]
    report["cpu_with_pages_minus_none"] = round(pages - none, 1)
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
