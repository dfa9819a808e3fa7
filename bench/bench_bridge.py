"""Firmware bridge over a real pty: sustained events/s with acknowledgements, and
board-to-service latency.

The board is `mjtable emulate` in its own process (as the real board is its own chip); the
host is `BoardLink` in this one. Both read CLOCK_MONOTONIC, so a board timestamp plus the
emulator's epoch is the press time on the host's clock, and latency is measured when the
service's `async for` receives the event.

    .venv/bin/python bench/bench_bridge.py                 # all runs
    .venv/bin/python bench/bench_bridge.py --quick         # shorter runs
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge.events import ButtonEvent  # noqa: E402
from firmware_bridge.host import LinkSettings  # noqa: E402
from firmware_bridge.link import BoardLink  # noqa: E402


class Emulator:
    def __init__(self, link: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "emulate", "--link", str(link), *extra],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.hello = json.loads(self.proc.stdout.readline())

    def op(self, **cmd: object) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        reply: dict[str, object] = json.loads(self.proc.stdout.readline())
        return reply

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, ValueError):
            self.op(op="quit")
        self.proc.wait(timeout=5)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def run_burst(
    link: BoardLink, emu: Emulator, count: int, rate: float | None
) -> dict[str, float]:
    epoch = int(emu.hello["board_epoch_us"])
    latencies: list[float] = []
    in_host: list[float] = []  # from the port's read callback to the service's `async for`
    read_at: dict[int, int] = {}  # seq -> host µs when the bytes carrying it were read
    host = link._host
    on_data = link._on_data

    def timed_on_data(data: bytes) -> None:
        t = time.monotonic_ns() // 1000
        before = len(host.events)
        on_data(data)
        for event in list(host.events)[before:]:
            read_at[event.seq] = t

    link._on_data = timed_on_data  # type: ignore[method-assign]
    emu.op(op="burst", count=count, **({"rate": rate} if rate else {}))
    start = time.perf_counter()
    got = 0
    async for event in link.events():
        if isinstance(event, ButtonEvent):
            now_us = time.monotonic_ns() // 1000
            latencies.append((now_us - (epoch + event.board_us)) / 1000)
            in_host.append((now_us - read_at.pop(event.seq, now_us)) / 1000)
            got += 1
            if got == count:
                break
    seconds = time.perf_counter() - start
    link._on_data = on_data  # type: ignore[method-assign]
    return {
        "events": count,
        "seconds": round(seconds, 3),
        "events_per_s": round(count / seconds),
        "p50_ms": round(statistics.median(latencies), 3),
        "p99_ms": round(percentile(latencies, 99), 3),
        "max_ms": round(max(latencies), 3),
        "in_host_p50_ms": round(statistics.median(in_host), 3),
        "in_host_p99_ms": round(percentile(in_host, 99), 3),
    }


async def bench(quick: bool) -> list[dict[str, object]]:
    results: list[dict[str, object]] = []
    scale = 0.25 if quick else 1.0
    faults = ("--bit-flip", "0.01", "--drop-frame", "0.01")
    batched = LinkSettings()  # the default: acknowledgements batched (8 events or 5 ms)
    per_read = LinkSettings(ack_every=1, ack_delay_s=0.0)  # one acknowledgement per read
    runs = [
        ("flat out (as fast as acks allow)", int(20000 * scale), None, (), batched),
        ("flat out, one ack per read", int(20000 * scale), None, (), per_read),
        ("paced 2,000/s", int(10000 * scale), 2000.0, (), batched),
        ("paced 2,000/s, one ack per read", int(10000 * scale), 2000.0, (), per_read),
        ("paced 200/s (a busy table)", int(1000 * scale), 200.0, (), batched),
        ("flat out, 1% bit flips + 1% dropped frames", int(20000 * scale), None, faults, batched),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, count, rate, extra, settings) in enumerate(runs):
            emu = Emulator(Path(tmp) / f"mcu{i}", *extra)
            try:
                async with BoardLink(str(emu.hello["link"]), settings=settings) as link:
                    await link.wait_up(timeout=5)
                    cpu_before = float(emu.op(op="cpu")["cpu_s"])  # type: ignore[arg-type]
                    result = await run_burst(link, emu, count, rate)
                    cpu_after = float(emu.op(op="cpu")["cpu_s"])  # type: ignore[arg-type]
                    status = link.status()
                result["corrupt_frames"] = status.corrupt_frames
                result["board_retransmissions"] = status.board_retransmissions
                # The emulated board's CPU per event: what acknowledgements cost the board.
                result["board_cpu_us_per_event"] = round((cpu_after - cpu_before) / count * 1e6, 1)
                results.append({"run": name, **result})
                print(json.dumps(results[-1]), flush=True)
            finally:
                emu.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"# bench_bridge on {os.cpu_count()} cores (load {load}), python {sys.version.split()[0]}"
    )
    asyncio.run(bench(args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
