"""The call window's clock, in table time: a discard opens it, the courtesy pause and the press
latency after it close it (docs/architecture.md, "A call window closes on table time").

A press is judged by when its button went down; one made before the deadline may still be on
its way from the board (the serial link, a retransmission), so the window stays open
``press_latency_ms`` past its courtesy pause. What the family's rules decide (whether the
window closes without calls, who wins) is the table's and the engine's; this part keeps only
the time.

A window the log shows open at a restart gets back its deadline (the discard's logged table
time and the pause) and is *held*: it does not close on time until the service has taken every
press the board kept through the crash (``release``), so each is judged by when it was made,
exactly as without the crash (docs/reliability.md, "Presses across a crash").
"""

from __future__ import annotations

from collections import deque


class CallWindow:
    """When the window closes, and how long its decision took to reach the LEDs."""

    def __init__(self, courtesy_pause_ms: int, press_latency_ms: int) -> None:
        self.pause_us = courtesy_pause_ms * 1000
        self.latency_us = press_latency_ms * 1000
        # The courtesy pause's end, table time; None: no window open. 0: one was open at a
        # restart and its opening is not known (every press held for it is in time).
        self.deadline_us: int | None = None
        # Open at a restart: not closed on time until the board's held presses are taken.
        self.held = False
        self._restarted_deadline: int | None = None  # its decision is not timed
        # Window end (pause and latency) to the winner's LED, ms: the benchmark reads it.
        self.close_to_led_ms: deque[float] = deque(maxlen=10_000)

    def open(self, now_us: int) -> None:
        self.deadline_us = now_us + self.pause_us
        self.held = False

    def reopen(self, now_us: int) -> None:
        """A late claim (Code 1924, Law 53) opens a window that had closed; an open one runs
        on."""
        if self.deadline_us is None:
            self.open(now_us)

    def open_at_restart(self, opened_us: int | None) -> None:
        """The log shows a window open, opened at table time ``opened_us`` (None: not
        logged). It keeps its deadline and is held until :meth:`release`."""
        self.deadline_us = 0 if not opened_us else opened_us + self.pause_us
        self.held = True
        self._restarted_deadline = self.deadline_us

    def release(self, now_us: int | None = None) -> None:
        """The presses held over a restart are all taken: the window closes on time again.
        A deadline past ``now_us`` by more than a pause is from a clock since reset (the Pi
        rebooted): the window then closes at the next tick."""
        self.held = False
        if now_us is not None and self.deadline_us and self.deadline_us > now_us + self.pause_us:
            self.deadline_us = 0

    def shut(self) -> None:
        self.deadline_us = None
        self.held = False

    def over(self, now_us: int) -> int | None:
        """The deadline of a window that is over at ``now_us`` (and is now shut), or None."""
        deadline = self.deadline_us
        if deadline is None or self.held or now_us < deadline + self.latency_us:
            return None
        self.deadline_us = None
        return deadline

    def closes_before(self, pressed_us: int, now_us: int) -> int | None:
        """The table time to close the window at before judging a press made at
        ``pressed_us``, after the pause (it arrived before the tick closed the window); None
        when the press was in time or no window is open. A held window closes here too: the
        board sends its presses in the order they were made, so every press made in time
        has been taken before this one."""
        deadline = self.deadline_us
        if not deadline or pressed_us < deadline:
            return None
        self.held = False
        return max(now_us, deadline + self.latency_us)

    def decided(self, deadline: int, won_at_us: int | None) -> None:
        """The window that ended at ``deadline`` was decided, the winner's LED lit at
        ``won_at_us`` (None: nobody won)."""
        end = deadline + self.latency_us
        if deadline == self._restarted_deadline:
            return  # a window open across a restart: its decision waited for the service
        if deadline and won_at_us is not None and won_at_us >= end:
            self.close_to_led_ms.append((won_at_us - end) / 1000)
