"""The table service: one asyncio loop wiring inputs to the table and the table to outputs.

Inputs arrive from several threads (gpiozero's, paho's, a camera loop's) and from tasks (the
board link); every one is posted to the loop's inbox, and only the loop touches the
:class:`~controller.table.Table`. The loop also ticks the call window, keeps a status file
for ``mjtable status``, and calls ``on_tick`` (the systemd watchdog) only while it is
healthy: a stuck loop stops feeding the watchdog and systemd restarts the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from config.schema import TableConfig
from controller.american_table import AmericanTable
from controller.inputs import Observation, ObservationKind, Press
from controller.lights import LightLog
from controller.mqtt import BrokerSettings, MqttLink
from controller.scoresheet import Scorer
from controller.store import EventStore, StoreError
from controller.table import Table, TableSettings
from engine.american.family import is_american

log = logging.getLogger("mjtable.service")


class ServiceStartError(RuntimeError):
    """A part the config names cannot start here; ``key`` is the config key to look at."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(message)


def now_us() -> int:
    return time.monotonic_ns() // 1000


@dataclass
class ServiceOptions:
    store_path: str
    board_url: str | None = None  # None: no board
    broker: BrokerSettings | None = None  # None: no MQTT
    client_id: str = ""
    scorer: Scorer | None = None
    gpio_factory: Any = None
    status_file: str | None = None
    tick_s: float = 0.005


def settings_of(cfg: TableConfig) -> TableSettings:
    return TableSettings(
        table_id=cfg.table.id,
        ruleset=cfg.table.ruleset,
        options=dict(cfg.table.options),
        courtesy_pause_ms=cfg.adjudication.courtesy_pause_ms,
        press_latency_ms=cfg.adjudication.press_latency_ms,
        min_confidence=cfg.adjudication.min_confidence,
        snapshot_every=cfg.store.snapshot_every,
        players={seat: section.player for seat, section in cfg.seats.items() if section.player},
        topic_prefix=cfg.mqtt.topic_prefix,
        publish=cfg.mqtt.enabled or cfg.web.enabled,  # the page is fed what MQTT would be
        scoring=cfg.table.scoring,
        hands_per_game=cfg.table.hands_per_game,
    )


def broker_of(cfg: TableConfig) -> BrokerSettings | None:
    m = cfg.mqtt
    if not m.enabled:
        return None
    password = ""
    if m.password_file:
        password = Path(m.password_file).read_text().strip()
    return BrokerSettings(m.host, m.port, m.username, password, m.tls, m.keepalive)


class Service:
    def __init__(self, cfg: TableConfig, options: ServiceOptions) -> None:
        self.cfg = cfg
        self.options = options
        self._hold_store(options.store_path)
        self.store = EventStore(options.store_path)
        self.lights = LightLog()
        self.mqtt: MqttLink | None = None
        if options.broker is not None:
            self.mqtt = MqttLink(
                options.broker,
                _topics(cfg),
                self.store,
                options.client_id or cfg.table.id,
                on_command=self._command_from_thread,
            )
        self.table: Table | AmericanTable
        if is_american(cfg.table.ruleset):
            # Its own engine and its own adapter (controller/american_table.py).
            self.table = AmericanTable(
                settings_of(cfg),
                self.store,
                self.lights,
                on_append=self.mqtt.kick if self.mqtt else None,
            )
        else:
            self.table = Table(
                settings_of(cfg),
                self.store,
                self.lights,
                on_append=self.mqtt.kick if self.mqtt else None,
                scorer=options.scorer,
            )
        self.board: Any = None  # the BoardLink once open
        self.board_lights: Any = None
        self.camera: Any = None
        self.face: Any = None  # the page server, once open
        self.presses_handled = 0
        self.board_duplicates = 0  # board events resent after a restart, already applied
        self.press_to_led_ms: deque[float] = deque(maxlen=10_000)
        self.started = time.time()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: asyncio.Queue[tuple[str, Any, asyncio.Future[Any] | None]] | None = None
        self._status_due = 0.0

    def _hold_store(self, path: str) -> None:
        """One service per store: a second one would interleave two tables' sequences."""
        if path == ":memory:":
            return
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = open(f"{path}.lock", "a+")  # noqa: SIM115 - held for the service's life
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise StoreError(f"{path}: another table service is using this store") from None

    def _release_store(self) -> None:
        lock = getattr(self, "_lock", None)
        if lock is not None:
            lock.close()

    # -- thread-safe inputs (InputSink) ----------------------------------------------------

    def _post(self, kind: str, payload: Any) -> None:
        loop, inbox = self._loop, self._inbox
        if loop is None or inbox is None:
            log.warning("input %s before the service runs: dropped", kind)
            return
        try:
            loop.call_soon_threadsafe(inbox.put_nowait, (kind, payload, None))
        except RuntimeError:  # the loop has closed: the service is stopping
            log.warning("input %s while stopping: dropped", kind)

    def press(self, press: Press) -> None:
        self._post("press", press)

    def observe(self, observation: Observation) -> None:
        self._post("observe", observation)

    def _command_from_thread(self, verb: str, payload: bytes) -> None:
        self._post("command", (verb, payload))

    async def submit(self, kind: str, payload: Any) -> Any:
        """From a task on the service's loop: post and wait for the result."""
        assert self._inbox is not None and self._loop is not None
        future: asyncio.Future[Any] = self._loop.create_future()
        self._inbox.put_nowait((kind, payload, future))
        return await future

    # -- the loop --------------------------------------------------------------------------

    def _handle(self, kind: str, payload: Any) -> Any:
        if kind in ("board_press", "board_dice"):
            return self._board_input(kind, payload)
        now = now_us()
        if kind == "press":
            self.presses_handled += 1
            outcome = self.table.press(payload, now)
            shown = self.lights.last()
            if shown is not None and shown.pattern.seat == payload.seat:
                # Button edge (board clock, mapped to ours) to the LED answer handed out.
                self.press_to_led_ms.append((shown.at_ns // 1000 - payload.time_us) / 1000)
            return outcome
        if kind == "observe":
            return self.table.observe(payload, now)
        if kind == "dice":
            values, when = payload
            seat = self.table.next_thrower()
            obs = Observation(ObservationKind.DICE, seat, dice=values, time_us=when, source="board")
            return self.table.observe(obs, now)
        if kind == "command":
            verb, body = payload
            result = self.table.command(verb, body, now)
            if verb == "roll" and result.get("ok") and self.board is not None:
                self._spawn(self.board.show_dice(self.table.last_dice))
            return result
        raise ValueError(f"unknown input kind {kind!r}")

    def _board_input(self, kind: str, payload: Any) -> Any:
        """A board event, keyed ``(boot_id, seq)``: applied at most once across restarts (its
        key is stored with what it causes), then confirmed so the board may forget it."""
        body, key = payload
        if self.store.board_event_applied(key):
            self.board_duplicates += 1
            log.info("board event %s was applied before this restart: skipped", key)
            self._board_done(key)
            return None
        self.table.source_key, self.table.source_key_stored = key, False
        try:
            result = self._handle("press" if kind == "board_press" else "dice", body)
        except Exception:
            self._board_done(key)  # a fault in applying it: retrying would fault again
            raise
        finally:
            self.table.source_key = None
        self._board_done(key)
        return result

    def _board_done(self, key: tuple[int, int]) -> None:
        stored, self.table.source_key_stored = self.table.source_key_stored, False
        if not stored:
            try:
                self.store.set_board_key(key)  # it caused nothing else to store
            except Exception:  # the store is failing: the board keeps the event for later
                log.exception("board event %s: not confirmed, its key could not be stored", key)
                return
        if self.board is not None:
            self.board.confirm(key)

    def _spawn(self, coro: Any) -> None:
        assert self._loop is not None
        task = self._loop.create_task(coro)
        task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def run(
        self,
        stop: asyncio.Event,
        on_ready: Callable[[], None] | None = None,
        on_tick: Callable[[], None] | None = None,
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._inbox = asyncio.Queue()
        async with contextlib.AsyncExitStack() as stack:
            # Closed in reverse: the lights, then MQTT (which drains from the store), then
            # the store itself.
            stack.callback(self._release_store)
            stack.callback(self.store.close)
            if self.mqtt is not None:
                self.mqtt.start()
                stack.callback(self.mqtt.stop)
            stack.callback(self.lights.close)
            if self.options.board_url:
                await self._open_board(stack)
            if self.cfg.gpio.enabled:
                self._open_gpio(stack)
            if self.cfg.camera.source != "none":
                self._open_camera(stack)
            self.table.start()
            if self.cfg.web.enabled:  # the table's page (controller/web, docs/face.md)
                from controller.web.hosting import open_face

                self.face = await open_face(self, stack)
            self._write_status()
            if on_ready is not None:
                on_ready()
            while not stop.is_set():
                await self._step()
                self.table.tick(now_us())
                if on_tick is not None:
                    on_tick()
                if time.monotonic() >= self._status_due:
                    self._write_status()

    async def _step(self) -> None:
        assert self._inbox is not None
        try:
            kind, payload, future = await asyncio.wait_for(
                self._inbox.get(), timeout=self.options.tick_s
            )
        except TimeoutError:
            return
        try:
            result = self._handle(kind, payload)
        except Exception as exc:  # nothing an input does may take the service down
            log.exception("input %s failed", kind)
            if future is not None and not future.done():
                future.set_exception(exc)
            return
        if future is not None and not future.done():
            future.set_result(result)

    async def _open_board(self, stack: contextlib.AsyncExitStack) -> None:
        from controller.board_io import BoardLights, pump_board_events
        from firmware_bridge.host import LinkSettings
        from firmware_bridge.link import BoardLink

        assert self.options.board_url is not None and self._inbox is not None
        inbox = self._inbox
        link = BoardLink(
            self.options.board_url,
            baudrate=self.cfg.board.baudrate,
            # The board keeps each event until the service has stored it: a crash between
            # the two loses no press (docs/protocol.md, Host API).
            settings=LinkSettings(ack_after_apply=True),
            on_state_change=self._board_state_changed,
        )
        self.board_lights = BoardLights(
            link, [s.name for s in self.cfg.leds.segments], self.cfg.leds.brightness
        )
        self.lights.backends.append(self.board_lights)
        await stack.enter_async_context(link)
        self.board = link
        pump = asyncio.get_running_loop().create_task(
            pump_board_events(
                link,
                list(self.cfg.board.buttons),
                lambda p, key: inbox.put_nowait(("board_press", (p, key), None)),
                lambda v, t, key: inbox.put_nowait(("board_dice", ((v, t), key), None)),
            ),
            name="board-events",
        )
        stack.callback(pump.cancel)

    def _board_state_changed(self, state: Any, detail: str) -> None:
        if self.board_lights is not None:
            self.board_lights.link_state_changed(state, detail)
        if detail == "board restarted" and self.table.last_dice and self.board is not None:
            self._spawn(self.board.show_dice(self.table.last_dice))  # LED dice woke up blank

    def _open_gpio(self, stack: contextlib.ExitStack | contextlib.AsyncExitStack) -> None:
        from controller.gpio import GpioButtons, GpioLights, pin_factory

        try:
            factory = self.options.gpio_factory or pin_factory(self.cfg.gpio.factory)
            buttons = GpioButtons(self.cfg.gpio, self, factory)
            stack.callback(buttons.close)
            lights = GpioLights(self.cfg.gpio, factory)
        except Exception as exc:  # no such back end here, a pin in use, not a Pi
            raise ServiceStartError(
                "gpio.factory", f"GPIO ({self.cfg.gpio.factory}) cannot start: {exc}"
            ) from None
        self.lights.backends.append(lights)

    def _open_camera(self, stack: contextlib.AsyncExitStack) -> None:
        from controller.camera import CameraLoop
        from controller.table_geometry import table_geometry
        from engine.rules import get_ruleset

        cam = self.cfg.camera
        self.camera = CameraLoop(
            cam.source,
            self,
            calibration=cam.calibration,
            model_dir=cam.model,
            fps=cam.fps,
            hidden_margin_mm=cam.hidden_margin_mm,
            frame_size=(cam.width, cam.height),
            geometry=table_geometry(cam),
            # The American set is 152 tiles (eight Jokers beside the eight Flowers).
            set_size=152 if is_american(self.cfg.table.ruleset)
            else get_ruleset(self.cfg.table.ruleset).tiles,
            showing=lambda: self.table.showing_hands(),
            passing=lambda: self.table.passing(),
        )
        self.camera.start()
        stack.callback(self.camera.stop)

    # -- status ----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pid": os.getpid(),
            "started": round(self.started, 3),
            "updated": round(time.time(), 3),
            **self.table.status(),
        }
        if self.mqtt is not None:
            out["mqtt"] = {
                "connected": self.mqtt.connected,
                "delivered": self.mqtt.delivered_count,
                "last_error": self.mqtt.last_error,
            }
        if self.camera is not None:
            out["camera"] = self.camera.status()
        if self.face is not None:
            out["web"] = {"url": self.face.url, "pages": len(self.face.feed.pages),
                          "dropped": self.face.feed.dropped}
        if self.board is not None:
            link = self.board.status()
            out["board"] = {
                "state": link.state.value,
                "detail": link.detail,
                "resent_skipped": self.board_duplicates,
                "leds_replayed": self.board_lights.replays if self.board_lights else 0,
            }
        return out

    def _write_status(self) -> None:
        self._status_due = time.monotonic() + 1.0
        path = self.options.status_file
        if not path:
            return
        tmp = f"{path}.tmp"
        try:
            Path(tmp).write_text(json.dumps(self.status()))
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("status file %s: %s", path, exc)


def _topics(cfg: TableConfig) -> Any:
    from controller.mqtt import Topics

    return Topics(cfg.table.id, cfg.mqtt.topic_prefix)

