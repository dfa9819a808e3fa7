"""Buttons and seat LEDs on GPIO, through gpiozero's MockFactory (a real pin back end)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from config.schema import GpioSection
from controller.gpio import GpioButtons, GpioLights, pin_factory
from controller.inputs import Press
from controller.lights import Pattern, Show


class Sink:
    def __init__(self) -> None:
        self.presses: list[Press] = []
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def press(self, press: Press) -> None:
        with self.lock:
            self.presses.append(press)
            self.threads.add(threading.current_thread().name)

    def observe(self, observation: Any) -> None:
        raise AssertionError("no observations from GPIO")


CFG = GpioSection.model_validate(
    {
        "enabled": True,
        "factory": "mock",
        "bounce_ms": 0,
        "seats": {
            "E": {"buttons": {"pung": 5, "mahjong": 6}, "led": 17},
            "S": {"buttons": {"pung": 13}, "led": 27},
        },
    }
)


@pytest.fixture
def factory() -> Iterator[Any]:
    made = pin_factory("mock")
    yield made
    made.reset()  # pins stay reserved otherwise (gpiozero #1087)
    made.close()


def _wait(predicate: Any, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.005)
    return bool(predicate())


def test_pressing_a_pin_delivers_seat_button_and_time(factory: Any) -> None:
    sink = Sink()
    buttons = GpioButtons(CFG, sink, factory)
    before = time.monotonic_ns() // 1000
    factory.pin(6).drive_low()  # pulled up: pressed = low
    assert _wait(lambda: len(sink.presses) == 1)
    press = sink.presses[0]
    assert (press.seat, press.button, press.source) == ("E", "mahjong", "gpio")
    assert before <= press.time_us <= time.monotonic_ns() // 1000
    factory.pin(6).drive_high()
    factory.pin(13).drive_low()
    assert _wait(lambda: [p.seat for p in sink.presses] == ["E", "S"])
    buttons.close()


def test_lights_follow_turn_and_claim_result(factory: Any) -> None:
    lights = GpioLights(CFG, factory)
    lights.show(Pattern(Show.TURN, "S"))
    assert factory.pin(27).state and not factory.pin(17).state
    lights.show(Pattern(Show.CLAIM_WON, "E"))
    assert factory.pin(17).state and not factory.pin(27).state
    lights.show(Pattern(Show.CLAIM_REFUSED, "S"))  # three quick blinks, then dark
    assert _wait(lambda: sum(1 for s in factory.pin(27).states if s.state) >= 4)
    lights.show(Pattern(Show.OFF))
    assert not factory.pin(17).state and not factory.pin(27).state
    lights.close()


def test_a_pin_in_use_is_refused_and_nothing_stays_reserved(factory: Any) -> None:
    from gpiozero import LED
    from gpiozero.exc import GPIOPinInUse

    held = LED(13, pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        GpioButtons(CFG, Sink(), factory)
    held.close()
    GpioButtons(CFG, Sink(), factory).close()  # the half-built set released its pins
