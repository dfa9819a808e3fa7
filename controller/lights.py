"""What the table shows its players: LED patterns, in the table's words.

The service speaks :class:`Pattern`s (whose turn, call window open, claim result, where to
break the wall, the dead-wall boundary, the last available tile, an error, a question to the
table). A :class:`Lights` back end turns them into hardware: the board's LED strip segments
over the firmware bridge, or one LED per seat on GPIO. Every pattern shown is also kept in a
:class:`LightLog` with its time, which the progress view and the benchmarks read.
"""

from __future__ import annotations

import enum
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Protocol


class Show(enum.StrEnum):
    TURN = "turn"  # the seat whose turn it is
    CALL_WINDOW = "call_window"  # a discard is claimable; duration_ms is the courtesy pause
    CLAIM_HEARD = "claim_heard"  # a seat's call is registered; the window is still open
    CLAIM_WON = "claim_won"  # the seat that won the claim
    CLAIM_REFUSED = "claim_refused"  # a seat that claimed and was told no
    WALL_BREAK = "wall_break"  # where to break the wall after the dice (seat's wall, stack)
    DEAD_WALL = "dead_wall"  # the dead-wall boundary (seat's wall, stack)
    LAST_TILE = "last_tile"  # the last available tile is being played
    ERROR = "error"  # something needs a person: a refused input, a lost link
    ASK = "ask"  # the table is asked to confirm or correct an observation
    HAND_OVER = "hand_over"  # the hand ended (winner lit, or all for a draw)
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Pattern:
    show: Show
    seat: str | None = None  # None = the whole table
    stack: int = 0
    duration_ms: int = 0


class Lights(Protocol):
    def show(self, pattern: Pattern) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Shown:
    pattern: Pattern
    at_ns: int  # time.monotonic_ns() when it was handed to the hardware


class LightLog:
    """Fan-out to the hardware back ends, keeping the last ``keep`` patterns with their times."""

    def __init__(self, *backends: Lights, keep: int = 1000) -> None:
        self.backends = list(backends)
        self.history: deque[Shown] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def show(self, pattern: Pattern) -> None:
        for backend in self.backends:
            backend.show(pattern)
        with self._lock:
            self.history.append(Shown(pattern, time.monotonic_ns()))

    def last(self, show: Show | None = None) -> Shown | None:
        with self._lock:
            for shown in reversed(self.history):
                if show is None or shown.pattern.show is show:
                    return shown
        return None

    def close(self) -> None:
        for backend in self.backends:
            backend.close()
