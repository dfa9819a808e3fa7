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


def test_a_window_open_at_a_restart_keeps_its_deadline_and_waits_for_the_board() -> None:
    """Opened at 1 s (the discard's logged time): the restart comes at 9 s, long past its
    end, and the window does not close on time until the presses the board held are taken;
    each is judged by when it was made."""
    window = CallWindow(courtesy_pause_ms=1500, press_latency_ms=100)
    window.open_at_restart(1_000_000)
    assert window.deadline_us == 2_500_000 and window.held
    assert window.over(9_000_000) is None  # held: the board's presses are not all taken
    assert window.closes_before(2_400_000, 9_000_000) is None  # made in time: one of its calls
    window.release(9_000_000)
    assert window.over(9_000_001) == 2_500_000


def test_a_held_press_made_after_the_pause_closes_the_held_window_first() -> None:
    window = CallWindow(courtesy_pause_ms=1500, press_latency_ms=100)
    window.open_at_restart(1_000_000)
    assert window.closes_before(2_700_000, 9_000_000) == 9_000_000
    assert not window.held  # every press made before it has been taken: the board's order


def test_a_restart_window_of_unknown_opening_or_from_before_a_reboot_closes_at_release() -> None:
    window = CallWindow(courtesy_pause_ms=1500, press_latency_ms=100)
    window.open_at_restart(None)  # no time logged: every held press is in time
    assert window.deadline_us == 0 and window.closes_before(5, 10) is None
    window.release(10)
    assert window.over(100_000) == 0
    window.open_at_restart(50_000_000)  # logged on the clock of the boot before
    window.release(3_000_000)  # the clock since the reboot is far behind it
    assert window.over(3_100_000) == 0


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
    window.open_at_restart(2_000_000)
    window.release(9_000_000)
    window.decided(3_000_000, 9_000_000)  # it waited for the service, not for the pause
    assert list(window.close_to_led_ms) == [3.0]
