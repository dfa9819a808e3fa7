"""LED animations as the board renders them (the same function runs in the firmware)."""

from __future__ import annotations

from firmware_bridge import wire
from firmware_bridge.board import render

RED = (255, 0, 0)


def lit(anim: tuple[int, ...], at_ms: int, count: int = 10) -> list[int]:
    """Indices of the LEDs that are on, ``at_ms`` after the animation started."""
    rgb = render(anim, 1_000_000, 1_000_000 + at_ms * 1000, count)
    return [i for i in range(count) if any(rgb[3 * i : 3 * i + 3])]


def anim(
    kind: int, period: int = 0, duration: int = 0, position: int = 0, repeat: int = 0
) -> tuple[int, ...]:
    return (kind, *RED, period, duration, position, repeat)


def test_off_and_solid() -> None:
    assert lit(anim(wire.ANIM_OFF), 0) == []
    assert lit(anim(wire.ANIM_SOLID), 5000) == list(range(10))
    assert render(anim(wire.ANIM_SOLID), 0, 0, 2) == bytearray(RED * 2)


def test_blink_is_on_for_the_first_half_of_each_period() -> None:
    blink = anim(wire.ANIM_BLINK, period=200)
    assert [bool(lit(blink, t)) for t in (0, 99, 100, 199, 200, 350)] == [
        True, True, False, False, True, False,
    ]  # fmt: skip


def test_countdown_drains_from_the_far_end_over_its_duration() -> None:
    window = anim(wire.ANIM_COUNTDOWN, duration=1000)
    assert lit(window, 0) == list(range(10))
    assert lit(window, 450) == list(range(6))  # 550 ms left of 1000: 6 of 10 (rounded up)
    assert lit(window, 999) == [0]
    assert lit(window, 1000) == []


def test_pointer_lights_only_its_position() -> None:
    assert lit(anim(wire.ANIM_POINTER, position=7), 0) == [7]
    assert lit(anim(wire.ANIM_POINTER, position=13), 0) == [3]  # wraps round the ring


def test_chase_steps_once_per_period() -> None:
    chase = anim(wire.ANIM_CHASE, period=100, position=8)
    assert [lit(chase, t) for t in (0, 100, 250)] == [[8], [9], [0]]


def test_flash_repeats_then_goes_dark() -> None:
    flash = anim(wire.ANIM_FLASH, period=100, repeat=3)
    assert [bool(lit(flash, t)) for t in (0, 60, 100, 249, 250, 299, 300, 1000)] == [
        True, False, True, True, False, False, False, False,
    ]  # fmt: skip


def test_pulse_breathes_from_dark_to_full_and_back() -> None:
    pulse = anim(wire.ANIM_PULSE, period=1000)
    red_at = [render(pulse, 0, ms * 1000, 1)[0] for ms in (0, 250, 499, 750)]
    assert red_at[0] == 0 and red_at[1] > 100 and red_at[2] >= 250 and 100 < red_at[3] < 200


def test_a_duration_ends_any_animation_but_the_countdown() -> None:
    assert lit(anim(wire.ANIM_SOLID, duration=500), 499) == list(range(10))
    assert lit(anim(wire.ANIM_SOLID, duration=500), 500) == []
