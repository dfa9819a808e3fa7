"""The asyncio link to the table's board: ``async with BoardLink(url) as link``.

The port is opened with pyserial (any ``serial_for_url`` URL: the udev name
``/dev/mahjong-mcu``, a pty path, ``socket://``) through pyserial-asyncio-fast. When the port
goes away (USB pulled) or the board stops answering, the link closes it and reopens the same
path with a jittered backoff until the board answers HELLO again; the handshake makes the
board resend every event the host has not acknowledged, so no press is lost.

Example::

    async with BoardLink("/dev/mahjong-mcu") as link:
        info = await link.wait_up(timeout=5)
        await link.animate(0, Animation.CHASE, (0, 80, 255), period_ms=120)
        async for event in link.events():
            if isinstance(event, ButtonEvent) and event.pressed:
                ...
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence

import serial
import serial_asyncio_fast

from firmware_bridge import wire
from firmware_bridge.events import (
    Animation,
    BoardEvent,
    BoardInfo,
    ConfigKey,
    DiceAction,
    LinkState,
    LinkStatus,
)
from firmware_bridge.host import HostProtocol, LinkSettings

log = logging.getLogger("firmware_bridge")

Colour = tuple[int, int, int]
EventKey = tuple[int, int]  # (boot_id, seq): unique across board restarts


class LinkError(Exception):
    """Root of the link's errors."""


class LinkRefused(LinkError):
    """The board speaks an incompatible protocol version (the message names both)."""


class LinkTimeout(LinkError, TimeoutError):
    """A wait on the board timed out; the message names the operation and the port."""


def _now_us() -> int:
    return time.monotonic_ns() // 1000


class _SerialProtocol(asyncio.Protocol):
    def __init__(self, link: BoardLink) -> None:
        self.link = link
        self.lost: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self.link._on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


class BoardLink:
    """The host's link to one board. Reusable in sequence, not re-entrant."""

    def __init__(
        self,
        url: str,
        *,
        settings: LinkSettings | None = None,
        baudrate: int = 115200,
        on_state_change: Callable[[LinkState, str], None] | None = None,
        host_id: int | None = None,
    ) -> None:
        self.url = url
        self.settings = settings or LinkSettings()
        self.baudrate = baudrate
        self.on_state_change = on_state_change
        self._status = LinkStatus()
        own_id = host_id if host_id is not None else random.getrandbits(32) or 1
        self._host = HostProtocol(self.settings, own_id, self._status)
        self._transport: asyncio.Transport | None = None
        self._runner: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()  # set whenever events arrive or the state changes
        self._last_state = LinkState.CONNECTING
        self._last_rx_us: int | None = None

    # -- lifetime --------------------------------------------------------------------------
    async def __aenter__(self) -> BoardLink:
        if self._runner is not None:
            raise LinkError(f"link to {self.url} is already open")
        self._status.state = LinkState.CONNECTING
        self._last_state = LinkState.CONNECTING
        self._runner = asyncio.create_task(self._run(), name=f"board-link[{self.url}]")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        self._close_transport()
        self._set_state(LinkState.CLOSED, "closed by its owner")

    # -- what the service reads ------------------------------------------------------------
    def status(self) -> LinkStatus:
        """A snapshot of the state and counters."""
        snap = copy.copy(self._status)
        snap.unknown_type_codes = list(self._status.unknown_type_codes)
        snap.events_pending = len(self._host.events)
        if self._last_rx_us is not None:
            snap.last_frame_age_s = (_now_us() - self._last_rx_us) / 1e6
        return snap

    @property
    def board(self) -> BoardInfo | None:
        return self._status.board

    async def wait_up(self, timeout: float = 5.0) -> BoardInfo:
        """Wait for the handshake; LinkRefused for an incompatible board."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    if self._status.state is LinkState.REFUSED:
                        raise LinkRefused(f"{self.url}: {self._status.detail}")
                    if self._status.state is LinkState.UP and self._status.board is not None:
                        return self._status.board
                    await self._wait_change()
        except TimeoutError:
            raise LinkTimeout(
                f"no handshake with the board on {self.url} within {timeout} s "
                f"(state {self._status.state.value}: {self._status.detail or 'no detail'})"
            ) from None

    async def wait_state(self, state: LinkState, timeout: float = 5.0) -> None:
        try:
            async with asyncio.timeout(timeout):
                while self._status.state is not state:
                    await self._wait_change()
        except TimeoutError:
            raise LinkTimeout(
                f"link on {self.url} not {state.value} within {timeout} s "
                f"(it is {self._status.state.value})"
            ) from None

    async def next_event(self, timeout: float | None = None) -> BoardEvent:
        """The next board event, in sequence order."""
        try:
            async with asyncio.timeout(timeout):
                while not self._host.events:
                    await self._wait_change()
        except TimeoutError:
            raise LinkTimeout(f"no board event from {self.url} within {timeout} s") from None
        return self._pop()[1]

    def _pop(self) -> tuple[EventKey, BoardEvent]:
        host = self._host
        while len(host.event_boots) > len(host.events):  # realign after a bare popleft()
            host.event_boots.popleft()
        event = host.events.popleft()
        boot = host.event_boots.popleft() if host.event_boots else (host.boot_id or 0)
        return (boot, event.seq), event

    async def events(self) -> AsyncIterator[BoardEvent]:
        """Every board event exactly once, in order, for as long as the link is open."""
        async for _key, event in self.keyed_events():
            yield event

    async def keyed_events(self) -> AsyncIterator[tuple[EventKey, BoardEvent]]:
        """Every board event with its key ``(boot_id, seq)``, unique across board restarts.
        With ``LinkSettings(ack_after_apply=True)`` pass the key to :meth:`confirm` once the
        event is durably applied: until then the board keeps it and resends it to the next
        host (after a crash of this one)."""
        while True:
            while self._host.events:
                yield self._pop()
            await self._wait_change()

    def confirm(self, key: EventKey) -> None:
        """Ack-after-apply: the event ``key`` is applied and stored; the board may forget it.
        Confirm every event (those the service ignores too): acknowledgements are cumulative,
        so one left unconfirmed holds back every later one."""
        self._host.confirm(key[0], key[1], _now_us())
        self._flush()

    def pop_events(self) -> list[BoardEvent]:
        """Take every event that has arrived, without waiting."""
        out = list(self._host.events)
        self._host.events.clear()
        self._host.event_boots.clear()
        return out

    def board_to_host_us(self, board_us: int) -> int | None:
        """A board timestamp on the host's monotonic clock (µs), once time sync has run."""
        offset = self._status.clock_offset_us
        return None if offset is None else board_us - offset

    # -- commands --------------------------------------------------------------------------
    async def set_pixels(self, segment: int, colours: Sequence[Colour], start: int = 0) -> None:
        """Set LEDs ``start..`` of a segment (stops its animation). Long runs are split."""
        self._check_segment(segment, start + len(colours))
        rgb = bytearray()
        for i, c in enumerate(colours):
            rgb += bytes(_colour(c, f"colours[{i}]"))
        per_frame = (wire.MAX_BODY - wire.COMMAND_HEADER - 3) // 3
        for first in range(0, max(len(colours), 1), per_frame):
            chunk = bytes(rgb[3 * first : 3 * (first + per_frame)])
            await self._command(functools.partial(_pixels_body, segment, start + first, chunk))

    async def animate(
        self,
        segment: int,
        animation: Animation,
        colour: Colour = (255, 255, 255),
        *,
        period_ms: int = 0,
        duration_ms: int = 0,
        position: int = 0,
        repeat: int = 0,
    ) -> None:
        """Run an animation on a segment (turn indicator, countdown, winner, pointer, flash)."""
        self._check_segment(segment)
        r, g, b = _colour(colour, "colour")
        _range("period_ms", period_ms, 0xFFFF)
        _range("duration_ms", duration_ms, 0xFFFFFFFF)
        _range("position", position, 0xFFFF)
        _range("repeat", repeat, 0xFF)
        anim = Animation(animation)
        await self._command(
            lambda seq: wire.encode_led_animation(
                seq, segment, anim, r, g, b, period_ms, duration_ms, position, repeat
            )
        )

    async def fill(self, segment: int, colour: Colour) -> None:
        await self.animate(segment, Animation.SOLID, colour)

    async def leds_off(self, segment: int) -> None:
        await self.animate(segment, Animation.OFF, (0, 0, 0))

    async def roll_dice(self, count: int = 2) -> None:
        """LED dice: the board rolls and reports a DiceResult; a roller: fire it."""
        _range("count", count, 8)
        await self._command(lambda seq: wire.encode_dice_cmd(seq, DiceAction.ROLL, count, []))

    async def show_dice(self, values: Sequence[int]) -> None:
        for i, v in enumerate(values):
            if not 1 <= v <= 6:
                raise ValueError(f"values[{i}] = {v}: a die shows 1 to 6")
        vals = list(values)
        _range("len(values)", len(vals), 8)
        await self._command(lambda seq: wire.encode_dice_cmd(seq, DiceAction.SHOW, len(vals), vals))

    async def clear_dice(self) -> None:
        await self._command(lambda seq: wire.encode_dice_cmd(seq, DiceAction.CLEAR, 0, []))

    async def configure(self, key: ConfigKey, value: int) -> None:
        _range(f"value of {ConfigKey(key).name}", value, 0xFFFFFFFF)
        await self._command(lambda seq: wire.encode_config(seq, ConfigKey(key), value))

    async def sync_time(self) -> None:
        """Ask for a time sample now (the link also does it on connect and every few s)."""
        self._host.request_time(_now_us())
        self._flush()

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait until the board has acknowledged every command queued so far."""
        target = self._host.cmd_next_seq - 1
        try:
            async with asyncio.timeout(timeout):
                while self._host.acked_through() < target:
                    await self._wait_change()
        except TimeoutError:
            raise LinkTimeout(
                f"board on {self.url} did not acknowledge command {target} within {timeout} s "
                f"(acknowledged through {self._host.acked_through()})"
            ) from None

    async def _command(self, build: Callable[[int], bytes]) -> int:
        if self._status.state is LinkState.CLOSED:
            raise LinkError(f"link to {self.url} is closed")
        while not self._host.can_queue():  # backpressure: wait for acknowledgements
            await self._wait_change()
        seq = self._host.queue_command(build)
        self._host.flush_commands(_now_us())
        self._flush()
        return seq

    def _check_segment(self, segment: int, end: int | None = None) -> None:
        board = self._status.board
        if segment < 0 or segment > 255:
            raise ValueError(f"segment {segment}: must be 0..255")
        if board is None:
            return
        if segment >= len(board.segments):
            raise ValueError(f"segment {segment}: the board has {len(board.segments)} segments")
        if end is not None and end > board.segments[segment]:
            raise ValueError(
                f"segment {segment} has {board.segments[segment]} LEDs; {end} addressed"
            )

    # -- internals -------------------------------------------------------------------------
    async def _wait_change(self) -> None:
        self._changed.clear()
        await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()

    def _set_state(self, state: LinkState, detail: str) -> None:
        self._status.state = state
        self._status.detail = detail
        self._check_state()

    def _check_state(self) -> None:
        if self._status.state is not self._last_state:
            self._last_state = self._status.state
            log.info("link %s: %s %s", self.url, self._status.state.value, self._status.detail)
            if self.on_state_change is not None:
                try:
                    self.on_state_change(self._status.state, self._status.detail)
                except Exception:  # a faulty observer must not take the link down
                    log.exception("on_state_change callback failed")
        self._notify()

    def _on_data(self, data: bytes) -> None:
        now = _now_us()
        self._last_rx_us = now
        try:
            self._host.data_received(data, now)
        except Exception:  # a bug here must cost one read, never the link (fuzzed: none known)
            self._status.corrupt_frames += 1
            log.exception("link %s: failed to process %d bytes from the board", self.url, len(data))
        self._flush()
        self._check_state()

    def _flush(self) -> None:
        out = self._host.take_output()
        if out and self._transport is not None and not self._transport.is_closing():
            self._transport.write(out)

    def _close_transport(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    async def _run(self) -> None:
        while True:
            try:
                await self._connect_loop()
            except asyncio.CancelledError:
                raise
            except Exception:  # the link must outlive any bug: log it, start over
                log.exception("link %s: unexpected failure; reopening the port", self.url)
                self._close_transport()
                self._host.connection_lost()
                self._set_state(LinkState.DOWN, "internal error, reopening (see the log)")
                await asyncio.sleep(self.settings.reconnect_max_s)

    async def _connect_loop(self) -> None:
        delay = self.settings.reconnect_min_s
        tick_s = min(self.settings.retransmit_s, self.settings.ping_interval_s) / 4
        while True:
            try:
                transport, proto = await serial_asyncio_fast.create_serial_connection(
                    asyncio.get_running_loop(),
                    lambda: _SerialProtocol(self),
                    self.url,
                    baudrate=self.baudrate,
                )
            except (serial.SerialException, OSError, ValueError) as exc:
                if self._status.state is not LinkState.REFUSED:
                    state = (
                        LinkState.CONNECTING
                        if self._status.state is LinkState.CONNECTING
                        else LinkState.DOWN
                    )
                    self._set_state(state, f"cannot open {self.url}: {exc}")
                await asyncio.sleep(delay * random.uniform(0.8, 1.2))
                delay = min(delay * 2, self.settings.reconnect_max_s)
                continue
            assert isinstance(proto, _SerialProtocol)
            self._transport = transport
            self._host.connection_made(_now_us())
            self._flush()
            reason = await self._serve(proto, tick_s)
            self._close_transport()
            self._host.connection_lost()
            if self._status.state is not LinkState.REFUSED:
                self._set_state(LinkState.DOWN, reason)
            delay = self.settings.reconnect_min_s
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))

    async def _serve(self, proto: _SerialProtocol, tick_s: float) -> str:
        """Tick the protocol until the port goes away or the board falls silent."""
        while True:
            done, _ = await asyncio.wait({proto.lost}, timeout=tick_s)
            if done:
                exc = proto.lost.result()
                return f"port {self.url} lost: {exc}" if exc else f"port {self.url} closed"
            reason = self._host.tick(_now_us())
            self._flush()
            self._check_state()
            if reason is not None:
                log.warning("link %s: %s; reopening the port", self.url, reason)
                return reason


def _pixels_body(segment: int, start: int, rgb: bytes, seq: int) -> bytes:
    return wire.encode_led_pixels(seq, segment, start, rgb)


def _colour(c: Sequence[int], where: str) -> Colour:
    if len(c) != 3 or any(not isinstance(v, int) or not 0 <= v <= 255 for v in c):
        raise ValueError(f"{where} = {tuple(c)!r}: a colour is three integers 0..255 (r, g, b)")
    return (c[0], c[1], c[2])


def _range(name: str, value: int, top: int) -> None:
    if not 0 <= value <= top:
        raise ValueError(f"{name} = {value}: must be 0..{top}")
