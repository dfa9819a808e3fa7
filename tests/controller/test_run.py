"""`mjtable run` as systemd runs it (notify socket, watchdog, SIGTERM), `mjtable status`, and
a GPIO-only table: buttons through gpiozero's MockFactory become claims."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from config.load import parse_config
from controller import cli
from controller.inbox import ObserveIn
from controller.inputs import Observation, ObservationKind
from controller.service import Service, ServiceOptions

from .conftest import until

CLI = "import sys; from controller.cli import main; sys.exit(main())"


def _gpio_config(tmp_path: Path, mqtt: str = "enabled = false") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nid = "gpio-table"\n[board]\nserial = ""\n'
        '[gpio]\nenabled = true\nfactory = "mock"\nbounce_ms = 0\n'
        "[gpio.seats.S]\nbuttons = {pung = 5, mahjong = 6}\nled = 17\n"
        "[gpio.seats.W]\nbuttons = {pung = 13}\nled = 27\n"
        f'[camera]\nsource = "none"\n[mqtt]\n{mqtt}\n'
        f'[store]\npath = "{tmp_path / "store.sqlite3"}"\n'
    )
    return path


def test_run_notifies_ready_and_feeds_the_watchdog_then_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    notify = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(15)
    env = dict(os.environ, NOTIFY_SOCKET=str(notify), WATCHDOG_USEC="400000")
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "run", "--config", str(_gpio_config(tmp_path))],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        got: list[bytes] = []
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and sum(b"WATCHDOG=1" in m for m in got) < 3:
            got.append(sock.recv(4096))
        assert got[0] == b"READY=1"
        assert any(m.startswith(b"STATUS=table gpio-table") for m in got)
        assert sum(b"WATCHDOG=1" in m for m in got) >= 3  # keeps feeding it
        status = subprocess.run(
            [sys.executable, "-c", CLI, "status", "--config", str(_gpio_config(tmp_path))],
            capture_output=True, text=True, timeout=30,
        )
        assert status.returncode == 0, status.stdout
        body = json.loads(status.stdout)
        assert body["running"] is True and body["service"]["table"] == "gpio-table"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        rest = []
        sock.settimeout(1.0)
        with contextlib.suppress(TimeoutError):
            while True:
                rest.append(sock.recv(4096))
        assert b"STOPPING=1" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
        sock.close()
    after = subprocess.run(
        [sys.executable, "-c", CLI, "status", "--store", str(tmp_path / "store.sqlite3")],
        capture_output=True, text=True, timeout=30,
    )
    assert after.returncode == 3 and json.loads(after.stdout)["running"] is False


def test_run_with_a_bad_config_exits_2_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[table]\nid = "t"\n[store]\nsnapshot_every = 0\n')
    assert cli.main(["run", "--config", str(path)]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["where"] == f"{path}: store.snapshot_every"


def test_status_without_a_store_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["status", "--store", str(tmp_path / "none.sqlite3")]) == 2
    out = json.loads(capsys.readouterr().out)
    assert "never run" in out["error"]


def test_gpio_buttons_claim_through_the_service(tmp_path: Path) -> None:
    from controller.gpio import pin_factory

    cfg = parse_config(tomllib.loads(_gpio_config(tmp_path).read_text()), "table.toml")
    factory = pin_factory("mock")
    service = Service(
        cfg,
        ServiceOptions(store_path=str(tmp_path / "store.sqlite3"), gpio_factory=factory),
    )

    lit: list[bool] = []

    async def scenario() -> list[dict[str, Any]]:
        stop = asyncio.Event()
        ready = asyncio.Event()
        runner = asyncio.create_task(service.run(stop, on_ready=ready.set))
        await asyncio.wait_for(ready.wait(), 5)
        for step in (
            Observation(ObservationKind.DICE, "E", dice=(3, 4)),
            Observation(ObservationKind.DICE, "W", dice=(2, 2)),
            Observation(ObservationKind.DEAL, None),
            Observation(ObservationKind.DISCARD, "E", ("5C",)),
        ):
            assert (await service.submit(ObserveIn(step))).accepted
        # W's pung button. On a Pi gpiozero calls back on its own thread; the mock calls back
        # on the caller's, so press from another thread to take the same path.
        await asyncio.to_thread(factory.pin(13).drive_low)
        await until(
            lambda: (
                service.table.window.deadline_us is None
                and any(e["type"] == "ClaimsClosed" for e in service.store.events())
            ),
            what="the adjudication",
        )
        events = list(service.store.events())
        lit.extend(s.state for s in factory.pin(27).states)
        stop.set()
        await runner
        return events

    try:
        events = asyncio.run(scenario())
    finally:
        factory.reset()
        factory.close()
    claim = next(e for e in events if e["type"] == "ClaimMade")
    assert (claim["seat"], claim["kind"]) == ("W", "pung")
    decision = next(e for e in events if e["type"] == "ClaimsClosed")
    assert decision["winner"] == "W"
    assert any(lit)  # W's seat LED: claim heard, then won


def test_run_with_an_unavailable_gpio_back_end_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _gpio_config(tmp_path)
    path.write_text(path.read_text().replace('factory = "mock"', 'factory = "rpigpio"'))
    assert cli.main(["run", "--config", str(path)]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["where"] == f"{path}: gpio.factory"
    assert out["error"].startswith("GPIO (rpigpio) cannot start")


def test_a_second_service_on_the_same_store_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.store import StoreError

    cfg = parse_config(tomllib.loads(_gpio_config(tmp_path).read_text()), "table.toml")
    first = Service(cfg, ServiceOptions(store_path=str(tmp_path / "store.sqlite3")))
    with pytest.raises(StoreError, match="another table service is using this store"):
        Service(cfg, ServiceOptions(store_path=str(tmp_path / "store.sqlite3")))
    assert cli.main(["run", "--config", str(_gpio_config(tmp_path))]) == 2
    assert "another table service" in json.loads(capsys.readouterr().out)["error"]
    first._release_store()
