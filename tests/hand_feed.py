"""A bots' hand fed to a table as the table would see it, on a clock the caller keeps: each
step 20 ms after the last, the presses of a call window 0.2 ms apart, then the window let run
out (``window_us``: the courtesy pause and the press latency) by a tick."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from controller.inputs import Observation, Press
from controller.world import Claims, Step

STEP_US = 20_000
PRESS_US = 200

# What a caller does with an observation instead of applying it: the time reached.
Observe = Callable[[Any, Observation, int], int]


def applied(table: Any, obs: Observation, now: int) -> int:
    """The observation applied, as the camera sees it; the table must accept it."""
    outcome = table.observe(obs, now)
    assert outcome.accepted, (obs, outcome)
    return now


def feed(table: Any, steps: Iterable[Step], now: int, window_us: int,
         observe: Observe = applied) -> int:
    """Feed ``steps`` to ``table`` from time ``now`` (µs); the time reached."""
    for step in steps:
        now += STEP_US
        if isinstance(step, Claims):
            for seat, kind in step.presses:
                now += PRESS_US
                table.press(Press(seat, kind, now), now)
            now += window_us + 1
            table.tick(now)
        else:
            now = observe(table, step, now)
    return now
