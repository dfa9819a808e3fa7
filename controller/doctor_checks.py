"""The checks of `mjtable doctor`: each step of the build guide (docs/build/) that a command can
check, against the real thing the table file names (camera, board, broker, store, model).

Each check returns one :class:`Finding`: ``ok``, ``warn`` (works, but not as the guide aims),
``fail`` (the service would not work so) or ``skipped`` (the table has no such part, or a
check it needs failed first). A finding says what was seen and, when not ok, what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from config.schema import TableConfig

# Tile widths in camera pixels (docs/vision.md, "Frame size"): at 28 px the held-out sets are
# named at 98-99.7 %, at 22 px 94.8-98.5 %; below that identity falls fast.
TILE_PX_AIM = 28
TILE_PX_LEAST = 22
REFERENCE_FIRMWARE = Path(__file__).resolve().parent.parent / "firmware_bridge" / "firmware"


@dataclass
class Finding:
    check: str
    status: str  # ok | warn | fail | skipped
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"check": self.check, "status": self.status, "message": self.message,
                **self.details}


@dataclass
class Context:
    """What the checks share: the table file, and what earlier checks found."""

    cfg: TableConfig
    timeout_s: float = 5.0
    led_step_s: float = 0.4
    frame: Any = None
    board: Any = None  # firmware_bridge.events.BoardInfo once the board answered
    board_url: str = ""


# -- camera and markers -------------------------------------------------------------------------

def check_camera(ctx: Context) -> Finding:
    cam = ctx.cfg.camera
    if cam.source == "none":
        return Finding("camera", "skipped", "camera.source is none: this table has no camera")
    from vision.capture import CameraUnavailable, open_source

    asked = (cam.width, cam.height)
    try:
        source = open_source(cam.source, asked)
        try:
            frame = source.read()
        finally:
            source.close()
    except (CameraUnavailable, OSError) as exc:
        return Finding("camera", "fail", f"{cam.source}: {exc}",
                       {"source": cam.source, "hint": "docs/build/mounting.md"})
    ctx.frame = frame
    height, width = frame.shape[:2]
    details = {"source": cam.source, "frame": [width, height], "asked": list(asked)}
    if cam.source.startswith(("picamera2", "v4l2:")) and (width, height) != asked:
        return Finding("camera", "warn", f"asked {asked[0]}x{asked[1]}, the camera gives "
                       f"{width}x{height}: fewer pixels on a tile", details)
    return Finding("camera", "ok", f"a {width}x{height} frame from {cam.source}", details)


def check_markers(ctx: Context) -> Finding:
    if ctx.frame is None:
        return Finding("markers", "skipped", "no frame from a camera to look for them in")
    import numpy as np

    from controller.table_geometry import table_geometry
    from vision.calibration import CalibrationError, calibrate

    geometry = table_geometry(ctx.cfg.camera)
    try:
        calibration = calibrate(ctx.frame, geometry)
    except CalibrationError as exc:
        return Finding("markers", "fail", str(exc), {"hint": "docs/build/markers.md"})
    # Pixels across one tile, where the table is seen most coarsely (its far corners included).
    tile_px = min(
        _pixels_across(calibration, x, y, geometry.tile_w_mm)
        for x, y in ((geometry.size_mm / 2, geometry.size_mm / 2), (100.0, 100.0),
                     (geometry.size_mm - 100, 100.0), (100.0, geometry.size_mm - 100),
                     (geometry.size_mm - 100, geometry.size_mm - 100))
    )
    details: dict[str, Any] = {
        "reprojection_error_px": round(calibration.reprojection_error_px, 3),
        "tile_px": round(tile_px, 1),
        "tile_mm": [geometry.tile_w_mm, geometry.tile_h_mm],
        "aim_px": TILE_PX_AIM,
    }
    details.update(_saved_calibration(ctx, calibration, np))
    if tile_px < TILE_PX_LEAST:
        return Finding("markers", "fail", f"a tile is {tile_px:.0f} px wide in the camera, "
                       f"under {TILE_PX_LEAST}: lower the camera or ask a larger frame "
                       "(docs/build/mounting.md)", details)
    if round(tile_px) < TILE_PX_AIM:
        return Finding("markers", "warn", f"all four markers seen; a tile is {tile_px:.0f} px "
                       f"wide, the guide aims at {TILE_PX_AIM} (docs/build/mounting.md)", details)
    if details.get("saved_calibration_moved_px", 0) > 3:
        return Finding("markers", "warn", "the camera or the markers moved since the saved "
                       "calibration: delete it, the service calibrates anew", details)
    return Finding("markers", "ok", f"all four markers seen; a tile is {tile_px:.0f} px wide",
                   details)


def _pixels_across(calibration: Any, x: float, y: float, width_mm: float) -> float:
    import numpy as np

    ends = calibration.to_frame(np.array([[x - width_mm / 2, y], [x + width_mm / 2, y]]))
    return float(np.linalg.norm(ends[1] - ends[0]))


def _saved_calibration(ctx: Context, now: Any, np: Any) -> dict[str, Any]:
    """How far the saved calibration file's corners are from what the markers say now."""
    path = ctx.cfg.camera.calibration
    if not path or not Path(path).exists():
        return {}
    from vision.calibration import Calibration

    try:
        saved = Calibration.load(Path(path))
    except Exception as exc:  # a damaged file is a finding, not a crash
        return {"saved_calibration": f"unreadable: {exc}"}
    if saved.image_size != now.image_size:
        return {"saved_calibration": "for another frame size: made anew at start"}
    size = now.geometry.size_mm
    corners = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float64)
    moved = np.linalg.norm(saved.to_frame(corners) - now.to_frame(corners), axis=1).max()
    return {"saved_calibration": path, "saved_calibration_moved_px": round(float(moved), 1)}


# -- board and LEDs -----------------------------------------------------------------------------

def reference_firmware_version() -> str | None:
    """The version the firmware in this checkout announces (``FIRMWARE`` in table_firmware.py)."""
    with contextlib.suppress(OSError):
        text = (REFERENCE_FIRMWARE / "table_firmware.py").read_text(encoding="utf-8")
        found = re.search(r'^FIRMWARE = "([^"]+)"', text, re.M)
        return found.group(1) if found else None
    return None


def check_board_and_leds(ctx: Context) -> list[Finding]:
    """The board's handshake, then each LED segment lit in turn: one link for both."""
    url = ctx.cfg.board.serial
    if not url:
        why = "board.serial is empty: a GPIO-only table"
        return [Finding("board", "skipped", why), Finding("leds", "skipped", why)]
    if url == "emulated":
        why = "board.serial is emulated: the service starts its own emulated board"
        return [Finding("board", "skipped", why), Finding("leds", "skipped", why)]
    return asyncio.run(_board_and_leds(ctx, url))


async def _board_and_leds(ctx: Context, url: str) -> list[Finding]:
    from firmware_bridge.link import BoardLink, LinkError

    async with BoardLink(url, baudrate=ctx.cfg.board.baudrate) as link:
        try:
            info = await link.wait_up(ctx.timeout_s)
        except LinkError as exc:
            hint = {"hint": "docs/build/flashing.md", "serial": url}
            return [Finding("board", "fail", str(exc), hint),
                    Finding("leds", "skipped", "no board to drive them")]
        board = _board_finding(ctx, info)
        if board.status == "fail":
            return [board, Finding("leds", "skipped", "the board failed its check")]
        return [board, await _sweep_leds(ctx, link, info)]


def _board_finding(ctx: Context, info: Any) -> Finding:
    reference = reference_firmware_version()
    details = {
        "serial": ctx.cfg.board.serial,
        "firmware": info.firmware,
        "protocol": list(info.protocol),
        "board_id": info.board_id,
        "seats": info.seats,
        "buttons_per_seat": info.buttons_per_seat,
        "reference_firmware": reference,
    }
    wanted = len(ctx.cfg.board.buttons)
    if info.buttons_per_seat < wanted:
        return Finding("board", "fail", f"the board has {info.buttons_per_seat} buttons a seat, "
                       f"board.buttons names {wanted}", details)
    if reference is not None and info.firmware != reference:
        return Finding("board", "fail", f"the board runs {info.firmware}, this checkout's "
                       f"firmware is {reference}: flash it again (docs/build/flashing.md)",
                       details)
    return Finding("board", "ok", f"{info.firmware} on board {info.board_id}, protocol "
                   f"{info.protocol[0]}.{info.protocol[1]}", details)


async def _sweep_leds(ctx: Context, link: Any, info: Any) -> Finding:
    from firmware_bridge.link import LinkError

    segments = ctx.cfg.leds.segments
    wanted = [s.count for s in segments]
    details: dict[str, Any] = {"segments": {s.name: s.count for s in segments},
                               "board_segments": list(info.segments)}
    if list(info.segments[: len(wanted)]) != wanted:
        return Finding("leds", "fail", f"[leds] segments have {wanted} LEDs, the board "
                       f"announces {list(info.segments)}: edit one to match the other", details)
    level = max(1, round(ctx.cfg.leds.brightness * 80))
    try:
        for index in range(len(segments)):
            await link.fill(index, (level, level, level))
            await link.drain(ctx.timeout_s)
            await asyncio.sleep(ctx.led_step_s)
            await link.leds_off(index)
        await link.drain(ctx.timeout_s)
    except (LinkError, TimeoutError) as exc:
        return Finding("leds", "fail", f"the board did not take the LED commands: {exc}",
                       details)
    names = ", ".join(s.name for s in segments)
    return Finding("leds", "ok", f"each segment lit white in turn ({names}): look that each "
                   "lit whole and in that order", details)


# -- broker, store, enrolled set -------------------------------------------------------------

def check_broker(ctx: Context) -> Finding:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from controller.service import broker_of

    if not ctx.cfg.mqtt.enabled:
        return Finding("broker", "skipped", "mqtt.enabled is false")
    try:
        settings = broker_of(ctx.cfg)
    except OSError as exc:
        return Finding("broker", "fail", f"cannot read mqtt.password_file: {exc}")
    assert settings is not None
    answer: dict[str, Any] = {}
    done = threading.Event()

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        answer["reason"] = str(reason)
        answer["failed"] = reason.is_failure
        done.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{ctx.cfg.table.id}-doctor",
                         protocol=mqtt.MQTTv5)
    if settings.username:
        client.username_pw_set(settings.username, settings.password or None)
    if settings.tls:
        import ssl

        client.tls_set(cert_reqs=ssl.CERT_REQUIRED)
    client.on_connect = on_connect
    where = {"host": settings.host, "port": settings.port, "username": settings.username}
    try:
        client.connect(settings.host, settings.port, keepalive=10)
    except (OSError, ValueError) as exc:
        return Finding("broker", "fail", f"{settings.host}:{settings.port}: {exc}", where)
    client.loop_start()
    try:
        if not done.wait(ctx.timeout_s):
            return Finding("broker", "fail", f"no answer from {settings.host}:{settings.port} "
                           f"within {ctx.timeout_s} s", where)
    finally:
        client.disconnect()
        client.loop_stop()
    if answer["failed"]:
        return Finding("broker", "fail", f"the broker refused the table: {answer['reason']}",
                       where)
    return Finding("broker", "ok", f"connected to {settings.host}:{settings.port}"
                   + (f" as {settings.username}" if settings.username else ""), where)


def check_store(ctx: Context) -> Finding:
    path = ctx.cfg.store.path
    if not path:
        return Finding("store", "skipped", "store.path is empty: a temporary store")
    file = Path(path)
    if not file.exists():
        parent = _nearest_existing(file.parent)
        import os

        if os.access(parent, os.W_OK):
            return Finding("store", "ok", f"{path} does not exist yet: the service makes it "
                           "at its first start", {"path": path})
        return Finding("store", "fail", f"{path} does not exist and {parent} is not writable "
                       "by this user", {"path": path})
    try:
        db = sqlite3.connect(f"file:{file}?mode=ro", uri=True, timeout=ctx.timeout_s)
        try:
            verdict = db.execute("PRAGMA quick_check").fetchone()[0]
            events = db.execute("SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM events").fetchone()
            outbox = db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as exc:
        return Finding("store", "fail", f"{path}: {exc}", {"path": path})
    details = {"path": path, "events": events[0], "last_seq": events[1], "outbox": outbox}
    if verdict != "ok":
        return Finding("store", "fail", f"{path} is damaged: {verdict}", details)
    return Finding("store", "ok", f"{events[0]} events, {outbox} waiting for the broker",
                   details)


def _nearest_existing(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def check_enrolled(ctx: Context) -> Finding:
    model = ctx.cfg.camera.model
    if ctx.cfg.camera.source == "none":
        return Finding("enrolled", "skipped", "no camera: nothing to recognise")
    if not model:
        return Finding("enrolled", "warn", "camera.model is empty: the bundled prototypes, not "
                       "this table's own tiles; enrol them (docs/build/enrolment.md)")
    from vision.embedder import ModelError
    from vision.identify import Recogniser

    try:
        recogniser = Recogniser.load(Path(model))
    except (ModelError, OSError, ValueError) as exc:
        return Finding("enrolled", "fail", f"{model}: {exc}", {"model": model})
    kinds = recogniser.kinds
    from controller.guided_enrol import set_kinds

    missing = [k for k in set_kinds(ctx.cfg.table.ruleset) if k not in kinds]
    per_kind = {k: recogniser.labels.count(k) for k in kinds}
    details = {"model": model, "kinds": len(kinds), "missing": missing,
               "fewest_vectors": min(per_kind.values()) if per_kind else 0}
    if missing:
        return Finding("enrolled", "fail", f"{len(missing)} kinds of this table's set are not "
                       f"enrolled: {' '.join(missing)}", details)
    return Finding("enrolled", "ok", f"{len(kinds)} kinds enrolled, every kind of the set",
                   details)
