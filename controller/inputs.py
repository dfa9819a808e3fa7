"""What the table tells the service: button presses and observations.

Two kinds of input reach the service, from whichever hardware the table has:

- :class:`Press` — a seat pressed a call button. From the board (its microsecond clock at the
  debounced edge) or from GPIO (the Pi's monotonic clock at the edge). Two seats within a
  millisecond are ordered by this time, never by arrival.
- :class:`Observation` — something the table shows face up, from vision (or from the simulated
  game): a discard landed and named, a set laid, a tile drawn, a flower laid aside, dice
  shown, a hand shown at Mah Jongg. Each carries the recogniser's confidence; the service does
  not guess at a low-confidence one, it asks the table. Defined with vision, which must not
  depend on the service (vision/observation.py), and named here too.

Sources deliver them through one callback each (:class:`InputSink`); a source runs on its own
thread or task and the service hops them onto its loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from engine.seats import SEAT_NAMES as SEATS
from vision.observation import InputError, Observation, ObservationKind

__all__ = [
    "CLAIM_BUTTONS",
    "SEATS",
    "InputError",
    "InputSink",
    "Observation",
    "ObservationKind",
    "Press",
    "RecordedInputs",
]

CLAIM_BUTTONS = ("chow", "pung", "kong", "mahjong")


@dataclass(frozen=True, slots=True)
class Press:
    """Seat ``seat`` (E S W N) pressed its ``button`` (chow pung kong mahjong) at ``time_us``
    of the table clock."""

    seat: str
    button: str
    time_us: int
    source: str = "board"

    def __post_init__(self) -> None:
        if self.seat not in SEATS:
            raise InputError(f"press.seat: {self.seat!r} is not one of E S W N")
        if self.button not in CLAIM_BUTTONS:
            raise InputError(f"press.button: {self.button!r} is not one of {CLAIM_BUTTONS}")


class InputSink(Protocol):
    """Where a source delivers; thread-safe on the service's side."""

    def press(self, press: Press) -> None: ...

    def observe(self, observation: Observation) -> None: ...


@dataclass
class RecordedInputs:
    """An :class:`InputSink` that keeps what it is given (for tools and tests)."""

    presses: list[Press] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)

    def press(self, press: Press) -> None:
        self.presses.append(press)

    def observe(self, observation: Observation) -> None:
        self.observations.append(observation)
