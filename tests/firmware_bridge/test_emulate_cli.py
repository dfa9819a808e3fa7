"""`mjtable emulate`: the emulated board as a process, scripted over stdin, on a real pty."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from firmware_bridge.events import Animation, ButtonEvent
from firmware_bridge.link import BoardLink

ROOT = Path(__file__).resolve().parents[2]


class EmulateProcess:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "emulate", *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.ready = self.line()

    def line(self) -> dict[str, object]:
        assert self.proc.stdout is not None
        reply: dict[str, object] = json.loads(self.proc.stdout.readline())
        return reply

    def send(self, raw: str) -> dict[str, object]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + "\n")
        self.proc.stdin.flush()
        return self.line()

    def op(self, **cmd: object) -> dict[str, object]:
        return self.send(json.dumps(cmd))


@pytest.fixture
def emulate(tmp_path: Path) -> Iterator[EmulateProcess]:
    process = EmulateProcess("--link", str(tmp_path / "mcu"), "--segments", "18,24")
    yield process
    if process.proc.poll() is None:
        process.proc.terminate()
    process.proc.wait(timeout=5)


def test_emulate_announces_its_port_and_is_scripted_over_stdin(
    emulate: EmulateProcess, tmp_path: Path
) -> None:
    assert emulate.ready["link"] == str(tmp_path / "mcu")
    assert str(emulate.ready["pty"]).startswith("/dev/pts/")

    async def scenario() -> None:
        async with BoardLink(str(emulate.ready["link"])) as link:
            info = await link.wait_up(timeout=5)
            assert info.segments == (18, 24)
            assert emulate.op(op="click", seat=3, button=2) == {"ok": True, "op": "click"}
            pressed = await link.next_event(timeout=3)
            assert isinstance(pressed, ButtonEvent)
            assert (pressed.seat, pressed.button, pressed.pressed) == (3, 2, True)
            await link.animate(1, Animation.SOLID, (7, 8, 9))
            await link.drain(timeout=3)
            leds = emulate.op(op="leds", segment=1)
            assert leds["pixels"] == [[7, 8, 9]] * 24
            assert leds["animation"] == {
                "animation": 1, "r": 7, "g": 8, "b": 9,
                "period_ms": 0, "duration_ms": 0, "position": 0, "repeat": 0,
            }  # fmt: skip

    asyncio.run(asyncio.wait_for(scenario(), timeout=20))
    assert emulate.op(op="quit") == {"ok": True, "op": "quit"}
    assert emulate.proc.wait(timeout=5) == 0


def test_a_bad_line_is_answered_with_an_error_and_the_board_keeps_running(
    emulate: EmulateProcess,
) -> None:
    assert emulate.send("{not json") == {
        "error": "not JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
        "where": "stdin line 1",
    }
    assert emulate.op(op="press", seat=9, button=0) == {
        "error": "seat 9: the board has seats 0..3",
        "where": "stdin line 2",
    }
    assert emulate.op(op="fly") == {"error": "unknown op 'fly'", "where": "stdin line 3"}
    assert emulate.op(op="sensor", kind=3, zone=0, value=2**40) == {
        "error": "value = 1099511627776: must be an integer -2147483648..2147483647",
        "where": "stdin line 4",
    }
    assert emulate.op(op="burst", count=-1) == {
        "error": "count = -1: must be an integer 0..1000000000",
        "where": "stdin line 5",
    }
    assert emulate.op(op="stats")["events_recorded"] == 0


def test_bad_arguments_exit_2_with_the_json_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["emulate", "--drop-frame", "1.5"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out == {"error": "1.5 is not a probability in [0, 1]", "where": "--drop-frame"}
