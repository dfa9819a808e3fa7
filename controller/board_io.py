"""The table's board through the firmware bridge: button presses in, LED patterns and dice out.

Presses carry the board's microsecond clock; the link maps it onto the Pi's monotonic clock
(its time sync), so a press is judged on table time even if the serial line delayed it. LED
patterns become animations on the board's segments, named in the config (``seat-E`` ...,
``centre``, ``wall``); they are sent in order by one task, so a slow link never blocks the
service's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence

from controller.inputs import Press
from controller.lights import Pattern, Show
from firmware_bridge.events import Animation, ButtonEvent, DiceResult
from firmware_bridge.link import BoardLink, LinkError

log = logging.getLogger("mjtable.board")

SEATS = ("E", "S", "W", "N")
Colour = tuple[int, int, int]
GREEN: Colour = (0, 200, 60)
RED: Colour = (230, 20, 20)
AMBER: Colour = (255, 150, 0)
BLUE: Colour = (0, 90, 255)
WHITE: Colour = (200, 200, 200)
PURPLE: Colour = (150, 0, 200)


class BoardLights:
    """:class:`~controller.lights.Lights` on the board's LED segments."""

    def __init__(self, link: BoardLink, segment_names: Sequence[str]) -> None:
        self.link = link
        self.index = {name: i for i, name in enumerate(segment_names)}
        self.queue: asyncio.Queue[Pattern | None] = asyncio.Queue()
        self.sent = 0
        self.failed = 0
        self.task = asyncio.get_running_loop().create_task(self._run(), name="board-lights")

    def show(self, pattern: Pattern) -> None:
        self.queue.put_nowait(pattern)

    def close(self) -> None:
        self.task.cancel()

    async def _run(self) -> None:
        while True:
            pattern = await self.queue.get()
            if pattern is None:
                return
            try:
                await self._render(pattern)
                self.sent += 1
            except (LinkError, ValueError) as exc:
                self.failed += 1
                log.warning("LED pattern %s not shown: %s", pattern.show, exc)

    def _seg(self, name: str) -> int | None:
        return self.index.get(name)

    async def _anim(self, name: str, animation: Animation, colour: Colour, **kw: int) -> None:
        segment = self._seg(name)
        if segment is not None:
            await self.link.animate(segment, animation, colour, **kw)

    async def _seats(self, lit: str | None, animation: Animation, colour: Colour) -> None:
        for seat in SEATS:
            if seat == lit:
                await self._anim(f"seat-{seat}", animation, colour, period_ms=400)
            else:
                await self._anim(f"seat-{seat}", Animation.OFF, (0, 0, 0))

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
                    await self._anim(name, Animation.OFF, (0, 0, 0))


async def pump_board_events(
    link: BoardLink,
    buttons: Sequence[str],
    on_press: Callable[[Press], None],
    on_dice: Callable[[tuple[int, ...], int], None],
) -> None:
    """Turn the board's events into presses and dice throws, for as long as the link lives."""
    async for event in link.events():
        if isinstance(event, ButtonEvent):
            if not event.pressed:
                continue
            if not 0 <= event.seat < len(SEATS) or not 0 <= event.button < len(buttons):
                log.warning("button %s/%s is not in the config", event.seat, event.button)
                continue
            host_us = link.board_to_host_us(event.board_us)
            when = host_us if host_us is not None else time.monotonic_ns() // 1000
            with contextlib.suppress(ValueError):
                on_press(Press(SEATS[event.seat], buttons[event.button], when, "board"))
        elif isinstance(event, DiceResult):
            host_us = link.board_to_host_us(event.board_us)
            when = host_us if host_us is not None else time.monotonic_ns() // 1000
            on_dice(tuple(event.values), when)
