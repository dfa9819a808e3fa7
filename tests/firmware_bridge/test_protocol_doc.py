"""docs/protocol.md is byte-exact: every hex example in it is checked against the codec."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_bridge import wire

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
EXAMPLE = re.compile(r"^body: ([0-9A-F ]+)\nwire: ([0-9A-F ]+)$", re.MULTILINE)


def examples() -> list[tuple[bytes, bytes]]:
    text = DOC.read_text(encoding="utf-8")
    return [(bytes.fromhex(b), bytes.fromhex(w)) for b, w in EXAMPLE.findall(text)]


def test_the_document_has_an_example_of_every_message_type() -> None:
    types = {body[0] for body, _ in examples()}
    catalogue = {
        wire.HELLO, wire.HEARTBEAT, wire.CMD_ACK, wire.CMD_NACK, wire.TIME_RESP, wire.BUTTON,
        wire.SENSOR, wire.DICE, wire.BOARD_ERROR, wire.EVENTS_DROPPED, wire.HELLO_REQ,
        wire.PING, wire.EVENT_ACK, wire.EVENT_NACK, wire.TIME_REQ, wire.LED_PIXELS,
        wire.LED_ANIMATION, wire.DICE_CMD, wire.CONFIG,
    }  # fmt: skip
    assert catalogue <= types


@pytest.mark.parametrize(("body", "on_wire"), examples())
def test_each_example_frames_and_decodes_as_documented(body: bytes, on_wire: bytes) -> None:
    assert wire.frame(body) == on_wire
    assert wire.Deframer().feed(on_wire) == [body]
    kind = body[0]
    if wire.EVENT_FIRST <= kind <= wire.EVENT_LAST:
        wire.decode_event(body)
    elif wire.COMMAND_FIRST <= kind <= wire.COMMAND_LAST:
        wire.decode_command(body)
    elif kind == wire.HELLO:
        assert wire.decode_hello(body)["board_id"] == "pico-e661"


def test_the_documented_crc_check_value_is_the_codecs() -> None:
    assert '`CRC16("123456789") = 0xD64E`' in DOC.read_text(encoding="utf-8")
    assert wire.crc16(b"123456789") == 0xD64E


def test_the_documented_frame_limits_are_the_codecs() -> None:
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert f"At most {wire.MAX_BODY} bytes" in text
    assert f"longer than {wire.MAX_ENCODED} encoded bytes" in text


def test_every_link_setting_is_documented_with_its_default() -> None:
    import dataclasses

    from firmware_bridge.host import LinkSettings

    text = DOC.read_text(encoding="utf-8")
    for f in dataclasses.fields(LinkSettings):
        assert f"`{f.name}={f.default}`" in text, f.name
