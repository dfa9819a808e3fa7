# ruff: noqa: UP031  (%-formatting: MicroPython runs this file too)
"""The board's side of the link protocol, without I/O: shared by the reference firmware
(MicroPython) and the emulator (CPython), so both speak exactly the same bytes.

The caller feeds received bytes to :meth:`BoardProtocol.receive`, records button presses and
sensor readings as they happen, and writes out what :meth:`BoardProtocol.poll` returns, calling
it often (every millisecond or so on the firmware). Time is always passed in, in microseconds.

Events go into a ring buffer and stay there until the host acknowledges them (go-back-N: a
window of frames in flight, resent from the oldest unacknowledged one on a NACK or after the
retransmission timeout, and after every HELLO). A full ring drops new events and reports how
many in one EVENTS_DROPPED event as soon as there is room again: sequence numbers never skip.
Commands are applied exactly once and in order; duplicates are re-acknowledged, gaps NACKed.

Kept to what MicroPython runs: plain classes, %-formatting, no typing at run time.
"""

from firmware_bridge import wire

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing does not exist on MicroPython; annotations stay strings
    from typing import Any


class BoardSpec:
    """What the board announces in HELLO."""

    def __init__(
        self,
        seats: int = 4,
        buttons_per_seat: int = 4,
        segments: "list[int] | None" = None,
        dice_kind: int = wire.DICE_LED,
        sensors: int = wire.SENSE_PRESENCE | wire.SENSE_RACK,
        firmware: str = "mjfw-1.0.0",
        board_id: str = "board-0",
        ring_capacity: int = 1024,
        protocol: "tuple[int, int]" = (wire.PROTOCOL_MAJOR, wire.PROTOCOL_MINOR),
    ) -> None:
        self.seats = seats
        self.buttons_per_seat = buttons_per_seat
        self.segments = list(segments) if segments is not None else [18, 18, 18, 18, 24, 72]
        self.dice_kind = dice_kind
        self.sensors = sensors
        self.firmware = firmware
        self.board_id = board_id
        self.ring_capacity = ring_capacity
        self.protocol = protocol


class Hardware:
    """What the protocol drives; the firmware and the emulator each provide one."""

    def set_pixels(self, segment: int, start: int, rgb: bytes, now_us: int) -> None:
        pass

    def set_animation(self, segment: int, anim: "tuple[int, ...]", now_us: int) -> None:
        """anim = (animation, r, g, b, period_ms, duration_ms, position, repeat)"""

    def dice(self, action: int, count: int, values: "tuple[int, ...]", now_us: int) -> None:
        pass

    def configure(self, key: int, value: int) -> None:
        pass

    def host_lost(self, now_us: int) -> None:
        """No frame from the host for the host timeout: show it on the table."""

    def host_back(self, now_us: int) -> None:
        """The host speaks again after host_lost(): show what was shown before."""


class BoardProtocol:
    def __init__(
        self,
        spec: BoardSpec,
        hardware: Hardware,
        boot_id: int,
        window: int = 32,
        retransmit_us: int = 40000,
        host_timeout_us: int = 1000000,
    ) -> None:
        self.spec = spec
        self.hardware = hardware
        self.boot_id = boot_id
        self.window = window
        self.retransmit_us = retransmit_us
        self.host_timeout_us = host_timeout_us
        self.deframer = wire.Deframer()
        cap = spec.ring_capacity
        self._ring: "list[bytes | None]" = [None] * cap  # noqa: UP037 (MicroPython)
        self._cap = cap
        self.next_seq = 1  # the seq the next recorded event gets
        self.oldest = 1  # the oldest event not yet acknowledged
        self.next_send = 1  # the next event to put on the wire
        self.dropped = 0  # events lost to a full ring, not yet reported
        self.retransmissions = 0
        self.unknown_types = 0
        self.commands_applied = 0
        self._progress_us = 0
        self._out = bytearray()
        self._host_id = 0  # the host id adopted at HELLO_REQ; 0 before any
        self._expected_cmd = 1
        self._ack_due = False
        self._nack_due = False
        self._last_nack = (-1, 0)
        self._last_event_nack = (-1, 0)
        self._last_host_us = 0
        self.host_present = False
        self._lost = False  # host_lost() was called and host_back() not yet

    # -- recording events ------------------------------------------------------------------
    def ring_used(self) -> int:
        return self.next_seq - self.oldest

    def _push(self, body: bytes) -> bool:
        if self.ring_used() >= self._cap:
            self.dropped += 1
            return False
        self._ring[self.next_seq % self._cap] = wire.frame(body)
        self.next_seq += 1
        return True

    def _flush_dropped(self, now_us: int) -> None:
        if self.dropped and self.ring_used() < self._cap:
            count = self.dropped
            self.dropped = 0
            self._push(wire.encode_events_dropped(self.next_seq, now_us, count))

    def record_button(self, seat: int, button: int, pressed: bool, board_us: int) -> bool:
        """Queue a button edge; False if the ring was full (counted in EVENTS_DROPPED)."""
        self._flush_dropped(board_us)
        return self._push(wire.encode_button(self.next_seq, board_us, seat, button, pressed))

    def record_sensor(self, kind: int, zone: int, value: int, board_us: int) -> bool:
        self._flush_dropped(board_us)
        return self._push(wire.encode_sensor(self.next_seq, board_us, kind, zone, value))

    def record_dice(self, source: int, values: "list[int]", board_us: int) -> bool:
        self._flush_dropped(board_us)
        return self._push(wire.encode_dice(self.next_seq, board_us, source, values))

    def record_error(self, code: int, detail: str, board_us: int) -> bool:
        self._flush_dropped(board_us)
        return self._push(wire.encode_board_error(self.next_seq, board_us, code, detail))

    # -- bytes in --------------------------------------------------------------------------
    def receive(self, data: bytes, now_us: int) -> None:
        """Feed bytes from the host. Never raises: bad frames are counted and dropped."""
        for body in self.deframer.feed(data):
            self._last_host_us = now_us
            if self._host_id and not self.host_present:
                self.host_present = True
                if self._lost:
                    self._lost = False
                    self.hardware.host_back(now_us)
            self._dispatch(body, now_us)

    def _dispatch(self, body: bytes, now_us: int) -> None:
        kind = body[0]
        try:
            if wire.COMMAND_FIRST <= kind <= wire.COMMAND_LAST:
                self._command(body, now_us)
            elif kind == wire.HELLO_REQ:
                self._hello(body, now_us)
            elif not self._host_id:
                return  # until a host has said HELLO_REQ, nothing else is answered
            elif kind == wire.PING:
                self._out += wire.frame(
                    wire.encode_heartbeat(
                        now_us, self.ring_used(), self.deframer.corrupt, self.retransmissions
                    )
                )
            elif kind == wire.EVENT_ACK:
                self._event_ack(wire.decode_u32(body, "EVENT_ACK"), now_us)
            elif kind == wire.EVENT_NACK:
                self._event_nack(wire.decode_u32(body, "EVENT_NACK"), now_us)
            elif kind == wire.TIME_REQ:
                host_us = wire.decode_time_req(body)
                self._out += wire.frame(wire.encode_time_resp(host_us, now_us))
            else:
                self.unknown_types += 1
        except wire.FrameError:
            self.deframer.corrupt += 1  # a valid CRC over a body too short for its type

    def _hello(self, body: bytes, now_us: int) -> None:
        _major, _minor, host_id, first_cmd = wire.decode_hello_req(body)
        if host_id != self._host_id:
            # A new host (or a restarted one): take its numbering of commands.
            self._host_id = host_id
            self._expected_cmd = first_cmd
        if not self.host_present:
            self.host_present = True
            if self._lost:
                self._lost = False
                self.hardware.host_back(now_us)
        self.next_send = self.oldest  # resend everything not yet acknowledged
        self._progress_us = now_us
        spec = self.spec
        self._out += wire.frame(
            wire.encode_hello(
                self.boot_id,
                self.next_seq,
                self.oldest,
                self._expected_cmd - 1,
                self._host_id,
                spec.seats,
                spec.buttons_per_seat,
                spec.dice_kind,
                spec.sensors,
                spec.ring_capacity,
                spec.segments,
                spec.firmware,
                spec.board_id,
                spec.protocol[0],
                spec.protocol[1],
            )
        )

    def _event_ack(self, seq: int, now_us: int) -> None:
        if seq < self.oldest or seq >= self.next_seq:
            return  # stale or nonsense: nothing to free
        for s in range(self.oldest, seq + 1):
            self._ring[s % self._cap] = None
        self.oldest = seq + 1
        if self.next_send < self.oldest:
            self.next_send = self.oldest
        self._progress_us = now_us

    def _event_nack(self, expected: int, now_us: int) -> None:
        if expected > self.oldest:
            self._event_ack(expected - 1, now_us)
        if not (self.oldest <= expected < self.next_send):
            return
        last, when = self._last_event_nack
        if last == expected and now_us - when < self.retransmit_us // 2:
            return  # the resend it asks for is already on its way
        self._last_event_nack = (expected, now_us)
        self.retransmissions += self.next_send - expected
        self.next_send = expected
        self._progress_us = now_us

    def _command(self, body: bytes, now_us: int) -> None:
        if not self._host_id:
            return  # no HELLO yet: the numbering of commands is unknown
        seq = wire.decode_u32(body, "command")
        if seq < self._expected_cmd:
            self._ack_due = True  # a resend of one already applied: acknowledge again
            return
        if seq > self._expected_cmd:
            last, when = self._last_nack
            if not (last == self._expected_cmd and now_us - when < self.retransmit_us // 2):
                self._nack_due = True
            return
        self._expected_cmd = seq + 1
        self._ack_due = True
        self.commands_applied += 1
        try:
            kind, _, fields = wire.decode_command(body)
        except wire.FrameError as exc:
            code = wire.ERR_UNKNOWN_COMMAND if "unknown" in str(exc) else wire.ERR_BAD_COMMAND
            self.record_error(code, str(exc), now_us)
            return
        self._apply(kind, fields, now_us)

    def _apply(self, kind: int, fields: "tuple[Any, ...]", now_us: int) -> None:
        hw = self.hardware
        if kind == wire.LED_PIXELS:
            segment, start, rgb = fields
            if segment >= len(self.spec.segments):
                self.record_error(wire.ERR_BAD_COMMAND, "no LED segment %d" % segment, now_us)
                return
            hw.set_pixels(segment, start, rgb, now_us)
        elif kind == wire.LED_ANIMATION:
            segment = fields[0]
            if segment >= len(self.spec.segments) or fields[1] > wire.ANIM_LAST:
                detail = "no LED segment %d or animation %d" % (segment, fields[1])
                self.record_error(wire.ERR_BAD_COMMAND, detail, now_us)
                return
            hw.set_animation(segment, tuple(fields[1:]), now_us)
        elif kind == wire.DICE_CMD:
            action, count, values = fields
            hw.dice(action, count, values, now_us)
        elif kind == wire.CONFIG:
            key, value = fields
            if key == wire.CFG_HOST_TIMEOUT_MS:
                self.host_timeout_us = value * 1000
            elif key == wire.CFG_RETRANSMIT_MS:
                self.retransmit_us = value * 1000
            hw.configure(key, value)

    # -- bytes out -------------------------------------------------------------------------
    def poll(self, now_us: int) -> bytes:
        """Everything due on the wire now: replies, acks, new and resent events."""
        if self.host_present and now_us - self._last_host_us > self.host_timeout_us:
            self.host_present = False
            self._lost = True
            self.hardware.host_lost(now_us)
            self.record_error(wire.ERR_HOST_LOST, "no frame from the host", now_us)
        self._flush_dropped(now_us)
        out = self._out
        if self._ack_due:
            out += wire.frame(wire.encode_cmd_ack(self._expected_cmd - 1))
            self._ack_due = False
        if self._nack_due:
            out += wire.frame(wire.encode_cmd_nack(self._expected_cmd))
            self._last_nack = (self._expected_cmd, now_us)
            self._nack_due = False
        if self.host_present:
            if self.oldest < self.next_send and now_us - self._progress_us > self.retransmit_us:
                self.retransmissions += self.next_send - self.oldest
                self.next_send = self.oldest
                self._progress_us = now_us
            limit = self.oldest + self.window
            if self.next_seq < limit:
                limit = self.next_seq
            if self.next_send < limit and self.next_send == self.oldest:
                self._progress_us = now_us  # the retransmission clock starts with the oldest
            while self.next_send < limit:
                frame = self._ring[self.next_send % self._cap]
                if frame is not None:
                    out += frame
                self.next_send += 1
        self._out = bytearray()
        return bytes(out)

    def next_deadline_us(self, now_us: int) -> int:
        """When poll() next has timed work to do (for a sleeping loop)."""
        due = now_us + self.retransmit_us
        if self.host_present:
            due = min(due, self._last_host_us + self.host_timeout_us + 1)
            if self.oldest < self.next_send:
                due = min(due, self._progress_us + self.retransmit_us + 1)
        return due


# --- LED animations, rendered the same way by the firmware and the emulator ---------------
def render(anim: "tuple[int, ...]", start_us: int, now_us: int, count: int) -> bytearray:
    """The RGB bytes of a segment of ``count`` LEDs running ``anim`` since ``start_us``."""
    animation, r, g, b, period_ms, duration_ms, position, repeat = anim
    out = bytearray(3 * count)
    if count == 0:
        return out
    elapsed_ms = (now_us - start_us) // 1000
    if elapsed_ms < 0:
        elapsed_ms = 0
    if animation == wire.ANIM_OFF:
        return out
    if duration_ms and elapsed_ms >= duration_ms and animation != wire.ANIM_COUNTDOWN:
        return out
    lit = None  # None: every LED; otherwise a list of indices
    level = 256  # brightness out of 256
    if animation == wire.ANIM_BLINK:
        if period_ms and (elapsed_ms * 2 // period_ms) % 2:
            return out
    elif animation == wire.ANIM_COUNTDOWN:
        if not duration_ms or elapsed_ms >= duration_ms:
            return out
        remaining = duration_ms - elapsed_ms
        lit = list(range((count * remaining + duration_ms - 1) // duration_ms))
    elif animation == wire.ANIM_POINTER:
        lit = [position % count]
    elif animation == wire.ANIM_PULSE:
        if period_ms:
            phase = (elapsed_ms % period_ms) * 512 // period_ms  # 0..511
            level = phase if phase < 256 else 511 - phase
    elif animation == wire.ANIM_FLASH:
        period = period_ms or 200
        if elapsed_ms >= period * repeat or (elapsed_ms * 2 // period) % 2:
            return out
    elif animation == wire.ANIM_CHASE:
        step = period_ms or 100
        lit = [(position + elapsed_ms // step) % count]
    colour = bytes((r * level >> 8, g * level >> 8, b * level >> 8))
    for i in lit if lit is not None else range(count):
        out[3 * i : 3 * i + 3] = colour
    return out
