"""The board's clock in simulated play: microseconds, driven by its own seeded RNG.

A real table stamps every button press and every observation with the board's time; bots
playing under ``engine.simulate`` get the same from this clock, so a ``mjtable play`` log
records when each discard opened its call window, when each call was pressed and when the
window closed, as the table's log does. The clock draws from its own ``random.Random``, never
from the game's, so the same seed deals and plays the same hands with or without it.
"""

from __future__ import annotations

import random

THINK_US = (400_000, 3_000_000)  # a player's turn: drawing, thinking, discarding
REACTION_US = (250_000, 1_500_000)  # from a discard to a call button, within the pause
CALL_PAUSE_US = 2_000_000  # the courtesy pause for calls after a discard
CLOSE_LATENCY_US = 20_000  # presses in flight after the pause, then the window closes
_THINK_LO, _THINK_SPAN = THINK_US[0], THINK_US[1] - THINK_US[0]
_REACTION_LO, _REACTION_SPAN = REACTION_US[0], REACTION_US[1] - REACTION_US[0]


class SimClock:
    """``now_us`` is the current board time; the simulator moves it, the bots read it."""

    __slots__ = ("_rng", "now_us")

    def __init__(self, rng: random.Random, now_us: int = 0) -> None:
        self._rng = rng
        self.now_us = now_us

    # ``random()`` rather than ``randint``: a bot hand asks this a hundred times.

    def think(self) -> int:
        """A seat's turn passes: advance and return the new time."""
        self.now_us += _THINK_LO + int(self._rng.random() * _THINK_SPAN)
        return self.now_us

    def react(self, since_us: int) -> int:
        """A press some reaction time after ``since_us``: move there and return it."""
        self.now_us = since_us + _REACTION_LO + int(self._rng.random() * _REACTION_SPAN)
        return self.now_us

    def close_after(self, opened_us: int, last_press_us: int) -> int:
        """The window closes after its pause, and after the last press arrived."""
        self.now_us = max(opened_us + CALL_PAUSE_US, last_press_us) + CLOSE_LATENCY_US
        return self.now_us
