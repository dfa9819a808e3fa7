"""The seam between the service and the board, with real parts: the emulated board on a pty,
the bridge's link, the service, its SQLite store on disk.

- A press the service received but had not stored when it died is not lost: the board keeps
  every event until the service confirms it stored it (acknowledge-after-apply).
- A press stored but not yet confirmed when the service died comes back from the board after
  the restart, and is skipped: its key (boot id, seq) was stored with it.
- A board that restarts wakes up dark: the service shows it the whole LED state again.
- The centre and wall segments of the bundled config: the wall-break position lights after
  the dice (Code 1924, Law 16).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from config.load import parse_config
from config.schema import TableConfig
from controller.inbox import CommandIn, ObserveIn
from controller.inputs import Observation, ObservationKind
from controller.service import Service, ServiceOptions
from controller.store import EventStore
from controller.table import Table, TableSettings
from firmware_bridge.emulator import EmulatedBoard
from firmware_bridge.events import Animation, ConfigKey, LinkState

from .conftest import until

PUNG = 1  # the board's button index of "pung" (board.buttons)
NORTH = 3
SEATS = ("E", "S", "W", "N")
DEFAULTS = Path(__file__).parents[2] / "config" / "defaults" / "table.toml"
# Dice of East (Law 15), then of the seat East's throw selects (Law 16), the deal, a discard.
OPENING = (
    Observation(ObservationKind.DICE, "E", dice=(3, 4)),
    Observation(ObservationKind.DICE, "W", dice=(2, 2)),
    Observation(ObservationKind.DEAL, None),
    Observation(ObservationKind.DISCARD, "E", ("5C",)),
)


def config(board: EmulatedBoard, tmp_path: Path, pause_ms: int = 150) -> TableConfig:
    """The bundled table file (its LED segments included), on the emulated board."""
    raw: dict[str, Any] = tomllib.loads(DEFAULTS.read_text())
    raw["adjudication"]["courtesy_pause_ms"] = pause_ms
    raw["board"]["serial"] = board.path
    raw["camera"]["source"] = "none"
    raw["mqtt"] = {"enabled": False}
    raw["store"] = {"path": str(tmp_path / "table.sqlite3")}
    return parse_config(raw)


class Running:
    """One run of the service on its own task."""

    def __init__(self, cfg: TableConfig, board: EmulatedBoard) -> None:
        self.service = Service(cfg, ServiceOptions(cfg.store.path, board.path))
        self.stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> Service:
        ready = asyncio.Event()
        self.task = asyncio.create_task(self.service.run(self.stop, on_ready=ready.set))
        await asyncio.wait_for(ready.wait(), 10)
        await self.service.board.wait_up(timeout=5)
        return self.service

    async def finish(self) -> None:
        self.stop.set()
        assert self.task is not None
        await self.task


def events_of(service: Service, kind: str) -> list[dict[str, Any]]:
    return [e for e in service.store.events() if e["type"] == kind]


def logged(cfg: TableConfig, kind: str) -> list[dict[str, Any]]:
    """What the store file holds, read as the next process would (the service is gone)."""
    store = EventStore(cfg.store.path)
    try:
        return [e for e in store.events() if e["type"] == kind]
    finally:
        store.close()


def stored_board_key(cfg: TableConfig) -> tuple[int, int] | None:
    store = EventStore(cfg.store.path)
    try:
        return store.board_key()
    finally:
        store.close()


def test_a_press_received_but_not_stored_at_a_crash_is_applied_once_after_restart(
    tmp_path: Path,
) -> None:
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=5) as board:
        cfg = config(board, tmp_path)

        async def scenario() -> None:
            first = Running(cfg, board)
            service = await first.start()
            for step in OPENING:
                assert (await service.submit(ObserveIn(step))).accepted
            received: list[object] = []
            # The press is taken off the link and is being applied ... (nothing stored yet)
            service._board_input = lambda kind, payload: received.append(payload)  # type: ignore[method-assign]
            board.press(seat=NORTH, button=PUNG)
            await until(lambda: bool(received), what="the press at the service")
            await asyncio.sleep(0.1)  # ... for a while: an acknowledgement on arrival goes out
            assert first.task is not None
            first.task.cancel()  # ... when the process dies
            with contextlib.suppress(asyncio.CancelledError):
                await first.task
            assert len(received) == 1, "the press reached the service before it died"
            assert not logged(cfg, "ClaimMade")  # and nothing of it was stored

            second = Running(cfg, board)
            again = await second.start()
            await until(lambda: bool(events_of(again, "ClaimsClosed")), what="the adjudication")
            await until(lambda: board.protocol.ring_used() == 0, what="the board's ring empty")
            await asyncio.sleep(0.1)  # room for a wrong second delivery to show
            claims = events_of(again, "ClaimMade")
            assert [(c["seat"], c["kind"]) for c in claims] == [("N", "pung")]
            assert events_of(again, "ClaimsClosed")[0]["winner"] == "N"
            assert again.presses_handled == 1 and again.board_duplicates == 0
            await second.finish()

        asyncio.run(scenario())


def test_a_press_stored_but_not_acknowledged_is_skipped_when_the_board_resends_it(
    tmp_path: Path,
) -> None:
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=6) as board:
        cfg = config(board, tmp_path)

        async def scenario() -> None:
            first = Running(cfg, board)
            service = await first.start()
            for step in OPENING:
                assert (await service.submit(ObserveIn(step))).accepted
            # The process dies after the store's commit, before its acknowledgement is sent.
            service.board.confirm = lambda key: None
            board.press(seat=NORTH, button=PUNG)
            await until(lambda: bool(events_of(service, "ClaimMade")), what="the claim stored")
            await first.finish()
            assert board.protocol.ring_used() >= 1  # the board still holds the press
            stored_key = stored_board_key(cfg)
            assert stored_key is not None and stored_key[0] == board.protocol.boot_id

            second = Running(cfg, board)
            again = await second.start()
            await until(lambda: again.board_duplicates == 1, what="the resend skipped")
            await until(lambda: board.protocol.ring_used() == 0, what="the board's ring empty")
            assert again.presses_handled == 0 and again.table.refused == 0
            assert len(events_of(again, "ClaimMade")) == 1
            # A new press after the restart is handled as usual (the window the restart
            # found open is closed by now: it is refused, Law 53, and its key stored).
            board.press(seat=2, button=PUNG)
            await until(lambda: again.presses_handled == 1, what="West's press")
            assert again.store.board_key() == (board.protocol.boot_id, stored_key[1] + 1)
            await second.finish()

        asyncio.run(scenario())


def animations(board: EmulatedBoard) -> list[dict[str, int] | None]:
    out = []
    for segment in range(len(board.spec.segments)):
        running = board.animation(segment)
        if running is not None and running["animation"] == Animation.COUNTDOWN:
            running = {k: v for k, v in running.items() if k != "duration_ms"}  # time passes
        out.append(running)
    return out


async def lights_settled(service: Service) -> None:
    await until(lambda: service.board_lights.queue.empty(), what="the LED queue drained")
    await service.board.drain(timeout=5)


def test_after_a_board_restart_the_leds_show_the_same_state(tmp_path: Path) -> None:
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=7) as board:
        cfg = config(board, tmp_path, pause_ms=30_000)

        async def scenario() -> None:
            run = Running(cfg, board)
            service = await run.start()
            # The LED dice: East's throw, then the selected seat's (Laws 15-16).
            assert (await service.submit(CommandIn("roll", b'{"seat": "E"}')))["ok"]
            thrower = service.table.next_thrower().encode()
            assert (await service.submit(CommandIn("roll", b'{"seat": "%s"}' % thrower)))["ok"]
            for step in OPENING[2:]:
                assert (await service.submit(ObserveIn(step))).accepted
            board.press(seat=NORTH, button=PUNG)  # heard: North's seat blinks amber
            await until(lambda: bool(events_of(service, "ClaimMade")), what="the claim")
            await lights_settled(service)
            before = animations(board)
            centre, north, wall = (board.animation(i) for i in (4, 3, 5))
            assert centre is not None and centre["animation"] == Animation.COUNTDOWN
            assert north is not None and north["animation"] == Animation.BLINK
            assert wall is not None and wall["animation"] == Animation.POINTER

            assert board.hardware.config[ConfigKey.BRIGHTNESS] == 128  # leds.brightness 0.5
            assert board.dice_shown == service.table.last_dice != ()
            board.reboot(boot_id=board.protocol.boot_id + 1)
            assert all(a is None for a in animations(board))  # it wakes up dark
            assert ConfigKey.BRIGHTNESS not in board.hardware.config and board.dice_shown == ()
            await service.board.wait_state(LinkState.DOWN, timeout=3)
            await service.board.wait_up(timeout=5)
            await until(lambda: service.board_lights.replays == 1, what="the LED state again")
            await lights_settled(service)
            assert animations(board) == before
            assert board.hardware.config[ConfigKey.BRIGHTNESS] == 128
            await service.board.drain(timeout=5)
            assert board.dice_shown == service.table.last_dice
            countdown = board.animation(4)
            assert countdown is not None and 0 < countdown["duration_ms"] < 30_000
            await run.finish()

        asyncio.run(scenario())


def test_the_wall_break_position_lights_after_the_dice(tmp_path: Path) -> None:
    with EmulatedBoard(link_path=tmp_path / "mahjong-mcu", seed=8) as board:
        cfg = config(board, tmp_path)
        names = [s.name for s in cfg.leds.segments]
        assert names[4:] == ["centre", "wall"]  # the board's segments 4 and 5

        async def scenario() -> dict[str, Any]:
            run = Running(cfg, board)
            service = await run.start()
            assert board.animation(5) is None
            for step in OPENING[:2]:
                assert (await service.submit(ObserveIn(step))).accepted
            broken = events_of(service, "WallBroken")[0]
            await lights_settled(service)
            await run.finish()
            return broken

        broken = asyncio.run(scenario())
        # East threw 7, selecting West (Law 15); West threw 4 and counts 7 + 4 = 11 stacks
        # in his own wall, from right to left (Code 1924, Law 16).
        assert (broken["wall_of"], broken["stack"]) == ("W", 11)
        position = SEATS.index(broken["wall_of"]) * 18 + broken["stack"]
        pointer = board.animation(5)
        assert pointer is not None and pointer["animation"] == Animation.POINTER
        assert pointer["position"] == position
        lit = [i for i, rgb in enumerate(board.leds(5)) if rgb != (0, 0, 0)]
        assert lit == [position]


def test_kill_9_moments_after_a_press_applies_it_exactly_once(
    tmp_path: Path, service_process: Callable[..., Any]
) -> None:
    """The real process, killed at several moments after a press (before it arrived, while
    it is applied, after it is stored): after the restart it is in the log exactly once."""
    for trial, delay_s in enumerate((0.0, 0.003, 0.05)):
        folder = tmp_path / f"trial{trial}"
        folder.mkdir()
        store = folder / "table.sqlite3"
        with EmulatedBoard(link_path=folder / "mahjong-mcu", seed=20 + trial) as board:
            config = folder / "table.toml"
            config.write_text(
                '[table]\nid = "k"\n[adjudication]\ncourtesy_pause_ms = 100\n'
                f'[board]\nserial = "{board.path}"\n[camera]\nsource = "none"\n'
                f'[mqtt]\nenabled = false\n[store]\npath = "{store}"\n'
            )
            db = EventStore(store)  # the game so far: East's discard is claimable
            table = Table(TableSettings("k", courtesy_pause_ms=100, publish=False), db)
            for step in OPENING:
                assert table.observe(step, 0).accepted
            db.close()
            service = service_process(config, store, wait_for_board=True)
            service.start()
            try:
                board.press(seat=NORTH, button=PUNG)
                time.sleep(delay_s)
                service.kill9()
                service.start()
                deadline = time.monotonic() + 10
                while not logged_at(store, "ClaimsClosed") or board.protocol.ring_used():
                    assert time.monotonic() < deadline, f"trial {trial}: no adjudication"
                    time.sleep(0.02)
                time.sleep(0.1)
                claims = logged_at(store, "ClaimMade")
                assert [(c["seat"], c["kind"]) for c in claims] == [("N", "pung")], trial
                assert logged_at(store, "ClaimsClosed")[0]["winner"] == "N"
            finally:
                service.stop()


def logged_at(path: Path, kind: str) -> list[dict[str, Any]]:
    store = EventStore(path)
    try:
        return [e for e in store.events() if e["type"] == kind]
    finally:
        store.close()
