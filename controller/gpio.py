"""Call buttons and seat LEDs wired straight to the Pi's header, through gpiozero.

For tables without a microcontroller. gpiozero picks the pin back end (lgpio on a Pi 5,
RPi.GPIO where present); tests pass gpiozero's ``MockFactory``. The factory is handed in,
never taken from a global, and every device is closed on :meth:`close`.

gpiozero calls ``when_pressed`` on its own thread; the sink must be thread-safe (the
service's sink hops onto its loop). The press time is the Pi's monotonic clock at the
callback, in microseconds: GPIO has no board clock.
"""

from __future__ import annotations

import time
from typing import Any

from config.schema import GpioSection
from controller.inputs import InputSink, Press
from controller.lights import Pattern, Show


def pin_factory(name: str) -> Any:
    """The gpiozero pin factory named in the config; ``None`` lets gpiozero choose."""
    if name == "auto":
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    if name == "rpigpio":
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    from gpiozero.pins.native import NativeFactory

    return NativeFactory()


class GpioButtons:
    """One gpiozero ``Button`` per configured seat button (pulled up, pressed = low)."""

    def __init__(self, cfg: GpioSection, sink: InputSink, factory: Any) -> None:
        from gpiozero import Button

        self.buttons: list[Any] = []
        bounce = cfg.bounce_ms / 1000 or None
        try:
            for seat, seat_cfg in cfg.seats.items():
                for name, pin in seat_cfg.buttons.items():
                    button = Button(pin, bounce_time=bounce, pin_factory=factory)
                    button.when_pressed = self._handler(sink, seat, name)
                    self.buttons.append(button)
        except Exception:
            self.close()
            raise

    @staticmethod
    def _handler(sink: InputSink, seat: str, name: str) -> Any:
        def pressed() -> None:
            sink.press(Press(seat, name, time.monotonic_ns() // 1000, source="gpio"))

        return pressed

    def close(self) -> None:
        for button in self.buttons:
            button.close()
        self.buttons.clear()


class GpioLights:
    """One LED per seat: solid for the seat whose turn it is or who won a claim, a quick
    triple blink for a refused claim, all seats blinking while a call window is open, a fast
    blink for an error, a slow one when the table is asked a question."""

    def __init__(self, cfg: GpioSection, factory: Any) -> None:
        from gpiozero import LED

        self.leds: dict[str, Any] = {}
        try:
            for seat, seat_cfg in cfg.seats.items():
                if seat_cfg.led is not None:
                    self.leds[seat] = LED(seat_cfg.led, pin_factory=factory)
        except Exception:
            self.close()
            raise

    def _only(self, seat: str | None) -> None:
        for name, led in self.leds.items():
            if name == seat:
                led.on()
            else:
                led.off()

    def _blink(self, seat: str | None, on: float, off: float, n: int | None) -> None:
        for name, led in self.leds.items():
            if seat is None or name == seat:
                led.blink(on_time=on, off_time=off, n=n, background=True)

    def show(self, pattern: Pattern) -> None:
        seat = pattern.seat
        match pattern.show:
            case Show.TURN | Show.CLAIM_WON:
                self._only(seat)
            case Show.HAND_OVER:
                if seat is None:
                    for led in self.leds.values():
                        led.on()
                else:
                    self._only(seat)
            case Show.CALL_WINDOW:
                cycles = max(1, pattern.duration_ms // 200)
                self._blink(None, 0.1, 0.1, cycles)
            case Show.CLAIM_HEARD:
                if seat in self.leds:
                    self.leds[seat].on()
            case Show.CLAIM_REFUSED:
                self._blink(seat, 0.08, 0.08, 3)
            case Show.WALL_BREAK | Show.DEAD_WALL:
                self._blink(seat, 0.3, 0.3, 2)
            case Show.LAST_TILE:
                self._blink(seat, 0.5, 0.5, None)
            case Show.ERROR:
                self._blink(seat, 0.05, 0.05, None)
            case Show.ASK:
                self._blink(seat, 0.6, 0.6, None)
            case Show.OFF:
                self._only(None)

    def close(self) -> None:
        for led in self.leds.values():
            led.close()
        self.leds.clear()
