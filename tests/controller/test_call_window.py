"""The call window's clock: open on a discard, closed on the courtesy pause and the press
latency after it, judged on table time."""

from __future__ import annotations

from controller.call_window import CallWindow


def test_the_window_closes_only_once_the_pause_and_the_latency_are_over() -> None:
    window = CallWindow(courtesy_pause_ms=1500, press_latency_ms=100)
    window.open(1_000_000)
    assert window.over(2_599_999) is None  # a press made in time may still be on its way
    assert window.over(2_600_000) == 2_500_000
    assert window.deadline_us is None and window.over(9_000_000) is None


def test_a_press_made_after_the_pause_closes_the_window_first() -> None:
    window = CallWindow(courtesy_pause_ms=1500, press_latency_ms=100)
    window.open(1_000_000)
    assert window.closes_before(2_499_999, 2_550_000) is None  # made in time: judged in it
    assert window.closes_before(2_500_000, 2_550_000) == 2_600_000  # late: close it first
    window.open_at_restart()
    assert window.closes_before(5, 10) is None  # a window open at a restart takes it


def test_a_late_claim_reopens_a_shut_window_but_does_not_extend_an_open_one() -> None:
    window = CallWindow(courtesy_pause_ms=1000, press_latency_ms=0)
    window.open(0)
    window.reopen(500_000)
    assert window.deadline_us == 1_000_000
    window.shut()
    window.reopen(2_000_000)
    assert window.deadline_us == 3_000_000


def test_the_decision_is_timed_from_the_windows_end_to_the_winners_led() -> None:
    window = CallWindow(courtesy_pause_ms=1000, press_latency_ms=100)
    window.decided(1_000_000, 1_103_000)
    window.decided(1_000_000, None)  # nobody won: nothing to time
    window.decided(0, 5_000)  # a window open at a restart: no end to time from
    assert list(window.close_to_led_ms) == [3.0]
