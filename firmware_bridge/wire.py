# ruff: noqa: UP031  (%-formatting: MicroPython runs this file too)
"""The bytes of the table link: framing, CRC and the message catalogue (docs/protocol.md).

This module is shared, unchanged, by the host (CPython) and the reference firmware
(MicroPython on the RP2040), so the host tests exercise the firmware's framing too. It keeps
to what both run: ``struct``, bytes/bytearray, plain classes, %-formatting; no dataclasses,
no ``typing`` at run time, no f-strings.

A frame on the wire is ``COBS(body + crc16_be(body)) + b"\\x00"``; the body is a type byte
and little-endian fields. CRC-16/GENIBUS: poly 0x1021, init 0xFFFF, no reflection, xorout
0xFFFF; check value ``crc16(b"123456789") == 0xD64E``.
"""

import struct

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing does not exist on MicroPython; annotations stay strings
    from typing import Any

try:  # CPython: binascii.crc_hqx is the same polynomial in C (init given, no xorout).
    from binascii import crc_hqx as _crc_hqx
except ImportError:  # MicroPython has no crc_hqx
    _crc_hqx = None  # type: ignore[assignment]

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0

MAX_BODY = 512  # largest body (type byte .. last field), CRC excluded
# COBS adds one byte per 254 and the CRC two: the longest encoded frame, delimiter excluded.
MAX_ENCODED = MAX_BODY + 2 + (MAX_BODY + 2) // 254 + 1

# --- message types: board -> host -------------------------------------------------------
HELLO = 0x01
HEARTBEAT = 0x02
CMD_ACK = 0x03
CMD_NACK = 0x04
TIME_RESP = 0x05
# Sequenced board events, 0x20..0x3F: header <IQ (event seq, board microseconds).
EVENT_FIRST = 0x20
EVENT_LAST = 0x3F
BUTTON = 0x20
SENSOR = 0x21
DICE = 0x22
BOARD_ERROR = 0x23
EVENTS_DROPPED = 0x24

# --- message types: host -> board -------------------------------------------------------
HELLO_REQ = 0x81
PING = 0x82
EVENT_ACK = 0x83
EVENT_NACK = 0x84
TIME_REQ = 0x85
# Sequenced host commands, 0xA0..0xBF: header <I (command seq).
COMMAND_FIRST = 0xA0
COMMAND_LAST = 0xBF
LED_PIXELS = 0xA0
LED_ANIMATION = 0xA1
DICE_CMD = 0xA2
CONFIG = 0xA3

EVENT_HEADER = struct.calcsize("<BIQ")  # type, seq, board_us
COMMAND_HEADER = struct.calcsize("<BI")  # type, seq

# --- enumerations carried in fields ---------------------------------------------------
# animations (LED_ANIMATION.animation)
ANIM_OFF = 0
ANIM_SOLID = 1
ANIM_BLINK = 2
ANIM_COUNTDOWN = 3  # a bar that drains over duration_ms (call window)
ANIM_POINTER = 4  # one lit LED at `position` (wall break, dead-wall boundary)
ANIM_PULSE = 5  # breathing colour (claim winner)
ANIM_FLASH = 6  # `repeat` flashes, then off (error)
ANIM_CHASE = 7  # a running light (turn indicator)
ANIM_LAST = ANIM_CHASE

# dice kinds (HELLO.dice_kind), dice actions (DICE_CMD.action), dice sources (DICE.source)
DICE_NONE = 0
DICE_LED = 1
DICE_ROLLER = 2
DICE_SENSED = 3
DICE_ROLL = 1
DICE_SHOW = 2
DICE_CLEAR = 3

# sensor capability bits (HELLO.sensors) and sensor kinds (SENSOR.kind)
SENSE_PRESENCE = 1
SENSE_RACK = 2
SENSE_WEIGHT = 4
SENSE_TILE_COUNT = 8
SENSOR_PRESENCE = 1
SENSOR_RACK = 2
SENSOR_WEIGHT = 3
SENSOR_TILE_COUNT = 4

# board error codes (BOARD_ERROR.code)
ERR_UNKNOWN_COMMAND = 1
ERR_BAD_COMMAND = 2
ERR_HOST_LOST = 3
ERR_HARDWARE = 4

# configuration keys (CONFIG.key)
CFG_DEBOUNCE_MS = 1
CFG_HOST_TIMEOUT_MS = 2
CFG_BRIGHTNESS = 3
CFG_SENSOR_INTERVAL_MS = 4
CFG_RETRANSMIT_MS = 5

# CMD_NACK reasons
NACK_GAP = 1


class FrameError(ValueError):
    """A body that does not parse as the message its type byte names."""


# --- CRC-16/GENIBUS ----------------------------------------------------------------------
# Not CRC-16/XMODEM (init 0, xorout 0): with it an all-zero body has CRC 0, and a frame whose
# body ends in 0x00 and whose CRC ends in 0x00 stays valid when its last byte is cut off -- a
# single flipped bit in the last COBS code byte does that. A non-zero init and xorout close
# both holes; the fuzz tests found them.
def _make_crc_table() -> "list[int]":
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_crc_table()


def crc16_table(data: bytes) -> int:
    """CRC-16/GENIBUS by table: what MicroPython runs."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc ^ 0xFFFF


def crc16(data: bytes) -> int:
    """CRC-16/GENIBUS of ``data`` (check value 0xD64E for b"123456789")."""
    if _crc_hqx is not None:
        return int(_crc_hqx(data, 0xFFFF)) ^ 0xFFFF
    return crc16_table(data)


# --- COBS ---------------------------------------------------------------------------------
def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no zero byte."""
    out = bytearray()
    for chunk in bytes(data).split(b"\x00"):
        while len(chunk) >= 254:
            out.append(255)
            out.extend(chunk[:254])
            chunk = chunk[254:]
        out.append(len(chunk) + 1)
        out.extend(chunk)
    return bytes(out)


def cobs_decode(enc: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; ValueError names the offset of a malformed block."""
    enc = bytes(enc)
    out = bytearray()
    i = 0
    n = len(enc)
    while i < n:
        code = enc[i]
        if code == 0:
            raise ValueError("COBS: zero byte at offset %d" % i)
        end = i + code
        if end > n:
            raise ValueError("COBS: block at offset %d runs past the end (%d bytes)" % (i, n))
        block = enc[i + 1 : end]
        if block.find(b"\x00") >= 0:
            raise ValueError("COBS: zero byte inside the block at offset %d" % i)
        out.extend(block)
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def frame(body: bytes) -> bytes:
    """One frame ready for the wire: COBS(body + CRC) + delimiter."""
    if len(body) > MAX_BODY:
        raise ValueError("frame body of %d bytes exceeds %d" % (len(body), MAX_BODY))
    crc = crc16(body)
    return cobs_encode(bytes(body) + bytes((crc >> 8, crc & 0xFF))) + b"\x00"


class Deframer:
    """Cuts a byte stream into checked frame bodies. Never raises on any input; memory is
    bounded by MAX_ENCODED. Bad frames are counted in ``corrupt`` and dropped."""

    def __init__(self, max_encoded: int = MAX_ENCODED) -> None:
        self.max_encoded = max_encoded
        self.corrupt = 0
        self.frames = 0
        self._buf = bytearray()
        self._discarding = False  # inside an over-long frame: drop up to the next delimiter

    def reset(self) -> None:
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> "list[bytes]":
        """The bodies of all complete, valid frames in ``data`` (plus what came before)."""
        data = bytes(data)
        bodies = []
        start = 0
        n = len(data)
        while start <= n:
            z = data.find(b"\x00", start)
            if z < 0:
                if not self._discarding and start < n:
                    if len(self._buf) + n - start > self.max_encoded:
                        self._buf = bytearray()
                        self._discarding = True
                        self.corrupt += 1
                    else:
                        self._buf.extend(data[start:])
                break
            piece = data[start:z]
            start = z + 1
            if self._discarding:
                self._discarding = False
                continue
            if self._buf:
                self._buf.extend(piece)
                piece = bytes(self._buf)
                self._buf = bytearray()
            if not piece:
                continue  # idle delimiters between frames are allowed
            body = self._check(piece)
            if body is None:
                self.corrupt += 1
            else:
                self.frames += 1
                bodies.append(body)
        return bodies

    def _check(self, piece: bytes) -> "bytes | None":
        if len(piece) > self.max_encoded:
            return None
        try:
            raw = cobs_decode(piece)
        except ValueError:
            return None
        if len(raw) < 3:
            return None
        body = raw[:-2]
        if body[0] == 0:
            return None  # no message has type 0
        if crc16(body) != (raw[-2] << 8) | raw[-1]:
            return None
        return body


# --- string fields ------------------------------------------------------------------------
def _pack_str(s: str) -> bytes:
    raw = s.encode()
    if len(raw) > 255:
        raw = raw[:255]
    return bytes((len(raw),)) + raw


def _unpack_str(body: bytes, at: int) -> "tuple[str, int]":
    if at >= len(body):
        raise FrameError("string length byte missing at offset %d" % at)
    n = body[at]
    end = at + 1 + n
    if end > len(body):
        raise FrameError("string at offset %d runs past the end" % at)
    try:
        return bytes(body[at + 1 : end]).decode(), end
    except UnicodeError:
        raise FrameError("string at offset %d is not UTF-8" % at) from None


def _unpack(fmt: str, body: bytes, name: str, at: int = 0) -> "tuple[Any, ...]":
    need = struct.calcsize(fmt)
    if len(body) < at + need:
        raise FrameError("%s: %d bytes, needs at least %d" % (name, len(body), at + need))
    return struct.unpack_from(fmt, body, at)


# --- board -> host ------------------------------------------------------------------------
_HELLO_FIXED = "<BBBIIIIIBBBBHB"


def encode_hello(
    boot_id: int,
    next_event_seq: int,
    oldest_unacked_seq: int,
    last_cmd_seq: int,
    host_id: int,
    seats: int,
    buttons_per_seat: int,
    dice_kind: int,
    sensors: int,
    ring_capacity: int,
    segments: "list[int]",
    firmware: str,
    board_id: str,
    major: int = PROTOCOL_MAJOR,
    minor: int = PROTOCOL_MINOR,
) -> bytes:
    body = struct.pack(
        _HELLO_FIXED,
        HELLO,
        major,
        minor,
        boot_id,
        next_event_seq,
        oldest_unacked_seq,
        last_cmd_seq,
        host_id,
        seats,
        buttons_per_seat,
        dice_kind,
        sensors,
        ring_capacity,
        len(segments),
    )
    for count in segments:
        body += struct.pack("<H", count)
    return body + _pack_str(firmware) + _pack_str(board_id)


def decode_hello_version(body: bytes) -> "tuple[int, int]":
    """(major, minor): readable from any HELLO, whatever else its version changed."""
    _, major, minor = _unpack("<BBB", body, "HELLO")
    return major, minor


def decode_hello(body: bytes) -> "dict[str, Any]":
    """A dict of the HELLO fields (names as in docs/protocol.md)."""
    f = _unpack(_HELLO_FIXED, body, "HELLO")
    at = struct.calcsize(_HELLO_FIXED)
    segments = []
    for i in range(f[13]):
        segments.append(_unpack("<H", body, "HELLO segment %d" % i, at)[0])
        at += 2
    firmware, at = _unpack_str(body, at)
    board_id, at = _unpack_str(body, at)
    return {
        "major": f[1],
        "minor": f[2],
        "boot_id": f[3],
        "next_event_seq": f[4],
        "oldest_unacked_seq": f[5],
        "last_cmd_seq": f[6],
        "host_id": f[7],
        "seats": f[8],
        "buttons_per_seat": f[9],
        "dice_kind": f[10],
        "sensors": f[11],
        "ring_capacity": f[12],
        "segments": segments,
        "firmware": firmware,
        "board_id": board_id,
    }


_HEARTBEAT = "<BQHII"


def encode_heartbeat(board_us: int, ring_used: int, corrupt: int, retransmissions: int) -> bytes:
    return struct.pack(_HEARTBEAT, HEARTBEAT, board_us, ring_used, corrupt, retransmissions)


def decode_heartbeat(body: bytes) -> "tuple[int, int, int, int]":
    """(board_us, ring_used, board_corrupt_frames, board_retransmissions)"""
    return _unpack(_HEARTBEAT, body, "HEARTBEAT")[1:]


def encode_cmd_ack(seq: int) -> bytes:
    return struct.pack("<BI", CMD_ACK, seq)


def encode_cmd_nack(expected: int, reason: int = NACK_GAP) -> bytes:
    return struct.pack("<BIB", CMD_NACK, expected, reason)


def encode_time_resp(host_us: int, board_us: int) -> bytes:
    return struct.pack("<BQQ", TIME_RESP, host_us, board_us)


def decode_u32(body: bytes, name: str) -> int:
    return int(_unpack("<BI", body, name)[1])


def decode_time(body: bytes) -> "tuple[int, int]":
    """TIME_RESP: (host_us echoed, board_us)."""
    return _unpack("<BQQ", body, "TIME_RESP")[1:]


# sequenced events
def event_header(kind: int, seq: int, board_us: int) -> bytes:
    return struct.pack("<BIQ", kind, seq, board_us)


def decode_event_header(body: bytes) -> "tuple[int, int, int]":
    """(type, seq, board_us) of a sequenced event."""
    return _unpack("<BIQ", body, "event")


def encode_button(seq: int, board_us: int, seat: int, button: int, pressed: bool) -> bytes:
    return event_header(BUTTON, seq, board_us) + struct.pack(
        "<BBB", seat, button, 1 if pressed else 0
    )


def encode_sensor(seq: int, board_us: int, kind: int, zone: int, value: int) -> bytes:
    return event_header(SENSOR, seq, board_us) + struct.pack("<BBi", kind, zone, value)


def encode_dice(seq: int, board_us: int, source: int, values: "list[int]") -> bytes:
    head = event_header(DICE, seq, board_us)
    return head + struct.pack("<BB", source, len(values)) + bytes(values)


def encode_board_error(seq: int, board_us: int, code: int, detail: str) -> bytes:
    return event_header(BOARD_ERROR, seq, board_us) + bytes((code,)) + _pack_str(detail)


def encode_events_dropped(seq: int, board_us: int, count: int) -> bytes:
    return event_header(EVENTS_DROPPED, seq, board_us) + struct.pack("<I", count)


def decode_event(body: bytes) -> "tuple[int, int, int, tuple[Any, ...]]":
    """(type, seq, board_us, fields tuple) for a known event type; FrameError otherwise."""
    kind, seq, board_us = decode_event_header(body)
    at = EVENT_HEADER
    if kind == BUTTON:
        seat, button, state = _unpack("<BBB", body, "BUTTON", at)
        if state > 1:
            raise FrameError("BUTTON: state %d is neither 0 (released) nor 1 (pressed)" % state)
        return kind, seq, board_us, (seat, button, state == 1)
    if kind == SENSOR:
        return kind, seq, board_us, _unpack("<BBi", body, "SENSOR", at)
    if kind == DICE:
        source, count = _unpack("<BB", body, "DICE", at)
        values = body[at + 2 : at + 2 + count]
        if len(values) != count:
            raise FrameError("DICE: %d values announced, %d present" % (count, len(values)))
        return kind, seq, board_us, (source, tuple(values))
    if kind == BOARD_ERROR:
        code = _unpack("<B", body, "BOARD_ERROR", at)[0]
        detail, _ = _unpack_str(body, at + 1)
        return kind, seq, board_us, (code, detail)
    if kind == EVENTS_DROPPED:
        return kind, seq, board_us, _unpack("<I", body, "EVENTS_DROPPED", at)
    raise FrameError("unknown event type 0x%02X" % kind)


# --- host -> board ------------------------------------------------------------------------
def encode_hello_req(
    host_id: int, first_cmd_seq: int, major: int = PROTOCOL_MAJOR, minor: int = PROTOCOL_MINOR
) -> bytes:
    return struct.pack("<BBBII", HELLO_REQ, major, minor, host_id, first_cmd_seq)


def decode_hello_req(body: bytes) -> "tuple[int, int, int, int]":
    """(major, minor, host_id, first_cmd_seq)"""
    return _unpack("<BBBII", body, "HELLO_REQ")[1:]


def encode_ping(host_us: int) -> bytes:
    return struct.pack("<BQ", PING, host_us)


def encode_event_ack(seq: int) -> bytes:
    return struct.pack("<BI", EVENT_ACK, seq)


def encode_event_nack(expected: int) -> bytes:
    return struct.pack("<BI", EVENT_NACK, expected)


def encode_time_req(host_us: int) -> bytes:
    return struct.pack("<BQ", TIME_REQ, host_us)


def decode_time_req(body: bytes) -> int:
    return int(_unpack("<BQ", body, "TIME_REQ")[1])


def command_header(kind: int, seq: int) -> bytes:
    return struct.pack("<BI", kind, seq)


def encode_led_pixels(seq: int, segment: int, start: int, rgb: bytes) -> bytes:
    if len(rgb) % 3:
        raise ValueError("LED_PIXELS: %d colour bytes is not a whole number of RGB" % len(rgb))
    return command_header(LED_PIXELS, seq) + struct.pack("<BH", segment, start) + bytes(rgb)


_ANIM = "<BBBBBHIHB"


def encode_led_animation(
    seq: int,
    segment: int,
    animation: int,
    r: int,
    g: int,
    b: int,
    period_ms: int = 0,
    duration_ms: int = 0,
    position: int = 0,
    repeat: int = 0,
) -> bytes:
    return command_header(LED_ANIMATION, seq) + struct.pack(
        _ANIM, segment, animation, r, g, b, period_ms, duration_ms, position, repeat
    )


def encode_dice_cmd(seq: int, action: int, count: int, values: "list[int]") -> bytes:
    return command_header(DICE_CMD, seq) + struct.pack("<BB", action, count) + bytes(values)


def encode_config(seq: int, key: int, value: int) -> bytes:
    return command_header(CONFIG, seq) + struct.pack("<BI", key, value)


def decode_command(body: bytes) -> "tuple[int, int, tuple[Any, ...]]":
    """(type, seq, fields tuple) for a known command type; FrameError otherwise."""
    kind, seq = _unpack("<BI", body, "command")
    at = COMMAND_HEADER
    if kind == LED_PIXELS:
        segment, start = _unpack("<BH", body, "LED_PIXELS", at)
        rgb = bytes(body[at + 3 :])
        if len(rgb) % 3:
            raise FrameError("LED_PIXELS: %d colour bytes is not whole RGB triples" % len(rgb))
        return kind, seq, (segment, start, rgb)
    if kind == LED_ANIMATION:
        return kind, seq, _unpack(_ANIM, body, "LED_ANIMATION", at)
    if kind == DICE_CMD:
        action, count = _unpack("<BB", body, "DICE_CMD", at)
        values = tuple(body[at + 2 : at + 2 + count])
        if action == DICE_SHOW and len(values) != count:
            raise FrameError("DICE_CMD: SHOW announces %d values, has %d" % (count, len(values)))
        return kind, seq, (action, count, values)
    if kind == CONFIG:
        return kind, seq, _unpack("<BI", body, "CONFIG", at)
    raise FrameError("unknown command type 0x%02X" % kind)
