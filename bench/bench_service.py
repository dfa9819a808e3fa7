"""Benchmarks of the table service (numbers for the README; never asserted in tests).

1. In `mjtable simulate`: button press (the click on the emulated board) to the LED answer
   for that seat (claim registered or refused, handed to the board link), and to the claim's
   event arriving at a club-side MQTT subscriber. Targets: p99 <= 20 ms and <= 50 ms.
2. `mjtable run` without vision: start-up time to systemd's READY=1 (measured on a real
   NOTIFY_SOCKET) and resident memory once running. Targets: <= 3 s and <= 120 MB.

    .venv/bin/python bench/bench_service.py [--hands 10] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = "import sys; from controller.cli import main; sys.exit(main())"


def bench_latency(hands: int, seed: int) -> dict[str, object]:
    from controller.simulation import SimulationSettings, simulate

    summary = simulate(SimulationSettings(hands=hands, seed=seed, headless=True, scorer=None))
    return {
        "hands": summary["hands"],
        "events": summary["events"],
        "violations": summary["violations"],
        "seconds": summary["seconds"],
        **summary["latency_ms"],
    }


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_run(runs: int) -> list[dict[str, float]]:
    from controller.broker import LocalMosquitto
    from firmware_bridge.emulator import EmulatedBoard

    out = []
    with tempfile.TemporaryDirectory() as tmp, LocalMosquitto() as broker:
        for i in range(runs):
            with EmulatedBoard(link_path=Path(tmp) / f"mcu{i}") as board:
                config = Path(tmp) / f"table{i}.toml"
                config.write_text(
                    f'[table]\nid = "bench"\n[board]\nserial = "{board.path}"\n'
                    f'[camera]\nsource = "none"\n'
                    f'[mqtt]\nhost = "{broker.host}"\nport = {broker.port}\n'
                    f'[store]\npath = "{tmp}/store{i}.sqlite3"\n'
                )
                notify_path = f"{tmp}/notify{i}"
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                sock.bind(notify_path)
                sock.settimeout(30)
                env = dict(os.environ, NOTIFY_SOCKET=notify_path, WATCHDOG_USEC="2000000")
                started = time.monotonic()
                proc = subprocess.Popen(
                    [sys.executable, "-c", CLI, "run", "--config", str(config)],
                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                ready = float("nan")
                watchdog = False
                try:
                    while True:
                        msg = sock.recv(4096)
                        if b"READY=1" in msg and ready != ready:  # first READY only
                            ready = time.monotonic() - started
                        if b"WATCHDOG=1" in msg:
                            watchdog = True
                        if ready == ready and watchdog:
                            break
                    time.sleep(2.0)  # running, board up, broker connected
                    rss = _rss_mb(proc.pid)
                finally:
                    proc.terminate()
                    proc.wait(timeout=20)
                    sock.close()
                out.append({"startup_to_ready_s": round(ready, 3), "rss_mb": round(rss, 1)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = {"latency": bench_latency(args.hands, args.seed), "run": bench_run(args.runs)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
