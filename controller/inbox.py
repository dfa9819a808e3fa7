"""What reaches the service's loop, as typed messages: each input from a thread or a task is one
of these, put on the loop's inbox and dispatched with ``match`` (controller/service.py).

A board event carries its key, ``(boot_id, seq)``: the table stores the key with what the
event causes, so a restart knows it was applied (controller/store.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.inputs import Observation, Press


@dataclass(frozen=True)
class PressIn:
    """A call button pressed (GPIO, or the referee's ``cmd/claim`` through the table)."""

    press: Press


@dataclass(frozen=True)
class ObserveIn:
    """Something the camera (or a test) saw on the table."""

    observation: Observation


@dataclass(frozen=True)
class DiceIn:
    """The board's dice thrown: the faces and the table time they settled."""

    values: tuple[int, ...]
    time_us: int


@dataclass(frozen=True)
class CommandIn:
    """A referee's ``cmd/<verb>`` message, its payload as received."""

    verb: str
    payload: bytes


@dataclass(frozen=True)
class BoardIn:
    """A press or a dice throw from the board, with its key for at-most-once application."""

    event: PressIn | DiceIn
    key: tuple[int, int]


@dataclass(frozen=True)
class BoardCaughtUp:
    """Every event the board held when the service started has been taken (and those before
    this message on the inbox applied): a call window open at the restart may close."""


Message = PressIn | ObserveIn | DiceIn | CommandIn | BoardIn | BoardCaughtUp
