"""Seats, named by their seat wind. East is always the dealer (contracts.md).

Turn order runs East, South, West, North (Code 1924, Law 1: South sits on East's right, and
play passes to the right, Law 26). ``next_seat`` is the player on the right, ``left_of`` the
one on the left, whose discards alone may be chowed (Law 34).
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
_BY_TOKEN = {s.name: s for s in SEATS}


def parse_seat(token: object, where: str = "seat") -> Seat:
    """``"E"``/``"s"``... (case-insensitive) to a :class:`Seat`."""
    if isinstance(token, str):
        seat = _BY_TOKEN.get(token.strip().upper())
        if seat is not None:
            return seat
    raise MalformedInput(where, f"a seat is one of E S W N, not {token!r}")


def next_seat(seat: int) -> Seat:
    """The player on the right, next in the order of play."""
    return SEATS[(seat + 1) % 4]


def left_of(seat: int) -> Seat:
    """The player on the left: the only one whose discard may be chowed (Code 1924, Law 34)."""
    return SEATS[(seat - 1) % 4]


def turns_after(discarder: int, seat: int) -> int:
    """How far ``seat`` sits after ``discarder`` in the order of play (1 = next)."""
    return (seat - discarder) % 4
