"""The build guide (docs/build/) agrees with what it describes: the wiring drawing with the
firmware's pin table, the udev rule with the USB ids the guide tells the reader to expect."""

from __future__ import annotations

import re
import runpy
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "docs" / "build"


def test_the_committed_wiring_drawing_is_the_pin_tables() -> None:
    maker = runpy.run_path(str(BUILD / "make_wiring.py"))
    pins = runpy.run_path(str(maker["PINS_FILE"]))
    assert (BUILD / "wiring.svg").read_text(encoding="utf-8") == maker["drawing"](pins), (
        "docs/build/wiring.svg is out of date: run docs/build/make_wiring.py"
    )


def test_every_used_pin_is_labelled_with_what_it_drives() -> None:
    maker = runpy.run_path(str(BUILD / "make_wiring.py"))
    pins = runpy.run_path(str(maker["PINS_FILE"]))
    uses = maker["pin_uses"](pins)
    gpios = {f"GP{g}" for row in pins["BUTTONS"] for g in row}
    gpios |= {f"GP{g}" for g, _ in pins["STRIPS"]} | {f"GP{g}" for g in pins["PRESENCE"]}
    gpios.add(f"GP{pins['SAFE_MODE']}")
    assert gpios <= set(uses) and len(gpios) == 25  # 16 buttons, 4 strips, 4 sensors, safe mode
    svg = ET.fromstring((BUILD / "wiring.svg").read_text(encoding="utf-8"))
    texts = {t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")}
    assert "seat N mah-jongg button" in texts and "presence sensor E (OUT)" in texts


def test_the_drawing_renders_as_a_picture(tmp_path: Path) -> None:
    exe = shutil.which("rsvg-convert")
    assert exe is not None, "./dev installs librsvg2-bin"
    png = tmp_path / "wiring.png"
    subprocess.run([exe, str(BUILD / "wiring.svg"), "-o", str(png)], check=True, timeout=60)
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(header[16:20], "big") == 1280


def test_udev_rule_matches_the_ids_the_guide_names() -> None:
    rule = next(
        line for line in (ROOT / "deploy" / "99-mahjong-mcu.rules").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    vendor = re.search(r'ATTRS\{idVendor\}=="([0-9a-f]{4})"', rule)
    product = re.search(r'ATTRS\{idProduct\}=="([0-9a-f]{4})"', rule)
    assert vendor and product
    guide = (BUILD / "flashing.md").read_text(encoding="utf-8")
    assert f"`lsusb` now lists `{vendor[1]}:{product[1]}`" in guide
    assert (vendor[1], product[1]) == ("2e8a", "0005")  # MicroPython's id for RP2 boards
    assert "ATTRS{serial}" not in rule  # no placeholder that matches no board


@pytest.mark.parametrize("page", sorted(p.name for p in BUILD.glob("*.md")))
def test_links_of_the_guide_lead_somewhere(page: str) -> None:
    text = (BUILD / page).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        assert (BUILD / target).exists(), f"{page} links to {target}"
    for path in re.findall(r"`((?:docs|deploy|firmware_bridge|bench|config)/[\w./-]+)`", text):
        assert (ROOT / path).exists(), f"{page} names {path}"
