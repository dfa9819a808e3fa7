"""The table's board through the firmware bridge: button presses in, LED patterns and dice out.

Presses carry the board's microsecond clock; the link maps it onto the Pi's monotonic clock
(its time sync), so a press is judged on table time even if the serial line delayed it. LED
patterns become animations on the board's segments, named in the config (``seat-E`` ...,
``centre``, ``wall``); they are sent in order by one task, so a slow link never blocks the
service's loop. What each segment shows is remembered, and shown again when the board comes
back from a restart (it wakes up dark).

Board events are taken with their key ``(boot_id, seq)``; the service confirms each one to the
link once applied and stored (acknowledge-after-apply, docs/protocol.md), and the pump
confirms at once the events that apply to nothing (releases, sensors, board errors).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.inputs import Press
from controller.lights import Pattern, Show
from engine.seats import SEAT_NAMES as SEATS
from firmware_bridge.events import Animation, ButtonEvent, ConfigKey, DiceResult, LinkState
from firmware_bridge.link import BoardLink, EventKey, LinkError

log = logging.getLogger("mjtable.board")

Colour = tuple[int, int, int]
GREEN: Colour = (0, 200, 60)
RED: Colour = (230, 20, 20)
AMBER: Colour = (255, 150, 0)
BLUE: Colour = (0, 90, 255)
WHITE: Colour = (200, 200, 200)
PURPLE: Colour = (150, 0, 200)
OFF: Colour = (0, 0, 0)

_REPLAY = "replay"  # queued after a board restart: show every segment's state again
_CONFIGURE = "configure"  # queued when the link comes up: the board's LED settings
SYNC_WAIT_S = 1.0  # how long a board event waits for the first time sync


@dataclass(frozen=True, slots=True)
class Running:
    """What one segment was last told to show, and when (to resume a timed animation)."""

    animation: Animation
    colour: Colour
    options: dict[str, int]
    since: float  # time.monotonic()

    def resumed(self, now: float) -> tuple[Animation, Colour, dict[str, int]]:
        """The same animation, from where it is now: a countdown keeps its remaining time, a
        finished countdown or flash is dark."""
        elapsed_ms = int((now - self.since) * 1000)
        opts = dict(self.options)
        if self.animation is Animation.COUNTDOWN:
            left = opts.get("duration_ms", 0) - elapsed_ms
            if left <= 0:
                return Animation.OFF, OFF, {}
            opts["duration_ms"] = left
        elif self.animation is Animation.FLASH and elapsed_ms >= opts.get(
            "period_ms", 200
        ) * opts.get("repeat", 0):
            return Animation.OFF, OFF, {}
        return self.animation, self.colour, opts


class BoardLights:
    """:class:`~controller.lights.Lights` on the board's LED segments."""

    def __init__(
        self, link: BoardLink, segment_names: Sequence[str], brightness: float = 0.5
    ) -> None:
        self.link = link
        self.brightness = max(0, min(255, round(brightness * 255)))  # the board's 0-255
        self.index = {name: i for i, name in enumerate(segment_names)}
        self.queue: asyncio.Queue[Pattern | str | None] = asyncio.Queue()
        self.running: dict[int, Running] = {}  # segment -> what it shows
        self.sent = 0
        self.failed = 0
        self.replays = 0
        self.task = asyncio.get_running_loop().create_task(self._run(), name="board-lights")

    def show(self, pattern: Pattern) -> None:
        self.queue.put_nowait(pattern)

    def close(self) -> None:
        self.task.cancel()

    def link_state_changed(self, state: LinkState, detail: str) -> None:
        """``BoardLink.on_state_change``: the board's LED settings each time it is up; a
        restarted board is dark, so everything it showed is shown again."""
        if state is LinkState.UP:
            self.queue.put_nowait(_REPLAY if detail == "board restarted" else _CONFIGURE)

    async def _run(self) -> None:
        while True:
            pattern = await self.queue.get()
            if pattern is None:
                return
            try:
                if isinstance(pattern, Pattern):
                    await self._render(pattern)
                    self.sent += 1
                elif pattern == _CONFIGURE:
                    await self.link.configure(ConfigKey.BRIGHTNESS, self.brightness)
                else:
                    await self._replay()
            except (LinkError, ValueError) as exc:
                self.failed += 1
                log.warning("LED pattern %s not shown: %s", pattern, exc)

    async def _replay(self) -> None:
        await self.link.configure(ConfigKey.BRIGHTNESS, self.brightness)
        now = time.monotonic()
        for segment, running in sorted(self.running.items()):
            animation, colour, opts = running.resumed(now)
            await self.link.animate(segment, animation, colour, **opts)
        self.replays += 1
        log.info("board restarted: LED state of %d segments shown again", len(self.running))

    def _seg(self, name: str) -> int | None:
        return self.index.get(name)

    async def _anim(self, name: str, animation: Animation, colour: Colour, **kw: int) -> None:
        segment = self._seg(name)
        if segment is not None:
            self.running[segment] = Running(animation, colour, dict(kw), time.monotonic())
            await self.link.animate(segment, animation, colour, **kw)

    async def _seats(self, lit: str | None, animation: Animation, colour: Colour) -> None:
        for seat in SEATS:
            if seat == lit:
                await self._anim(f"seat-{seat}", animation, colour, period_ms=400)
            else:
                await self._anim(f"seat-{seat}", Animation.OFF, OFF)

    async def _render(self, p: Pattern) -> None:
        seat_seg = f"seat-{p.seat}" if p.seat else "centre"
        match p.show:
            case Show.TURN:
                await self._seats(p.seat, Animation.CHASE, BLUE)
            case Show.CALL_WINDOW:
                await self._anim("centre", Animation.COUNTDOWN, AMBER, duration_ms=p.duration_ms)
            case Show.CLAIM_HEARD:
                await self._anim(seat_seg, Animation.BLINK, AMBER, period_ms=200)
            case Show.CLAIM_WON:
                await self._anim(seat_seg, Animation.PULSE, GREEN, period_ms=300)
            case Show.CLAIM_REFUSED:
                await self._anim(seat_seg, Animation.FLASH, RED, period_ms=120, repeat=3)
            case Show.WALL_BREAK | Show.DEAD_WALL:
                seat_index = SEATS.index(p.seat) if p.seat in SEATS else 0
                colour = WHITE if p.show is Show.WALL_BREAK else PURPLE
                await self._anim(
                    "wall", Animation.POINTER, colour, position=seat_index * 18 + p.stack
                )
            case Show.LAST_TILE:
                await self._anim("wall", Animation.BLINK, RED, period_ms=500)
            case Show.ERROR:
                await self._anim(seat_seg, Animation.FLASH, RED, period_ms=100, repeat=20)
            case Show.ASK:
                await self._anim(seat_seg, Animation.BLINK, AMBER, period_ms=800)
            case Show.HAND_OVER:
                await self._seats(p.seat, Animation.PULSE, GREEN)
                if p.seat is None:
                    await self._anim("centre", Animation.SOLID, WHITE)
            case Show.OFF:
                for name in self.index:
                    await self._anim(name, Animation.OFF, OFF)


async def pump_board_events(
    link: BoardLink,
    buttons: Sequence[str],
    on_press: Callable[[Press, EventKey], None],
    on_dice: Callable[[tuple[int, ...], int, EventKey], None],
    on_taken: Callable[[EventKey], None] | None = None,
) -> None:
    """Turn the board's events into presses and dice throws, for as long as the link lives.
    The receiver of a press or a throw confirms its key once it is stored; every other event
    is confirmed here. ``on_taken`` hears every key, after its press or throw was handed on
    (the service knows by it when the events the board held at a restart are all taken)."""
    async for key, event in link.keyed_events():
        if not await _handed_on(link, buttons, key, event, on_press, on_dice):
            link.confirm(key)  # applies to nothing: the board may forget it now
        if on_taken is not None:
            on_taken(key)


async def _handed_on(
    link: BoardLink,
    buttons: Sequence[str],
    key: EventKey,
    event: object,
    on_press: Callable[[Press, EventKey], None],
    on_dice: Callable[[tuple[int, ...], int, EventKey], None],
) -> bool:
    if isinstance(event, ButtonEvent) and event.pressed:
        if not 0 <= event.seat < len(SEATS) or not 0 <= event.button < len(buttons):
            log.warning("button %s/%s is not in the config", event.seat, event.button)
            return False
        press: Press | None = None
        with contextlib.suppress(ValueError):
            press = Press(SEATS[event.seat], buttons[event.button], await _table_time(link, event))
        if press is not None:
            on_press(press, key)
            return True
    elif isinstance(event, DiceResult):
        on_dice(tuple(event.values), await _table_time(link, event), key)
        return True
    return False


async def _table_time(link: BoardLink, event: ButtonEvent | DiceResult) -> int:
    """The event's board time on the table's clock. Right after a handshake (a restart of
    the service, a replugged cable) the board resends what it held before the first time
    sync has answered: wait for it (a few ms), so a held press is judged by when it was
    made, not when it arrived. Without a sync within ``SYNC_WAIT_S``, the arrival time."""
    deadline = time.monotonic() + SYNC_WAIT_S
    while (host_us := link.board_to_host_us(event.board_us)) is None:
        if time.monotonic() >= deadline:
            log.warning("no time sync with the board: a press is timed on arrival")
            return time.monotonic_ns() // 1000
        await asyncio.sleep(0.002)
    return host_us
