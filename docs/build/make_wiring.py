"""Draw docs/build/wiring.svg from the firmware's pin table, firmware_bridge/firmware/table_pins.py.

    .venv/bin/python docs/build/make_wiring.py            # writes docs/build/wiring.svg
    rsvg-convert docs/build/wiring.svg -o wiring.png      # to look at it as a picture

The Pico is drawn as seen from above, USB at the top, with its 40 pins in their physical
places; every pin the table uses carries what it connects to. Below it: one seat's buttons,
the LED data path through the level shifter, and the power. A test checks that the committed
drawing is what this script makes of the pin table, so the two cannot drift apart.
"""

from __future__ import annotations

import math
import runpy
import sys
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
PINS_FILE = HERE.parent.parent / "firmware_bridge" / "firmware" / "table_pins.py"
OUT = HERE / "wiring.svg"

# The Pico's header, pins 1-20 down the left side and 40-21 down the right (top view, USB up).
LEFT = ["GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7", "GP8", "GP9",
        "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15"]
RIGHT = ["VBUS", "VSYS", "GND", "3V3_EN", "3V3(OUT)", "ADC_VREF", "GP28", "GND", "GP27", "GP26",
         "RUN", "GP22", "GND", "GP21", "GP20", "GP19", "GP18", "GND", "GP17", "GP16"]
SEATS = ("E", "S", "W", "N")
BUTTONS = ("chow", "pung", "kong", "mah-jongg")
STRIP_NAMES = ("seat strips E, S, W, N (chained)", "centre ring", "wall ring", "LED dice")
COLOURS = {"button": "#1f6fd1", "led": "#d1401f", "sensor": "#2a9d3a", "power": "#b8860b",
           "ground": "#333333", "mode": "#8a3ab9"}
MA_PER_LED = 60  # a WS2812 at full white


def pin_uses(pins: dict[str, object]) -> dict[str, tuple[str, str]]:
    """GPn -> (what it connects to, its kind), from the firmware's pin table."""
    uses: dict[str, tuple[str, str]] = {}
    for seat, row in zip(SEATS, pins["BUTTONS"], strict=True):  # type: ignore[call-overload]
        for button, gpio in zip(BUTTONS, row, strict=True):
            uses[f"GP{gpio}"] = (f"seat {seat} {button} button", "button")
    for (gpio, count), name in zip(pins["STRIPS"], STRIP_NAMES, strict=True):  # type: ignore[call-overload]
        uses[f"GP{gpio}"] = (f"{name}, {count} LEDs (via 74AHCT125)", "led")
    for seat, gpio in zip(SEATS, pins["PRESENCE"], strict=True):  # type: ignore[call-overload]
        uses[f"GP{gpio}"] = (f"presence sensor {seat} (OUT)", "sensor")
    uses[f"GP{pins['SAFE_MODE']}"] = ("safe-mode switch to GND", "mode")
    uses["VSYS"] = ("+5 V through a Schottky diode", "power")
    uses["GND"] = ("common ground", "ground")
    return uses


def _text(x: float, y: float, text: str, size: int = 13, anchor: str = "start",
          colour: str = "#222", weight: str = "normal") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-family="DejaVu Sans, sans-serif" '
            f'font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
            f'font-weight="{weight}">{escape(text)}</text>')


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 2) -> str:
    return (f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
            f'stroke="{colour}" stroke-width="{width}"/>')


def _box(x: float, y: float, w: float, h: float, fill: str = "#ffffff",
         stroke: str = "#444") -> str:
    return (f'<rect x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}" rx="6" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>')


def _pico(uses: dict[str, tuple[str, str]], cx: float, top: float) -> list[str]:
    step, half = 26, 100
    parts = [_box(cx - half, top, 2 * half, step * 20 + 30, "#e8f3e8", "#2e6b2e"),
             _box(cx - 22, top - 14, 44, 24, "#cccccc"),
             _text(cx, top + 4, "USB", 11, "middle"),
             _text(cx, top + step * 10 + 10, "Raspberry", 14, "middle", weight="bold"),
             _text(cx, top + step * 10 + 28, "Pi Pico", 14, "middle", weight="bold"),
             _text(cx, top + step * 10 + 46, "(RP2040)", 12, "middle")]
    for side, names in ((-1, LEFT), (1, RIGHT)):
        for i, name in enumerate(names):
            y = top + 30 + i * step
            number = i + 1 if side < 0 else 40 - i
            x_pin = cx + side * half
            parts.append(_text(x_pin - side * 6, y + 4, name, 11, "end" if side > 0 else
                               "start"))
            parts.append(_text(x_pin + side * 10, y - 5, str(number), 9,
                               "start" if side > 0 else "end", "#777"))
            use = uses.get(name)
            if use is None:
                continue
            label, kind = use
            colour = COLOURS[kind]
            end = x_pin + side * 60
            parts.append(_line(x_pin, y, end, y, colour, 3))
            parts.append(f'<circle cx="{x_pin:.0f}" cy="{y:.0f}" r="4" fill="{colour}"/>')
            parts.append(_text(end + side * 6, y + 4, label, 12,
                               "start" if side > 0 else "end", colour))
    return parts


def _buttons_block(x: float, y: float) -> list[str]:
    colour = COLOURS["button"]
    parts = [_text(x, y, "Call buttons: each a momentary switch from its pin to GND", 14,
                   weight="bold"),
             _text(x, y + 18, "(internal pull-up, 15 ms debounce; 100 nF pin-to-GND on long "
                   "cables). Seat E shown; S, W, N alike.", 12)]
    for i, button in enumerate(BUTTONS):
        bx = x + 20 + i * 105
        parts += [_line(bx, y + 40, bx, y + 60, colour), _line(bx, y + 60, bx + 14, y + 50,
                  colour), _line(bx + 18, y + 60, bx + 18, y + 80, COLOURS["ground"]),
                  f'<circle cx="{bx:.0f}" cy="{y + 60:.0f}" r="3" fill="{colour}"/>',
                  f'<circle cx="{bx + 18:.0f}" cy="{y + 60:.0f}" r="3" fill="{colour}"/>',
                  _text(bx, y + 36, f"E {button}", 11, "start", colour)]
    parts.append(_line(x + 38, y + 80, x + 38 + 3 * 105, y + 80, COLOURS["ground"]))
    parts.append(_text(x + 45 + 3 * 105, y + 84, "GND", 12, colour=COLOURS["ground"]))
    return parts


def _led_block(pins: dict[str, object], x: float, y: float) -> list[str]:
    colour = COLOURS["led"]
    strips = list(pins["STRIPS"])  # type: ignore[call-overload]
    total = sum(count for _, count in strips)
    parts = [_text(x, y, "LED data: 3.3 V pin -> 74AHCT125 (5 V) -> 330 Ω -> strip DIN", 14,
                   weight="bold"),
             _box(x + 120, y + 20, 110, 30 + 34 * len(strips), "#fff4ef", colour),
             _text(x + 175, y + 40, "74AHCT125", 12, "middle", colour, "bold"),
             _text(x + 175, y + 54, "VCC 5 V, /OE to GND", 10, "middle")]
    for i, ((gpio, count), name) in enumerate(zip(strips, STRIP_NAMES, strict=True)):
        ly = y + 75 + i * 34
        parts += [_text(x + 110, ly + 4, f"GP{gpio}", 12, "end", colour),
                  _line(x + 112, ly, x + 120, ly, colour),
                  _line(x + 230, ly, x + 262, ly, colour),
                  _box(x + 262, ly - 7, 34, 14, "#ffffff", colour),
                  _text(x + 279, ly + 4, "330", 9, "middle"),
                  _line(x + 296, ly, x + 320, ly, colour),
                  _text(x + 326, ly + 4, f"DIN {name}: {count} LEDs", 12, colour=colour)]
    parts.append(_text(x, y + 95 + 34 * len(strips),
                       f"{total} LEDs; 1000 µF across each strip's 5 V input; feed 5 V into "
                       "long runs at both ends.", 12))
    return parts


def _power_block(pins: dict[str, object], x: float, y: float) -> list[str]:
    colour = COLOURS["power"]
    total = sum(count for _, count in pins["STRIPS"])  # type: ignore[attr-defined]
    full = total * MA_PER_LED / 1000
    return [
        _text(x, y, "Power", 14, weight="bold"),
        _box(x, y + 12, 150, 54, "#fff8e1", colour),
        _text(x + 75, y + 35, "5 V supply", 13, "middle", colour, "bold"),
        _text(x + 75, y + 53, f"≥ {math.ceil(full / 2 + 0.5)} A; {math.ceil(full)} A for full "
              "white", 10, "middle"),
        _line(x + 150, y + 30, x + 330, y + 30, colour, 3),
        _text(x + 336, y + 34, "+5 V: strips (both ends), 74AHCT125 VCC, sensors", 12,
              colour=colour),
        _line(x + 200, y + 30, x + 200, y + 80, colour, 3),
        _text(x + 208, y + 66, "Schottky (1N5817) ->|- Pico VSYS (pin 39)", 12, colour=colour),
        _line(x + 150, y + 52, x + 180, y + 52, COLOURS["ground"], 3),
        _line(x + 180, y + 52, x + 180, y + 100, COLOURS["ground"], 3),
        _text(x + 188, y + 98, "GND: supply, Pico, strips, shifter, buttons (one common ground)",
              12, colour=COLOURS["ground"]),
        _text(x, y + 124, f"Full white: {total} x {MA_PER_LED} mA = {full:.1f} A; the service's "
              "brightness 0.5 halves it. The Pi has its own supply; USB carries only data.", 12),
        _text(x, y + 142, "Presence sensors: VCC 3.3 V (pin 36) or 5 V with an open-collector "
              "output; OUT low when a player sits.", 12, colour=COLOURS["sensor"]),
        _text(x, y + 160, f"Safe mode: GP{pins['SAFE_MODE']} held to GND at power-up keeps the "
              "REPL (for flashing again).", 12, colour=COLOURS["mode"]),
    ]


def drawing(pins: dict[str, object]) -> str:
    width, height = 1280, 1200
    uses = pin_uses(pins)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">',
             f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
             _text(width / 2, 34, "mahjong-table: wiring of the table board", 22, "middle",
                   weight="bold"),
             _text(width / 2, 56, "drawn by docs/build/make_wiring.py from "
                   "firmware_bridge/firmware/table_pins.py", 12, "middle", "#666")]
    parts += _pico(uses, width / 2, 90)
    parts += _buttons_block(40, 690)
    parts += _led_block(pins, 640, 690)
    parts += _power_block(pins, 40, 1010)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> int:
    pins = runpy.run_path(str(PINS_FILE))
    OUT.write_text(drawing(pins), encoding="utf-8")
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
