"""Seats, named by their seat wind. East is always the dealer (contracts.md).

Turn order runs East, South, West, North (Code 1924, Law 1: South sits on East's right, and
play passes to the right, Law 26): the seat after ``s`` is ``SEATS[(s + 1) % 4]``.
``SEAT_NAMES`` is the same order as the tokens other parts (config, MQTT payloads) use.
"""

from __future__ import annotations

from enum import IntEnum

from engine.errors import MalformedInput


class Seat(IntEnum):
    E = 0
    S = 1
    W = 2
    N = 3

    @property
    def token(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Seat.{self.name}"


SEATS: tuple[Seat, ...] = (Seat.E, Seat.S, Seat.W, Seat.N)
SEAT_NAMES: tuple[str, ...] = tuple(s.name for s in SEATS)
_BY_TOKEN = {s.name: s for s in SEATS}


def parse_seat(token: object, where: str = "seat") -> Seat:
    """``"E"``/``"s"``... (case-insensitive) to a :class:`Seat`."""
    if isinstance(token, str):
        seat = _BY_TOKEN.get(token.strip().upper())
        if seat is not None:
            return seat
    raise MalformedInput(where, f"a seat is one of E S W N, not {token!r}")
