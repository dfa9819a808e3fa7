"""The call window's clock, in table time: a discard opens it, the courtesy pause and the press
latency after it close it (docs/architecture.md, "A call window closes on table time").

A press is judged by when its button went down; one made before the deadline may still be on
its way from the board (the serial link, a retransmission), so the window stays open
``press_latency_ms`` past its courtesy pause. What the family's rules decide (whether the
window closes without calls, who wins) is the table's and the engine's; this part keeps only
the time.
"""

from __future__ import annotations

from collections import deque


class CallWindow:
    """When the window closes, and how long its decision took to reach the LEDs."""

    def __init__(self, courtesy_pause_ms: int, press_latency_ms: int) -> None:
        self.pause_us = courtesy_pause_ms * 1000
        self.latency_us = press_latency_ms * 1000
        # The courtesy pause's end, table time; None: no window open. 0: one was open at a
        # restart, to close at the first tick.
        self.deadline_us: int | None = None
        # Window end (pause and latency) to the winner's LED, ms: the benchmark reads it.
        self.close_to_led_ms: deque[float] = deque(maxlen=10_000)

    def open(self, now_us: int) -> None:
        self.deadline_us = now_us + self.pause_us

    def reopen(self, now_us: int) -> None:
        """A late claim (Code 1924, Law 53) opens a window that had closed; an open one runs
        on."""
        if self.deadline_us is None:
            self.open(now_us)

    def open_at_restart(self) -> None:
        """The log shows a window open: it closes, with what was claimed, at the first tick."""
        self.deadline_us = 0

    def shut(self) -> None:
        self.deadline_us = None

    def over(self, now_us: int) -> int | None:
        """The deadline of a window that is over at ``now_us`` (and is now shut), or None."""
        deadline = self.deadline_us
        if deadline is None or now_us < deadline + self.latency_us:
            return None
        self.deadline_us = None
        return deadline

    def closes_before(self, pressed_us: int, now_us: int) -> int | None:
        """The table time to close the window at before judging a press made at
        ``pressed_us``, after the pause (it arrived before the tick closed the window); None
        when the press was in time or no window is open. A window open at a restart takes
        what the board still held for it."""
        deadline = self.deadline_us
        if not deadline or pressed_us < deadline:
            return None
        return max(now_us, deadline + self.latency_us)

    def decided(self, deadline: int, won_at_us: int | None) -> None:
        """The window that ended at ``deadline`` was decided, the winner's LED lit at
        ``won_at_us`` (None: nobody won)."""
        end = deadline + self.latency_us
        if deadline and won_at_us is not None and won_at_us >= end:
            self.close_to_led_ms.append((won_at_us - end) / 1000)
