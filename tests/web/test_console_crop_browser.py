"""In a real browser: the table asks the referee about a tile its camera saw (vision's real
pipeline reading a rendered table), and the console shows the camera's crop of that tile
beside the question; a viewer is never served it."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from face_helpers import PASSWORD, Running, console_errors, password_field, serving, shot, wait_for
from selenium.webdriver.common.by import By

from config.load import parse_config
from controller.camera import CameraLoop
from controller.inputs import Observation, ObservationKind
from controller.web.auth import hash_password
from tests.waiting import wait_until


@pytest.fixture
def watched_table(tmp_path: Path) -> Iterator[tuple[Running, Any]]:
    """A table service whose camera loop reads a rendered table (as `mjtable simulate
    --camera` wires it), asking the referee about anything it is less than sure of."""
    from vision.geometry import TableGeometry
    from vision.synth.layout import Layout
    from vision.synth.render import Style
    from vision.synth.source import RenderedSource

    pw = tmp_path / "referee.pw"
    pw.write_text(hash_password(PASSWORD) + "\n")
    cfg = parse_config({
        "table": {"id": "crop", "ruleset": "code1924/mixed"},
        "board": {"serial": "emulated"},
        "adjudication": {"min_confidence": 1.0},
        "mqtt": {"enabled": False},
        "store": {"path": str(tmp_path / "table.sqlite3")},
        "web": {"enabled": True, "host": "127.0.0.1", "port": 0, "password_file": str(pw)},
    })
    with serving(cfg) as running:
        geometry = TableGeometry()
        style = Style.random(np.random.default_rng(3), "kde-traditional")
        layout = Layout(tiles=[], dice=[])
        camera = CameraLoop("render:3", running.service, fps=10, crops=running.service.crops,
                            open_source=lambda spec: RenderedSource(
                                3, lambda: (layout, style, geometry)))
        try:
            yield running, (camera, layout)
        finally:
            camera.stop()


def test_the_console_shows_the_cameras_crop_beside_its_question(
    watched_table: tuple[Running, Any], browser: Any
) -> None:
    from vision.synth.layout import TilePlacement

    running, (camera, layout) = watched_table
    svc = running.service
    for obs in (Observation(ObservationKind.DICE, "E", dice=(3, 4)),
                Observation(ObservationKind.DICE, None, dice=(2, 2)),
                Observation(ObservationKind.DEAL, None)):
        running.call(lambda o=obs: svc.table.observe(o, 0))
    camera.start()
    assert wait_until(lambda: camera.frames >= 2, 60), camera.status()
    layout.tiles.append(TilePlacement("RD", x=450, y=640, angle=0))  # East's discard
    assert wait_until(lambda: bool(svc.table.pending), 90), camera.status()
    pid, held = next(iter(svc.table.pending.items()))
    assert held["kind"] == "discard" and held["seat"] == "E" and held["time_us"] > 0
    url = running.url
    # a viewer asking for it is refused, and is given no picture
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{url}api/crop/{pid}", timeout=10)
    assert refused.value.code == 401
    browser.get(url + "console")
    password_field(browser).send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#signin button").click()
    question = wait_for(lambda: browser.find_elements(
        By.CSS_SELECTOR, f'li.question[data-pending="{pid}"][data-crop="shown"]'), 20,
        "the question with its crop")[0]
    crop = question.find_element(By.CSS_SELECTOR, "img.crop")
    assert browser.execute_script("return arguments[0].naturalWidth", crop) == 144
    # the crop is the camera's, cut from the frame the pipeline scanned: what the service
    # kept for this very observation
    kept = svc.crops.get(held)
    served = browser.execute_async_script(
        "const done = arguments[1];"
        "fetch('/api/crop/' + arguments[0]).then(r => r.arrayBuffer())"
        ".then(b => done(Array.from(new Uint8Array(b))))", pid)
    assert bytes(served) == kept
    shot(browser, "console-crop.png")
    assert console_errors(browser) == []
