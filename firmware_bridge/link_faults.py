"""Faults at the byte boundary of the emulated board's link: bit flips, lost frames and
bytes, truncated frames and garbage between frames, each with its own probability."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from firmware_bridge import wire


@dataclass
class Faults:
    """Per-frame fault probabilities, applied to both directions unless told otherwise."""

    bit_flip: float = 0.0  # one random bit of the frame flipped
    drop_frame: float = 0.0  # the whole frame lost
    drop_byte: float = 0.0  # one byte of the frame lost
    truncate: float = 0.0  # the frame cut short (its delimiter kept)
    garbage: float = 0.0  # 1..16 random bytes (and a delimiter) inserted before the frame
    to_host: bool = True
    to_board: bool = True

    def any(self) -> bool:
        return any((self.bit_flip, self.drop_frame, self.drop_byte, self.truncate, self.garbage))


@dataclass
class FaultInjector:
    faults: Faults
    rng: random.Random
    counts: dict[str, int] = field(default_factory=dict)

    def _hit(self, name: str, p: float) -> bool:
        if p and self.rng.random() < p:
            self.counts[name] = self.counts.get(name, 0) + 1
            return True
        return False

    def apply(self, frame: bytes) -> bytes:
        """``frame`` without its delimiter -> the bytes that reach the other side."""
        f = self.faults
        if self._hit("drop_frame", f.drop_frame):
            return b""
        data = bytearray(frame)
        if data and self._hit("bit_flip", f.bit_flip):
            i = self.rng.randrange(len(data))
            data[i] ^= 1 << self.rng.randrange(8)
        if data and self._hit("drop_byte", f.drop_byte):
            del data[self.rng.randrange(len(data))]
        if len(data) > 1 and self._hit("truncate", f.truncate):
            del data[self.rng.randrange(1, len(data)) :]
        prefix = b""
        if self._hit("garbage", f.garbage):
            prefix = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 16))) + b"\0"
        return prefix + bytes(data) + b"\0"


class FrameSplitter:
    """Cuts a stream into delimited frames so faults hit whole frames."""

    def __init__(self) -> None:
        self.buf = b""

    def split(self, data: bytes) -> list[bytes]:
        parts = (self.buf + data).split(b"\0")
        self.buf = parts.pop()
        if len(self.buf) > 4 * wire.MAX_ENCODED:
            self.buf = b""
        return parts
