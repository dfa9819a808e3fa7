"""The table service: one asyncio loop wiring inputs to the table and the table to outputs.

Inputs arrive from several threads (gpiozero's, paho's, a camera loop's) and from tasks (the
board link); every one is posted to the loop's inbox as a typed message (controller/inbox.py),
and only the loop touches the table, which the ruleset's family provides
(:func:`controller.families.table_for`): the service never asks which family it serves. The
loop also ticks the call window, keeps a status file for ``mjtable status``, and calls
``on_tick`` (the systemd watchdog) only while it is healthy: a stuck loop stops feeding the
watchdog and systemd restarts the service. Background tasks run in one ``TaskGroup``; one
that fails is logged and listed on ``status``, never swallowed.
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
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from config.schema import TableConfig
from controller.crops import TileCrops
from controller.families import table_for
from controller.inbox import (
    BoardCaughtUp,
    BoardIn,
    CommandIn,
    DiceIn,
    Message,
    ObserveIn,
    PressIn,
)
from controller.inputs import Observation, ObservationKind, Press
from controller.lights import LightLog
from controller.mqtt import BrokerSettings, MqttLink
from controller.scoresheet import Scorer
from controller.store import EventStore, StoreError
from controller.table import Table, TableSettings

if TYPE_CHECKING:
    from controller.board_io import BoardLights
    from firmware_bridge.events import BoardInfo, LinkState, LinkStatus
    from firmware_bridge.link import BoardLink

log = logging.getLogger("mjtable.service")

# A call window open at a restart waits at most this long for a board that does not answer
# before it closes on time (the presses the board holds are then judged late).
RESTART_HOLD_S = 5.0


class ServiceStartError(RuntimeError):
    """A part the config names cannot start here; ``key`` is the config key to look at."""

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(message)


class Board(Protocol):
    """What the service asks of the table's microcontroller link (firmware_bridge.link)."""

    async def show_dice(self, values: Sequence[int]) -> None: ...
    def confirm(self, key: tuple[int, int]) -> None: ...
    def status(self) -> LinkStatus: ...
    async def wait_up(self, timeout: float = 5.0) -> BoardInfo: ...


class Camera(Protocol):
    """What the service asks of the camera loop (controller/camera.py)."""

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def status(self) -> dict[str, Any]: ...


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
        ruleset=cfg.table.plays,
        options=dict(cfg.table.options),
        card=cfg.table.card,
        courtesy_pause_ms=cfg.adjudication.courtesy_pause_ms,
        press_latency_ms=cfg.adjudication.press_latency_ms,
        min_confidence=cfg.adjudication.min_confidence,
        snapshot_every=cfg.store.snapshot_every,
        players={seat: section.player for seat, section in cfg.seats.items() if section.player},
        topic_prefix=cfg.mqtt.topic_prefix,
        publish=cfg.mqtt.enabled or cfg.web.enabled,  # the page is fed what MQTT would be
        scoring=cfg.table.scores if cfg.table.scores != cfg.table.plays else "",
        hands_per_game=cfg.table.hands_per_game,
    )


def broker_of(cfg: TableConfig) -> BrokerSettings | None:
    m = cfg.mqtt
    if not m.enabled:
        return None
    password = ""
    if m.password_file:
        password = Path(m.password_file).read_text().strip()
    return BrokerSettings(m.host, m.port, m.username, password, m.tls, m.keepalive,
                          ca_file=m.ca_file)


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
        self.table: Table = table_for(
            settings_of(cfg),
            self.store,
            self.lights,
            on_append=self.mqtt.kick if self.mqtt else None,
            scorer=options.scorer,
            parts_status=self._parts_status,
        )
        self.board: Board | None = None  # the link once open
        self._board_link: BoardLink | None = None
        # A window open at the restart: the last event the board held, (boot_id, seq), once
        # its first handshake said; and how long the window may wait for it.
        self._held_through: tuple[int, int] | None = None
        self._handshake_seen = False
        self._hold_until: float | None = None
        # The board's link state and since when (UTC), for status and the MQTT status topic.
        self.board_state: dict[str, str] | None = None
        self.board_lights: BoardLights | None = None
        self.camera: Camera | None = None
        # The camera's crops of doubtful tiles, for the referee's console (controller/crops.py)
        self.crops = TileCrops()
        self.failed_tasks: deque[dict[str, str]] = deque(maxlen=20)
        self._tasks: asyncio.TaskGroup | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._pump: Callable[[], Coroutine[Any, Any, None]] | None = None
        self.face: Any = None  # the page server, once open
        self.presses_handled = 0
        self.board_duplicates = 0  # board events resent after a restart, already applied
        self.press_to_led_ms: deque[float] = deque(maxlen=10_000)
        self.started = time.time()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: asyncio.Queue[tuple[Message, asyncio.Future[Any] | None]] | None = None
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

    def _post(self, message: Message) -> None:
        loop, inbox = self._loop, self._inbox
        if loop is None or inbox is None:
            log.warning("input %s before the service runs: dropped", message)
            return
        try:
            loop.call_soon_threadsafe(inbox.put_nowait, (message, None))
        except RuntimeError:  # the loop has closed: the service is stopping
            log.warning("input %s while stopping: dropped", message)

    def press(self, press: Press) -> None:
        self._post(PressIn(press))

    def observe(self, observation: Observation) -> None:
        self._post(ObserveIn(observation))

    def _command_from_thread(self, verb: str, payload: bytes) -> None:
        self._post(CommandIn(verb, payload))

    async def submit(self, message: Message) -> Any:
        """From a task on the service's loop: post and wait for the result."""
        assert self._inbox is not None and self._loop is not None
        future: asyncio.Future[Any] = self._loop.create_future()
        self._inbox.put_nowait((message, future))
        return await future

    # -- the loop --------------------------------------------------------------------------

    def _handle(self, message: Message) -> Any:
        now = now_us()
        match message:
            case BoardIn(event=event, key=key):
                return self._board_input(event, key)
            case PressIn(press=press):
                self.presses_handled += 1
                held = self.table.window.held  # kept by the board over a restart: not timed
                outcome = self.table.press(press, now)
                shown = self.lights.last()
                if shown is not None and shown.pattern.seat == press.seat and not held:
                    # Button edge (board clock, mapped to ours) to the LED answer handed out.
                    self.press_to_led_ms.append((shown.at_ns // 1000 - press.time_us) / 1000)
                return outcome
            case ObserveIn(observation=observation):
                return self.table.observe(observation, now)
            case DiceIn(values=values, time_us=when):
                seat = self.table.next_thrower()
                obs = Observation(ObservationKind.DICE, seat, dice=values, time_us=when,
                                  source="board")
                return self.table.observe(obs, now)
            case BoardCaughtUp():
                return self._release_window("every press the board held is taken", now)
            case CommandIn(verb=verb, payload=payload):
                result = self.table.command(verb, payload, now)
                if verb == "roll" and result.get("ok") and self.board is not None:
                    self._spawn(self.board.show_dice(self.table.last_dice), "show-dice")
                return result

    def _board_input(self, event: PressIn | DiceIn, key: tuple[int, int]) -> Any:
        """A board event, keyed ``(boot_id, seq)``: applied at most once across restarts (its
        key is stored with what it causes), then confirmed so the board may forget it."""
        if self.store.board_event_applied(key):
            self.board_duplicates += 1
            log.info("board event %s was applied before this restart: skipped", key)
            self._board_done(key, stored=False)
            return None
        try:
            with self.table.caused_by(key) as mark:
                return self._handle(event)
        finally:
            # Confirmed after a fault in applying it too: retrying would fault again.
            self._board_done(key, mark.stored)

    def _board_done(self, key: tuple[int, int], stored: bool) -> None:
        if not stored:
            try:
                self.store.set_board_key(key)  # it caused nothing else to store
            except Exception:  # the store is failing: the board keeps the event for later
                log.exception("board event %s: not confirmed, its key could not be stored", key)
                return
        if self.board is not None:
            self.board.confirm(key)

    def _spawn(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``work`` in the service's task group; a failure is logged and listed on
        ``status`` (``failed_tasks``), and the service goes on."""
        if self._tasks is None:
            work.close()
            log.warning("task %s while the service is not running: not started", name)
            return
        task = self._tasks.create_task(self._reported(work, name), name=name)
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _reported(self, work: Coroutine[Any, Any, Any], name: str) -> None:
        try:
            await work
        except Exception as exc:
            log.exception("task %s failed", name)
            self.failed_tasks.append({"task": name, "error": f"{type(exc).__name__}: {exc}",
                                      "at": time.strftime("%Y-%m-%dT%H:%M:%S")})

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
            self._hold_window_for_board()
            if self.cfg.web.enabled:  # the table's page (controller/web, docs/face.md)
                from controller.web.hosting import open_face

                self.face = await open_face(self, stack)
            await self._serve(stop, on_ready, on_tick)

    async def _serve(
        self,
        stop: asyncio.Event,
        on_ready: Callable[[], None] | None,
        on_tick: Callable[[], None] | None,
    ) -> None:
        """The loop, with the background tasks in one group, cancelled when it stops."""
        failure: Exception | None = None
        async with asyncio.TaskGroup() as tasks:
            self._tasks = tasks
            try:
                if self._pump is not None:
                    self._spawn(self._pump(), "board-events")
                self._write_status()
                if on_ready is not None:
                    on_ready()
                while not stop.is_set():
                    await self._step()
                    self.table.tick(now_us())
                    if self._hold_until is not None and time.monotonic() >= self._hold_until:
                        self._release_window(
                            f"the board did not answer within {RESTART_HOLD_S:g} s", now_us())
                    if on_tick is not None:
                        on_tick()
                    if time.monotonic() >= self._status_due:
                        self._write_status()
            except Exception as exc:  # raised as itself, not in the group's ExceptionGroup
                failure = exc
            finally:
                self._tasks = None
                for task in list(self._running):
                    task.cancel()
        if failure is not None:
            raise failure

    async def _step(self) -> None:
        assert self._inbox is not None
        try:
            message, future = await asyncio.wait_for(
                self._inbox.get(), timeout=self.options.tick_s
            )
        except TimeoutError:
            return
        try:
            result = self._handle(message)
        except Exception as exc:  # nothing an input does may take the service down
            log.exception("input %s failed", type(message).__name__)
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
        self._board_link = link
        self._note_board_state("connecting", f"opening {self.options.board_url}", self.started)
        self.board_lights = BoardLights(
            link, [s.name for s in self.cfg.leds.segments], self.cfg.leds.brightness
        )
        self.lights.backends.append(self.board_lights)
        await stack.enter_async_context(link)
        self.board = link
        buttons = list(self.cfg.board.buttons)
        self._pump = lambda: pump_board_events(
            link,
            buttons,
            lambda p, key: inbox.put_nowait((BoardIn(PressIn(p), key), None)),
            lambda v, t, key: inbox.put_nowait((BoardIn(DiceIn(tuple(v), t), key), None)),
            self._board_event_taken,
        )

    def _parts_status(self) -> dict[str, Any]:
        """The parts around the table, for ``cmd/status``: the board, once its link opened."""
        return {} if self.board_state is None else {"board": self.board_state}

    def _note_board_state(self, state: str, detail: str, since: float) -> None:
        """The board's state as watchers see it: ``status``, ``cmd/status`` and the retained
        MQTT ``status`` (docs/mqtt.md)."""
        self.board_state = {"state": state, "since": _iso(since), "detail": detail}
        if self.mqtt is not None:
            self.mqtt.set_status(board=self.board_state)

    def _board_state_changed(self, state: LinkState, detail: str) -> None:
        from firmware_bridge.events import LinkState

        self._note_board_state(state.value, detail, time.time())
        if state is LinkState.UP:
            self._first_handshake()
        if self.board_lights is not None:
            self.board_lights.link_state_changed(state, detail)
        if detail == "board restarted" and self.table.last_dice and self.board is not None:
            # The LED dice woke up blank.
            self._spawn(self.board.show_dice(self.table.last_dice), "show-dice")

    # -- a call window open at a restart -----------------------------------------------------

    def _hold_window_for_board(self) -> None:
        """A window the log shows open waits for the presses the board kept through the
        crash (docs/reliability.md, "Presses across a crash"); without a board nothing is
        kept, and it closes on time at once."""
        if not self.table.window.held:
            return
        if self._board_link is None:
            self._release_window("no board holds presses", now_us())
            return
        self._hold_until = time.monotonic() + RESTART_HOLD_S
        self._first_handshake()  # the board may have answered already

    def _first_handshake(self) -> None:
        """The first handshake since the start names the events the board holds."""
        link = self._board_link
        if self._handshake_seen or self._hold_until is None or link is None:
            return
        info = link.board
        if info is None:
            return
        self._handshake_seen = True
        if info.oldest_unacked_seq >= info.next_event_seq:
            self._caught_up()  # it holds nothing
        else:
            self._held_through = (info.boot_id, info.next_event_seq - 1)

    def _board_event_taken(self, key: tuple[int, int]) -> None:
        held = self._held_through
        if held is not None and key[0] == held[0] and key[1] >= held[1]:
            self._held_through = None
            self._caught_up()

    def _caught_up(self) -> None:
        # Behind the presses already on the inbox: they are judged first.
        if self._inbox is not None:
            self._inbox.put_nowait((BoardCaughtUp(), None))

    def _release_window(self, why: str, now: int) -> None:
        self._hold_until = None
        if self.table.window.held:
            log.info("the call window open at the restart closes on time again: %s", why)
            self.table.window.release(now)

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
        from engine.rulesets import entry

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
            set_size=entry(self.cfg.table.ruleset).tiles,
            showing=lambda: self.table.showing_hands(),
            passing=lambda: self.table.passing(),
            crops=self.crops,
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
        out["failed_tasks"] = list(self.failed_tasks)
        if self.board is not None:
            link = self.board.status()
            out["board"] = {
                "state": link.state.value,
                "since": (self.board_state or {}).get("since"),
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


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds")


def _topics(cfg: TableConfig) -> Any:
    from controller.mqtt import Topics

    return Topics(cfg.table.id, cfg.mqtt.topic_prefix)

