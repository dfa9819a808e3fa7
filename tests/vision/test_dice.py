"""Pips counted on rendered dice: every face, any turn, red 1 and 4 included; dice that touch
separated and read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.calibration import calibrate
from vision.dice import count_pips, die_crop
from vision.dice_pair import die_bodies, split_pair
from vision.finder import find
from vision.geometry import TableGeometry
from vision.synth.layout import DiePlacement, Layout, touching_dice
from vision.synth.render import Rendered, Style, render


@pytest.mark.parametrize("angle", [0.0, 27.0, 45.0])
def test_every_face_counted(angle: float) -> None:
    rng = np.random.default_rng(int(angle))
    geometry = TableGeometry()
    dice = [DiePlacement(v, 330 + 45 * v, 450, angle) for v in range(1, 7)]
    table = render(Layout(dice=dice), Style.random(rng, "symbola"), rng, geometry)
    cal = calibrate(table.image, geometry)
    for die in dice:
        pips, confidence = count_pips(die_crop(table.image, cal, die.x, die.y, -die.angle))
        assert pips == die.value, (die, pips)
        assert 0 < confidence <= 1


def test_a_patch_of_cloth_is_not_a_die() -> None:
    cloth = np.zeros((56, 56, 3), np.uint8)
    cloth[:] = (60, 110, 30)
    assert count_pips(cloth) == (None, 0.0)


def _pairs_frame(seed: int) -> tuple[Rendered, list[list[DiePlacement]]]:
    """Four pairs of dice at rest against each other (each die at its own random turn, a
    random side touching, up to 0.8 mm apart so that their shadows join them), one frame."""
    rng = np.random.default_rng(seed)
    geometry = TableGeometry()
    spots = [(330.0, 330.0), (570.0, 330.0), (330.0, 570.0), (570.0, 570.0)]
    pairs = [
        touching_dice(rng, (int(rng.integers(1, 7)), int(rng.integers(1, 7))), x, y)
        for x, y in spots
    ]
    layout = Layout(dice=[d for pair in pairs for d in pair])
    art = ["symbola", "kde-traditional", "xmj-real"][seed % 3]
    return render(layout, Style.random(rng, art), rng, geometry), pairs


def test_touching_dice_are_separated_and_read() -> None:
    """The issue: "Dice: two dice, any orientation, pips counted". 16 touching pairs; every
    blob of two dice is two dice (never a tile), each found within 1.5 mm of its centre, and
    the pips of nearly all read (a die's turn misjudged by a few degrees can still hide a
    corner pip: the watcher waits for a frame that reads)."""
    read = total = 0
    for seed in range(4):
        table, pairs = _pairs_frame(300 + seed)
        cal = calibrate(table.image, table.geometry)
        found = find(table.image, cal)
        assert all(f.kind == "die" for f in found), found
        for pair in pairs:
            for die in pair:
                near = [f for f in found if np.hypot(f.x - die.x, f.y - die.y) < 1.5]
                assert len(near) == 1, (die, found)
                pips, _ = count_pips(
                    die_crop(table.image, cal, near[0].x, near[0].y, near[0].angle)
                )
                read += pips == die.value
                total += 1
    assert total == 32
    assert read >= 30, f"{read} of {total} touching dice read"


def _common_area(a: DiePlacement, b: DiePlacement, side: float) -> float:
    pa = cv2.boxPoints(((a.x, a.y), (side, side), -a.angle))
    pb = cv2.boxPoints(((b.x, b.y), (side, side), -b.angle))
    area, _ = cv2.intersectConvexConvex(pa, pb)
    return float(area)


def test_touching_dice_really_touch() -> None:
    """The renderer's pairs: the two footprints meet (no area in common, but 0.2 mm larger
    each way they would overlap)."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        a, b = touching_dice(rng, (1, 2), 450.0, 450.0, 16.0, gap_mm=(0.0, 0.0))
        assert _common_area(a, b, 16.0) < 0.05
        assert _common_area(a, b, 16.4) > 0.0


def test_one_tile_is_never_two_dice() -> None:
    """A tile's blob (22 x 30 mm) is near two dice's area, but no two die-sized squares cover
    it: it is never split into dice."""
    tile = np.zeros((40, 40), np.uint8)
    for angle in range(0, 180, 15):
        tile[:] = 0
        corners = cv2.boxPoints(((20.0, 20.0), (22.0, 30.0), float(angle)))
        cv2.fillConvexPoly(tile, np.round(corners).astype(np.int32), 1)
        assert split_pair(tile, 16.0) is None
    two = np.zeros((40, 50), np.uint8)
    for centre in ((17.0, 20.0), (33.0, 20.0)):
        cv2.fillConvexPoly(
            two, np.round(cv2.boxPoints((centre, (16.0, 16.0), 0.0))).astype(np.int32), 1
        )
    pair = split_pair(two, 16.0)
    assert pair is not None
    a, b, fit = pair
    assert fit > 0.9
    assert abs(min(a.x, b.x) - 17) <= 1 and abs(max(a.x, b.x) - 33) <= 1


# Derandomised: the same 80 tables on every run, so CI is repeatable. Over 800 random dice the
# fitted turn is off by 0.7 degrees at the median, 4 at the 99th percentile and 6.5 at worst.
@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    turn_a=st.floats(0, 90),
    turn_b=st.floats(0, 90),
    heading=st.floats(0, 2 * np.pi),
    gap=st.floats(0, 0.8),
)
def test_two_squares_against_each_other_are_found_again(
    turn_a: float, turn_b: float, heading: float, gap: float
) -> None:
    """Any two die-sized squares at rest against each other, drawn at 1 px per mm as the
    cloth mask sees them: the split finds both centres within 1.5 px and both turns within
    8 degrees (a die's pips are read from a crop turned by the fitted angle)."""
    a = DiePlacement(1, 40.0, 40.0, turn_a)

    def second(distance: float) -> DiePlacement:
        return DiePlacement(
            2, 40.0 + distance * np.cos(heading), 40.0 + distance * np.sin(heading), turn_b
        )

    lo, hi = 0.0, 40.0
    for _ in range(40):  # the nearest distance at which they do not overlap
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _common_area(a, second(mid), 16.0) > 1e-6 else (lo, mid)
    b = second(hi + gap)
    mask = np.zeros((80, 80), np.uint8)
    for die in (a, b):
        corners = cv2.boxPoints(((die.x, die.y), (16.0, 16.0), -die.angle))
        cv2.fillConvexPoly(mask, np.round(corners * 16).astype(np.int32), 1, 8, 4)
    pair = split_pair(mask, 16.0)
    assert pair is not None
    found = pair[:2]
    for die in (a, b):
        sq = min(found, key=lambda s: np.hypot(s.x - die.x, s.y - die.y))
        assert np.hypot(sq.x - die.x, sq.y - die.y) < 1.5, (die, found)
        turn = abs(sq.angle - (-die.angle) % 90.0) % 90.0
        assert min(turn, 90.0 - turn) < 8.0, (die, found)


def numpy_die_bodies(pixels: np.ndarray, grey: np.ndarray) -> np.ndarray:
    """:func:`die_bodies` as it was written with numpy's own median and percentile."""
    inside, around = grey[pixels > 0], grey[pixels == 0]
    if not len(inside) or not len(around):
        return pixels
    cloth = float(np.median(around))
    white = float(np.percentile(inside, 90))
    bright = ((grey > cloth + (white - cloth) / 3) & (pixels > 0)).astype(np.uint8)
    outlines, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(bright)
    cv2.drawContours(filled, outlines, -1, 1, -1)
    return filled


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_a_dies_body_is_numpys_to_the_pixel(seed: int) -> None:
    """The fast median and percentile (vision/stats.py) cut a die's body from its shadow on
    the very pixels numpy's would, odd and even counts alike, ties at the threshold too."""
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(3, 40, 2))
    grey = rng.integers(0, 256, (h, w)).astype(np.uint8)
    if rng.random() < 0.5:
        grey = (grey // 64 * 64).astype(np.uint8)  # few levels: many ties
    pixels = (rng.random((h, w)) < rng.uniform(0.05, 0.95)).astype(np.uint8) * 255
    assert np.array_equal(die_bodies(pixels, grey), numpy_die_bodies(pixels, grey))
