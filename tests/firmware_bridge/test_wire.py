"""The shared codec: CRC, COBS, framing, the message catalogue, and a fuzzed decoder."""

from __future__ import annotations

import binascii
import contextlib

import cobs.cobs  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import wire


def test_crc16_is_genibus_with_its_check_value() -> None:
    assert wire.crc16(b"123456789") == 0xD64E
    assert wire.crc16_table(b"123456789") == 0xD64E


@given(st.binary(max_size=600))
def test_crc16_table_matches_binascii(data: bytes) -> None:
    # The table is what MicroPython runs; binascii.crc_hqx is the CPython fast path.
    assert wire.crc16_table(data) == binascii.crc_hqx(data, 0xFFFF) ^ 0xFFFF


def test_cobs_known_encodings() -> None:
    assert wire.cobs_encode(b"") == b"\x01"
    assert wire.cobs_encode(b"\x00") == b"\x01\x01"
    assert wire.cobs_encode(bytes([0x11, 0x22, 0x00, 0x33])) == bytes([3, 0x11, 0x22, 2, 0x33])
    assert wire.cobs_encode(b"\x01" * 254)[:1] == b"\xff"


@given(st.binary(max_size=1200))
def test_cobs_round_trips_and_agrees_with_the_cobs_library(data: bytes) -> None:
    ours = wire.cobs_encode(data)
    assert b"\x00" not in ours
    assert wire.cobs_decode(ours) == data
    assert cobs.cobs.decode(ours) == data
    assert wire.cobs_decode(cobs.cobs.encode(data)) == data


@pytest.mark.parametrize(
    ("encoded", "message"),
    [(b"\x05\x11\x22", "runs past the end"), (b"\x02\x00", "zero byte")],
)
def test_cobs_decode_names_the_bad_block(encoded: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wire.cobs_decode(encoded)


def test_frame_is_cobs_of_body_and_big_endian_crc() -> None:
    body = bytes([wire.EVENT_ACK, 1, 0, 0, 0])
    crc = binascii.crc_hqx(body, 0xFFFF) ^ 0xFFFF
    assert wire.frame(body) == cobs.cobs.encode(body + crc.to_bytes(2, "big")) + b"\x00"


def test_frame_refuses_an_oversized_body() -> None:
    with pytest.raises(ValueError, match="exceeds 512"):
        wire.frame(bytes(wire.MAX_BODY + 1))


# Every body starts with a message type (never 0).
bodies = st.builds(
    lambda t, rest: bytes([t]) + rest, st.integers(1, 255), st.binary(max_size=wire.MAX_BODY - 1)
)


@given(st.lists(bodies, max_size=8), st.data())
def test_deframer_recovers_every_frame_however_the_stream_is_cut(
    frames: list[bytes], data: st.DataObject
) -> None:
    stream = b"".join(wire.frame(b) for b in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    d = wire.Deframer()
    got: list[bytes] = []
    last = 0
    for cut in [*cuts, len(stream)]:
        got += d.feed(stream[last:cut])
        last = cut
    assert got == frames
    assert d.corrupt == 0


@given(st.binary(max_size=3000), st.lists(bodies, max_size=3))
@settings(max_examples=300)
def test_deframer_survives_any_bytes_and_then_reads_good_frames(
    junk: bytes, frames: list[bytes]
) -> None:
    d = wire.Deframer()
    d.feed(junk)  # whatever it makes of junk, it must not raise
    assert len(d._buf) <= wire.MAX_ENCODED
    # One delimiter ends whatever junk left half-read; then frames come through intact.
    got = d.feed(b"\x00" + b"".join(wire.frame(b) for b in frames))
    assert got == frames


@given(bodies, st.integers(0, 10_000), st.integers(0, 7))
def test_a_flipped_bit_never_yields_a_wrong_body(body: bytes, pos: int, bit: int) -> None:
    raw = bytearray(wire.frame(body)[:-1])
    raw[pos % len(raw)] ^= 1 << bit
    d = wire.Deframer()
    got = d.feed(bytes(raw) + b"\x00")
    # CRC-16 detects every single-bit error: the frame is dropped, never misread.
    assert got == []
    assert d.corrupt >= 1


def test_deframer_counts_an_overlong_frame_and_resynchronises() -> None:
    d = wire.Deframer()
    assert d.feed(b"\x07" * (wire.MAX_ENCODED + 50)) == []
    assert d.corrupt == 1
    good = bytes([wire.PING, 1, 2, 3, 4, 5, 6, 7, 8])
    assert d.feed(b"\x07\x07\x00" + wire.frame(good)) == [good]


def test_a_zero_run_cut_from_a_damaged_frame_is_not_a_frame() -> None:
    # 01 01 01 01 decodes to 00 00 00: with CRC-16/XMODEM that would be a valid empty frame.
    d = wire.Deframer()
    assert d.feed(b"\x01\x01\x01\x01\x00") == []
    assert d.corrupt == 1


def test_cutting_a_trailing_zero_is_detected() -> None:
    # The hole in CRC-16/XMODEM that fuzzing found: body ...00 whose CRC ends in 00 stays
    # valid when the last COBS code byte (01, the final zero) is flipped to a delimiter.
    body = bytes.fromhex("75010000")
    assert binascii.crc_hqx(body, 0) & 0xFF == 0  # the case XMODEM gets wrong
    raw = bytearray(wire.frame(body)[:-1])
    for bit in range(8):
        damaged = bytearray(raw)
        damaged[-1] ^= 1 << bit
        assert wire.Deframer().feed(bytes(damaged) + b"\x00") == []


def test_idle_delimiters_are_not_corrupt_frames() -> None:
    d = wire.Deframer()
    assert d.feed(b"\x00\x00\x00") == []
    assert d.corrupt == 0


def test_hello_round_trip() -> None:
    body = wire.encode_hello(
        0xCAFEF00D, 9, 3, 41, 0x1234, 4, 4, wire.DICE_LED, 3, 1024, [18, 24], "fw-1", "pico"
    )
    hello = wire.decode_hello(body)
    assert hello == {
        "major": 1,
        "minor": 0,
        "boot_id": 0xCAFEF00D,
        "next_event_seq": 9,
        "oldest_unacked_seq": 3,
        "last_cmd_seq": 41,
        "host_id": 0x1234,
        "seats": 4,
        "buttons_per_seat": 4,
        "dice_kind": wire.DICE_LED,
        "sensors": 3,
        "ring_capacity": 1024,
        "segments": [18, 24],
        "firmware": "fw-1",
        "board_id": "pico",
    }
    assert wire.decode_hello_version(body) == (1, 0)


def test_truncated_hello_is_a_frame_error_naming_the_message() -> None:
    body = wire.encode_hello(1, 1, 1, 0, 1, 4, 4, 1, 0, 8, [18, 24], "fw", "id")
    with pytest.raises(wire.FrameError, match="HELLO"):
        wire.decode_hello(body[:20])
    with pytest.raises(wire.FrameError, match="string"):
        wire.decode_hello(body[:-1])


@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**64 - 1),
    st.integers(0, 255),
    st.integers(0, 255),
    st.booleans(),
)
def test_button_round_trip(seq: int, t: int, seat: int, button: int, pressed: bool) -> None:
    body = wire.encode_button(seq, t, seat, button, pressed)
    assert wire.decode_event(body) == (wire.BUTTON, seq, t, (seat, button, pressed))


def test_other_events_round_trip() -> None:
    assert wire.decode_event(wire.encode_sensor(2, 5, wire.SENSOR_WEIGHT, 1, -35)) == (
        wire.SENSOR,
        2,
        5,
        (wire.SENSOR_WEIGHT, 1, -35),
    )
    assert wire.decode_event(wire.encode_dice(3, 6, wire.DICE_LED, [4, 6])) == (
        wire.DICE,
        3,
        6,
        (wire.DICE_LED, (4, 6)),
    )
    assert wire.decode_event(wire.encode_board_error(4, 7, 2, "no segment 9")) == (
        wire.BOARD_ERROR,
        4,
        7,
        (2, "no segment 9"),
    )
    assert wire.decode_event(wire.encode_events_dropped(5, 8, 12)) == (
        wire.EVENTS_DROPPED,
        5,
        8,
        (12,),
    )


def test_button_state_other_than_0_or_1_is_refused() -> None:
    body = bytearray(wire.encode_button(1, 1, 0, 0, True))
    body[-1] = 7
    with pytest.raises(wire.FrameError, match="state 7"):
        wire.decode_event(bytes(body))


def test_commands_round_trip() -> None:
    rgb = bytes([255, 0, 0, 0, 255, 0])
    assert wire.decode_command(wire.encode_led_pixels(2, 4, 10, rgb)) == (
        wire.LED_PIXELS,
        2,
        (4, 10, rgb),
    )
    anim = wire.encode_led_animation(1, 0, wire.ANIM_COUNTDOWN, 255, 160, 0, 0, 3000, 0, 0)
    assert wire.decode_command(anim) == (
        wire.LED_ANIMATION,
        1,
        (0, wire.ANIM_COUNTDOWN, 255, 160, 0, 0, 3000, 0, 0),
    )
    assert wire.decode_command(wire.encode_dice_cmd(4, wire.DICE_SHOW, 2, [3, 5])) == (
        wire.DICE_CMD,
        4,
        (wire.DICE_SHOW, 2, (3, 5)),
    )
    assert wire.decode_command(wire.encode_config(5, wire.CFG_DEBOUNCE_MS, 15)) == (
        wire.CONFIG,
        5,
        (wire.CFG_DEBOUNCE_MS, 15),
    )


def test_unknown_types_are_frame_errors_that_say_so() -> None:
    with pytest.raises(wire.FrameError, match="unknown event type 0x3A"):
        wire.decode_event(wire.event_header(0x3A, 1, 1))
    with pytest.raises(wire.FrameError, match="unknown command type 0xB7"):
        wire.decode_command(wire.command_header(0xB7, 1))


@given(st.binary(min_size=1, max_size=64))
def test_decoders_raise_only_frame_errors(body: bytes) -> None:
    for decode in (wire.decode_event, wire.decode_command, wire.decode_hello):
        with contextlib.suppress(wire.FrameError):
            decode(body)
