"""A virtual table board on a pty pair, speaking the same bytes as the reference firmware.

It runs :class:`firmware_bridge.board.BoardProtocol` (the code the firmware runs) in a thread
against the master side of a pty; the host opens the slave side (or a stable symlink to it,
standing in for the udev name) like the real USB device. Tests and ``mjtable simulate``
script it: press buttons, report sensors and dice, read back LED state, and inject faults at
the byte boundary (bit flips, dropped frames and bytes, truncated frames, garbage between
frames, unplug/replug, a slow or stalled board, a reboot).

Example::

    with EmulatedBoard(link_path=tmp / "mahjong-mcu") as board:
        async with BoardLink(board.path) as link:
            await link.wait_up()
            board.click(seat=2, button=0)
            event = await link.next_event(timeout=1)
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import select
import threading
import time
import tty
from collections import deque
from pathlib import Path
from typing import Any

from firmware_bridge import wire
from firmware_bridge.board import BoardProtocol, BoardSpec, Hardware, render
from firmware_bridge.link_faults import FaultInjector, Faults, FrameSplitter

__all__ = ["EmulatedBoard", "EmulatedHardware", "FaultInjector", "Faults", "burst_edge"]


class EmulatedHardware(Hardware):
    """LED segments, dice and settings of the virtual board, inspectable from tests."""

    def __init__(self, spec: BoardSpec, rng: random.Random) -> None:
        self.spec = spec
        self.rng = rng
        self.board: BoardProtocol | None = None
        self.pixels = [bytearray(3 * n) for n in spec.segments]
        self.animations: list[tuple[tuple[int, ...], int] | None] = [None] * len(spec.segments)
        self.dice_shown: tuple[int, ...] = ()
        self.roller_fired = 0
        self.config: dict[int, int] = {}
        self.host_lost_count = 0
        self.host_back_count = 0
        self.history: deque[tuple[str, tuple[Any, ...]]] = deque(maxlen=10000)

    def set_pixels(self, segment: int, start: int, rgb: bytes, now_us: int) -> None:
        self.history.append(("pixels", (segment, start, bytes(rgb))))
        seg = self.pixels[segment]
        end = min(len(seg), 3 * start + len(rgb))
        if 3 * start < end:
            seg[3 * start : end] = rgb[: end - 3 * start]
        self.animations[segment] = None

    def set_animation(self, segment: int, anim: tuple[int, ...], now_us: int) -> None:
        self.history.append(("animation", (segment, *anim)))
        self.animations[segment] = (anim, now_us)

    def dice(self, action: int, count: int, values: tuple[int, ...], now_us: int) -> None:
        self.history.append(("dice", (action, count, values)))
        if action == wire.DICE_ROLL:
            if self.spec.dice_kind == wire.DICE_ROLLER:
                self.roller_fired += 1
                return
            rolled = [self.rng.randint(1, 6) for _ in range(count)]
            self.dice_shown = tuple(rolled)
            if self.board is not None:
                self.board.record_dice(wire.DICE_LED, rolled, now_us)
        elif action == wire.DICE_SHOW:
            self.dice_shown = tuple(values)
        elif action == wire.DICE_CLEAR:
            self.dice_shown = ()

    def configure(self, key: int, value: int) -> None:
        self.history.append(("config", (key, value)))
        self.config[key] = value

    def host_lost(self, now_us: int) -> None:
        self.host_lost_count += 1

    def host_back(self, now_us: int) -> None:
        self.host_back_count += 1

    def leds(self, segment: int, now_us: int) -> list[tuple[int, int, int]]:
        running = self.animations[segment]
        n = self.spec.segments[segment]
        if running is None:
            raw = self.pixels[segment]
        else:
            anim, start = running
            raw = render(anim, start, now_us, n)
        return [(raw[3 * i], raw[3 * i + 1], raw[3 * i + 2]) for i in range(n)]


def _monotonic_us() -> int:
    return time.monotonic_ns() // 1000


class EmulatedBoard:
    """The virtual board. Thread-safe: every public method may be called from any thread."""

    def __init__(
        self,
        *,
        spec: BoardSpec | None = None,
        link_path: str | os.PathLike[str] | None = None,
        faults: Faults | None = None,
        seed: int = 0,
        boot_id: int | None = None,
        window: int = 32,
        retransmit_ms: int = 40,
        host_timeout_ms: int = 1000,
    ) -> None:
        self.spec = spec or BoardSpec()
        self.link_path = Path(link_path) if link_path is not None else None
        self.rng = random.Random(seed)
        self.injector_out = FaultInjector(faults or Faults(), random.Random(seed + 1))
        self.injector_in = FaultInjector(self.injector_out.faults, random.Random(seed + 2))
        self._proto_args = (window, retransmit_ms * 1000, host_timeout_ms * 1000)
        self.board_epoch_us = _monotonic_us()  # host-monotonic µs at board time 0
        self.hardware = EmulatedHardware(self.spec, self.rng)
        self.protocol = self._new_protocol(boot_id)
        self._lock = threading.RLock()
        self._wake_r = self._wake_w = -1  # a pipe that wakes the board's thread, from start()
        self._master: int | None = None
        self._slave: int | None = None
        self.pty_name = ""
        self._pending_out = bytearray()
        self._delayed: deque[tuple[int, bytes]] = deque()
        self._splitter_in = FrameSplitter()
        self._thread: threading.Thread | None = None
        self._running = False
        self._stalled = False
        self.latency_s = 0.0  # a slow board: every output waits this long
        self._burst_left = 0
        self._burst_next = 0
        self._burst_interval_us = 0
        self._burst_index = 0
        self._random_rate = 0.0
        self._random_next_us = 0
        self._sensor_rate = 0.0
        self._sensor_next_us = 0
        self._sensor_state: dict[tuple[int, int], int] = {}
        self.plugged = False
        self.replugs = 0

    def _new_protocol(self, boot_id: int | None) -> BoardProtocol:
        window, retransmit_us, host_timeout_us = self._proto_args
        proto = BoardProtocol(
            self.spec,
            self.hardware,
            boot_id if boot_id is not None else self.rng.getrandbits(32),
            window=window,
            retransmit_us=retransmit_us,
            host_timeout_us=host_timeout_us,
        )
        self.hardware.board = proto
        return proto

    # -- lifetime --------------------------------------------------------------------------
    @property
    def path(self) -> str:
        """What the host opens: the stable symlink if one was asked for, else the pty."""
        return str(self.link_path) if self.link_path is not None else self.pty_name

    def start(self) -> str:
        if self._thread is not None:
            return self.path
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._plug()
        self._running = True
        self._thread = threading.Thread(target=self._loop, name="emulated-board", daemon=True)
        self._thread.start()
        return self.path

    def stop(self) -> None:
        self._running = False
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._lock:
            self._unplug()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_r = self._wake_w = -1

    def __enter__(self) -> EmulatedBoard:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def now_us(self) -> int:
        """The board's clock (µs since it booted)."""
        return _monotonic_us() - self.board_epoch_us

    # -- the cable -------------------------------------------------------------------------
    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.pty_name = os.ttyname(slave)
        self._splitter_in = FrameSplitter()
        self._pending_out = bytearray()
        if self.link_path is not None:
            tmp = self.link_path.with_name(self.link_path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self.pty_name)
            tmp.replace(self.link_path)  # atomic, like udev updating its symlink
        self.plugged = True

    def _unplug(self) -> None:
        if self.link_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link_path.unlink()
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._delayed.clear()
        self.plugged = False

    def unplug(self) -> None:
        """Pull the USB cable: the device node disappears; the board keeps running."""
        with self._lock:
            self._unplug()
        self._wake()

    def replug(self) -> None:
        """Put the cable back: a new pty behind the same stable path."""
        with self._lock:
            if not self.plugged:
                self._plug()
                self.replugs += 1
        self._wake()

    def stall(self) -> None:
        """The firmware hangs: nothing is read, processed or sent until :meth:`resume`."""
        self._stalled = True
        self._wake()

    def resume(self) -> None:
        self._stalled = False
        self._wake()

    def reboot(self, boot_id: int | None = None) -> None:
        """Power-cycle the board: a new boot id, an empty ring, LEDs dark."""
        with self._lock:
            self.hardware = EmulatedHardware(self.spec, self.rng)
            self.protocol = self._new_protocol(boot_id)
            self.board_epoch_us = _monotonic_us()  # its clock starts again from 0
        self._wake()

    @property
    def faults(self) -> Faults:
        return self.injector_out.faults

    @faults.setter
    def faults(self, value: Faults) -> None:
        with self._lock:
            self.injector_out.faults = value
            self.injector_in.faults = value

    # -- scripting -------------------------------------------------------------------------
    def press(self, seat: int, button: int = 0) -> None:
        self._check_button(seat, button)
        self._record(lambda now: self.protocol.record_button(seat, button, True, now))

    def press_together(self, presses: list[tuple[int, int]], apart_us: int = 200) -> None:
        """Buttons going down together, in the order given, ``apart_us`` apart by the board's
        clock (two hands on two buttons within a millisecond). Their edge times come from one
        reading of the clock: two :meth:`press` calls in a row are as far apart as the host
        schedules them, on a busy host several milliseconds."""
        for seat, button in presses:
            self._check_button(seat, button)
        _check_range("apart_us", apart_us, 0, 10**6)

        def record(now: int) -> None:
            first = now - apart_us * (len(presses) - 1)  # the last edge is now, none ahead
            for i, (seat, button) in enumerate(presses):
                self.protocol.record_button(seat, button, True, first + i * apart_us)

        self._record(record)

    def release(self, seat: int, button: int = 0) -> None:
        self._check_button(seat, button)
        self._record(lambda now: self.protocol.record_button(seat, button, False, now))

    def click(self, seat: int, button: int = 0) -> None:
        """A press and its release."""
        self.press(seat, button)
        self.release(seat, button)

    def sensor(self, kind: int, zone: int, value: int) -> None:
        """A sensor reading (kind: wire.SENSOR_*; value: a signed 32-bit number)."""
        _check_range("kind", kind, 0, 255)
        _check_range("zone", zone, 0, 255)
        _check_range("value", value, -(2**31), 2**31 - 1)
        self._record(lambda now: self.protocol.record_sensor(kind, zone, value, now))

    def dice_result(self, values: list[int], source: int = wire.DICE_SENSED) -> None:
        """Dice the board read (physical dice), reported as a DICE event."""
        for i, v in enumerate(values):
            _check_range(f"values[{i}]", v, 1, 6)
        _check_range("number of dice", len(values), 1, 8)
        _check_range("source", source, 0, 255)
        self._record(lambda now: self.protocol.record_dice(source, list(values), now))

    def error(self, code: int, detail: str) -> None:
        _check_range("code", code, 0, 255)
        self._record(lambda now: self.protocol.record_error(code, detail, now))

    def burst(self, count: int, rate_per_s: float | None = None) -> None:
        """``count`` button edges from the board's thread, at ``rate_per_s`` or as fast as
        the ring has room. Edge i: seat i % seats, button (i // seats) % buttons, pressed when
        (i // (seats * buttons)) is even (see :func:`burst_edge`)."""
        _check_range("count", count, 0, 10**9)
        if rate_per_s is not None and not rate_per_s > 0:
            raise ValueError(f"rate_per_s = {rate_per_s!r}: must be a positive number")
        with self._lock:
            self._burst_left += count
            self._burst_interval_us = int(1e6 / rate_per_s) if rate_per_s else 0
            self._burst_next = self.now_us()
        self._wake()

    def random_presses(self, rate_per_s: float) -> None:
        """Random clicks on random seats and buttons (0 stops them)."""
        if not rate_per_s >= 0:
            raise ValueError(f"rate_per_s = {rate_per_s!r}: must be 0 (off) or more")
        with self._lock:
            self._random_rate = rate_per_s
            self._random_next_us = self.now_us()
        self._wake()

    def inject(self, data: bytes) -> None:
        """Raw bytes to the host, as they are (no framing, no faults): garbage, a forged
        frame (``wire.frame(body)``), anything a broken board could send."""
        with self._lock:
            self._pending_out += data
        self._wake()

    def random_sensors(self, rate_per_s: float) -> None:
        """Random sensor readings of the kinds the board announces: seats sitting down and
        getting up, racks in and out, weights on the load cells (0 stops them)."""
        if not rate_per_s >= 0:
            raise ValueError(f"rate_per_s = {rate_per_s!r}: must be 0 (off) or more")
        with self._lock:
            self._sensor_rate = rate_per_s
            self._sensor_next_us = self.now_us()
        self._wake()

    def burst_done(self) -> bool:
        with self._lock:
            return self._burst_left == 0

    def _check_button(self, seat: int, button: int) -> None:
        if not 0 <= seat < self.spec.seats:
            raise ValueError(f"seat {seat}: the board has seats 0..{self.spec.seats - 1}")
        if not 0 <= button < self.spec.buttons_per_seat:
            raise ValueError(
                f"button {button}: seats have buttons 0..{self.spec.buttons_per_seat - 1}"
            )

    def _record(self, record: Any) -> None:
        with self._lock:
            record(self.now_us())
        self._wake()

    # -- inspection ------------------------------------------------------------------------
    def leds(self, segment: int) -> list[tuple[int, int, int]]:
        """What segment ``segment`` shows right now (animations rendered)."""
        with self._lock:
            if not 0 <= segment < len(self.spec.segments):
                raise ValueError(f"segment {segment}: the board has {len(self.spec.segments)}")
            return self.hardware.leds(segment, self.now_us())

    def animation(self, segment: int) -> dict[str, int] | None:
        """The animation a segment runs, or None (dark, or set pixel by pixel)."""
        with self._lock:
            if not 0 <= segment < len(self.spec.segments):
                raise ValueError(f"segment {segment}: the board has {len(self.spec.segments)}")
            running = self.hardware.animations[segment]
        if running is None:
            return None
        names = ("animation", "r", "g", "b", "period_ms", "duration_ms", "position", "repeat")
        return dict(zip(names, running[0], strict=True))

    @property
    def dice_shown(self) -> tuple[int, ...]:
        return self.hardware.dice_shown

    def stats(self) -> dict[str, Any]:
        with self._lock:
            p = self.protocol
            return {
                "plugged": self.plugged,
                "stalled": self._stalled,
                "host_present": p.host_present,
                "events_recorded": p.next_seq - 1,
                "events_unacked": p.ring_used(),
                "retransmissions": p.retransmissions,
                "corrupt_frames": p.deframer.corrupt,
                "commands_applied": p.commands_applied,
                "unknown_types": p.unknown_types,
                "replugs": self.replugs,
                "faults_to_host": dict(self.injector_out.counts),
                "faults_to_board": dict(self.injector_in.counts),
            }

    # -- the board's thread ----------------------------------------------------------------
    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _loop(self) -> None:
        while self._running:
            try:
                self._step()
            except Exception:  # keep the board alive whatever a test does to it
                import logging

                logging.getLogger("firmware_bridge").exception("emulated board step failed")
                time.sleep(0.01)

    def _step(self) -> None:
        now = self.now_us()
        with self._lock:
            master = self._master if not self._stalled else None
            deadline = self.protocol.next_deadline_us(now)
            if self._burst_left:
                deadline = min(deadline, self._burst_next)
            if self._random_rate:
                deadline = min(deadline, self._random_next_us)
            if self._sensor_rate:
                deadline = min(deadline, self._sensor_next_us)
            if self._delayed:
                deadline = min(deadline, self._delayed[0][0])
            want_write = bool(self._pending_out)
        timeout = max(0.0, min((deadline - now) / 1e6, 0.05))
        rlist = [self._wake_r] + ([master] if master is not None else [])
        wlist = [master] if master is not None and want_write else []
        try:
            readable, _, _ = select.select(rlist, wlist, [], timeout)
        except (OSError, ValueError):
            return  # the pty was closed under us (unplug): go round again
        if self._wake_r in readable:
            with contextlib.suppress(OSError):
                os.read(self._wake_r, 4096)
        if self._stalled:
            return
        with self._lock:
            if self._master is None or self._master != master:
                master = None
            now = self.now_us()
            if master is not None and master in readable:
                self._read(master, now)
            self._generate(now)
            out = self.protocol.poll(now)
            if master is None:
                self._pending_out.clear()
                return  # unplugged: what the board sends is lost (and resent after HELLO)
            if out:
                self._queue_out(out, now)
            self._write(master, now)

    def _read(self, master: int, now: int) -> None:
        try:
            data = os.read(master, 65536)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno == errno.EIO:  # nobody has the slave open
                return
            raise
        faults = self.injector_in.faults
        if faults.to_board and faults.any():
            data = b"".join(self.injector_in.apply(f) for f in self._splitter_in.split(data))
        self.protocol.receive(data, now)

    def _generate(self, now: int) -> None:
        p = self.protocol
        spec = self.spec
        while self._burst_left and now >= self._burst_next:
            if p.ring_used() >= spec.ring_capacity - 1:
                break  # wait for acknowledgements: the burst never overflows the ring
            i = self._burst_index
            seat, button, pressed = burst_edge(i, spec.seats, spec.buttons_per_seat)
            p.record_button(seat, button, pressed, now)
            self._burst_index += 1
            self._burst_left -= 1
            if self._burst_interval_us:
                self._burst_next += self._burst_interval_us
        while self._random_rate and now >= self._random_next_us:
            seat = self.rng.randrange(spec.seats)
            button = self.rng.randrange(spec.buttons_per_seat)
            p.record_button(seat, button, True, now)
            p.record_button(seat, button, False, now)
            self._random_next_us += max(1, int(self.rng.expovariate(self._random_rate) * 1e6))
        while self._sensor_rate and now >= self._sensor_next_us:
            self._random_sensor(now)
            self._sensor_next_us += max(1, int(self.rng.expovariate(self._sensor_rate) * 1e6))

    def _random_sensor(self, now: int) -> None:
        kinds = [
            kind
            for bit, kind in (
                (wire.SENSE_PRESENCE, wire.SENSOR_PRESENCE),
                (wire.SENSE_RACK, wire.SENSOR_RACK),
                (wire.SENSE_WEIGHT, wire.SENSOR_WEIGHT),
                (wire.SENSE_TILE_COUNT, wire.SENSOR_TILE_COUNT),
            )
            if self.spec.sensors & bit
        ]
        if not kinds:
            return
        kind = self.rng.choice(kinds)
        zone = self.rng.randrange(self.spec.seats)
        if kind in (wire.SENSOR_PRESENCE, wire.SENSOR_RACK):
            value = 1 - self._sensor_state.get((kind, zone), 0)  # toggles, like the real thing
        elif kind == wire.SENSOR_WEIGHT:
            value = self.rng.randrange(0, 136) * 30  # grams: up to the whole set of tiles
        else:
            value = self.rng.randrange(0, 137)
        self._sensor_state[(kind, zone)] = value
        self.protocol.record_sensor(kind, zone, value, now)

    def _queue_out(self, out: bytes, now: int) -> None:
        faults = self.injector_out.faults
        if faults.to_host and faults.any():
            frames = out.split(b"\0")[:-1]
            out = b"".join(self.injector_out.apply(f) for f in frames)
        if self.latency_s:
            self._delayed.append((now + int(self.latency_s * 1e6), out))
        else:
            self._pending_out += out

    def _write(self, master: int, now: int) -> None:
        while self._delayed and self._delayed[0][0] <= now:
            self._pending_out += self._delayed.popleft()[1]
        if not self._pending_out:
            return
        try:
            n = os.write(master, self._pending_out)
        except BlockingIOError:
            n = 0
        except OSError:
            self._pending_out.clear()
            return
        del self._pending_out[:n]
        if len(self._pending_out) > 1 << 20:
            self._pending_out.clear()  # a USB endpoint nobody reads drops data too


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} = {value!r}: must be an integer {low}..{high}")


def burst_edge(i: int, seats: int, buttons: int) -> tuple[int, int, bool]:
    """(seat, button, pressed) of the i-th edge of :meth:`EmulatedBoard.burst`."""
    return i % seats, (i // seats) % buttons, (i // (seats * buttons)) % 2 == 0
