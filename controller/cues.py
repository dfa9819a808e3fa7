"""What the players are shown on the LEDs as the game moves: the table's part with that one job.

The table tells it what just happened, in the game's words (a discard opened the call window,
a call was heard, the window was decided, a turn began, the wall was broken, the hand is over,
a press was refused, the table asks about an observation); it turns each moment into the
:class:`~controller.lights.Pattern` s the players see, through the :class:`LightLog` (whose
back ends are the board's LED strip or GPIO).
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.lights import LightLog, Pattern, Show, Shown


class Cues:
    def __init__(self, lights: LightLog, courtesy_pause_ms: int) -> None:
        self.lights = lights
        self.courtesy_pause_ms = courtesy_pause_ms

    def _show(self, show: Show, seat: str | None = None, stack: int = 0,
              duration_ms: int = 0) -> None:
        self.lights.show(Pattern(show, seat, stack, duration_ms))

    def window_opened(self) -> None:
        """A discard may be called: the whole table, for the courtesy pause."""
        self._show(Show.CALL_WINDOW, None, 0, self.courtesy_pause_ms)

    def call_heard(self, seat: str) -> None:
        self._show(Show.CLAIM_HEARD, seat)

    def window_decided(self, winner: str | None, callers: Iterable[str]) -> None:
        """The winner's LED, then every other caller's "no"."""
        if winner:
            self._show(Show.CLAIM_WON, winner)
        for seat in callers:
            if seat != winner:
                self._show(Show.CLAIM_REFUSED, seat)

    def turn(self, seat: str) -> None:
        self._show(Show.TURN, seat)

    def last_tile(self, seat: str) -> None:
        self._show(Show.LAST_TILE, seat)

    def wall_broken(self, seat: str, stack: int) -> None:
        """Where the wall is broken, and so where the dead wall begins."""
        self._show(Show.WALL_BREAK, seat, stack)
        self._show(Show.DEAD_WALL, seat, stack)

    def hand_over(self, winner: str | None) -> None:
        self._show(Show.HAND_OVER, winner)

    def refused(self, seat: str) -> None:
        """A seat's press was refused."""
        self._show(Show.CLAIM_REFUSED, seat)

    def ask(self, seat: str | None) -> None:
        """The table is asked to confirm or correct what the camera saw."""
        self._show(Show.ASK, seat)

    def error(self) -> None:
        self._show(Show.ERROR, None)

    def last_won(self) -> Shown | None:
        """The last call won, shown: the call window's decision is timed to it."""
        return self.lights.last(Show.CLAIM_WON)
