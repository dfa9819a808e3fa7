"""What lies on a rendered table: tiles and dice placed in table millimetres, a hand over the
table, and plausible mid-game layouts drawn at random (a seed gives the same layout again).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import SEATS, TableGeometry
from vision.labels import BACK


@dataclass(frozen=True)
class TilePlacement:
    """One tile on the table: label (a token, ``BLANK`` or ``BACK``), centre and turn.

    ``angle`` is in degrees, anticlockwise in the image, of the tile's "up" from the table's
    "up"; 90 is a tile lying sideways.
    """

    label: str
    x: float
    y: float
    angle: float = 0.0


@dataclass(frozen=True)
class DiePlacement:
    value: int
    x: float
    y: float
    angle: float = 0.0


@dataclass
class Layout:
    tiles: list[TilePlacement] = field(default_factory=list)
    dice: list[DiePlacement] = field(default_factory=list)
    # A hand reaching over the table from its nearest edge, the fingers' middle at this point.
    hand: tuple[float, float] | None = None


_SEAT_ANGLE = {"E": 0.0, "S": 90.0, "W": 180.0, "N": 270.0}


def _seat_frame(
    seat: str, size: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Origin at the middle of a seat's edge, 'along' (to the seat's right), 'inward'."""
    c = size / 2
    return {
        "E": (np.array([c, size]), np.array([1.0, 0]), np.array([0, -1.0])),
        "S": (np.array([size, c]), np.array([0, -1.0]), np.array([-1.0, 0])),
        "W": (np.array([c, 0.0]), np.array([-1.0, 0]), np.array([0, 1.0])),
        "N": (np.array([0.0, c]), np.array([0, 1.0]), np.array([1.0, 0])),
    }[seat]


def random_layout(
    rng: np.random.Generator,
    labels: Sequence[str],
    geometry: TableGeometry,
    discards: int = 40,
    exposures: int = 3,
    walls: bool = True,
    dice: bool = True,
    hand: float = 0.0,
    touching: float = 0.4,
    upside_down: float = 0.2,
    dice_touching: float = 0.0,
) -> Layout:
    """A plausible mid-game table: discards in rows before each seat, exposures on the racks
    (the claimed tile turned sideways), short walls of face-down tiles, the dice in the tray.
    ``dice_touching``: how often the two dice come to rest against each other."""
    layout = Layout()
    face_labels = [lab for lab in labels if lab != BACK]

    def pick() -> str:
        return face_labels[int(rng.integers(len(face_labels)))]

    def turn(base: float) -> float:
        flip = 180.0 if rng.random() < upside_down else 0.0
        return base + flip + float(rng.uniform(-1.5, 1.5))

    _lay_discards(layout, rng, geometry, discards, touching, pick, turn)
    _lay_exposures(layout, rng, geometry, exposures, touching, pick, turn)
    if walls:
        _lay_walls(layout, rng, geometry)
    if dice:
        _throw_dice(layout, rng, geometry.size_mm)
    if dice and dice_touching and rng.random() < dice_touching:  # no draw when 0: same layouts
        first = layout.dice[-2]
        layout.dice[-2:] = touching_dice(
            rng, (first.value, layout.dice[-1].value), first.x, first.y, geometry.die_mm
        )
    if hand and rng.random() < hand:
        layout.hand = (float(rng.uniform(300, 600)), float(rng.uniform(600, 700)))
    return layout


def _lay_discards(
    layout: Layout,
    rng: np.random.Generator,
    geometry: TableGeometry,
    discards: int,
    touching: float,
    pick: Callable[[], str],
    turn: Callable[[float], float],
) -> None:
    """Each seat lays its own discards in rows of six, facing itself, inside the wall ring."""
    s = geometry.size_mm
    tw, th = geometry.tile_w_mm, geometry.tile_h_mm
    per_seat = [discards // 4 + (1 if i < discards % 4 else 0) for i in range(4)]
    inner = 80.0 + 110.0
    for seat, count in zip(SEATS, per_seat, strict=True):
        origin, along, inward = _seat_frame(seat, s)
        along_pos = 0.0
        for k in range(count):
            row, col = divmod(k, 6)
            if col == 0:
                along_pos = -3 * tw + float(rng.normal(0, 3))
            # Tiles are solid: neighbours touch (gap 0) or stand apart, never overlap.
            gap = 0.0 if rng.random() < touching else float(rng.uniform(1.5, 5))
            offset = along_pos + tw / 2
            along_pos += tw + gap
            depth = inner + 25 + row * (th + 4) + th / 2 + float(rng.uniform(0, 1.5))
            x, y = origin + along * offset + inward * depth
            layout.tiles.append(TilePlacement(pick(), float(x), float(y), turn(_SEAT_ANGLE[seat])))


def _lay_exposures(
    layout: Layout,
    rng: np.random.Generator,
    geometry: TableGeometry,
    exposures: int,
    touching: float,
    pick: Callable[[], str],
    turn: Callable[[float], float],
) -> None:
    """Sets of three along the first ``exposures`` seats' racks, the middle one of each
    claimed sideways."""
    tw, th = geometry.tile_w_mm, geometry.tile_h_mm
    for seat in SEATS[:exposures]:
        origin, along, inward = _seat_frame(seat, geometry.size_mm)
        cursor = -250.0
        for _ in range(int(rng.integers(1, 4))):
            label = pick()
            for j in range(3):
                sideways = j == 1 and rng.random() < 0.6
                width = th if sideways else tw
                cursor += width / 2
                depth = 40.0 + (0 if not sideways else (th - tw) / 2)
                x, y = origin + along * cursor + inward * depth
                angle = _SEAT_ANGLE[seat] + (90.0 if sideways else 0.0)
                layout.tiles.append(TilePlacement(label, float(x), float(y), turn(angle)))
                cursor += width / 2 + (0.0 if rng.random() < touching else 1.5)
            cursor += 15.0


def _lay_walls(layout: Layout, rng: np.random.Generator, geometry: TableGeometry) -> None:
    """A short wall of face-down tiles before each seat."""
    for seat in SEATS:
        origin, along, inward = _seat_frame(seat, geometry.size_mm)
        start = float(rng.uniform(-200, 0))
        for k in range(int(rng.integers(4, 12))):
            x, y = origin + along * (start + k * geometry.tile_w_mm) + inward * (80 + 55)
            layout.tiles.append(TilePlacement(BACK, float(x), float(y), _SEAT_ANGLE[seat]))


def _throw_dice(layout: Layout, rng: np.random.Generator, size_mm: float) -> None:
    """Two dice thrown into the tray in the middle of the table."""
    c = size_mm / 2
    for i in range(2):
        layout.dice.append(
            DiePlacement(
                int(rng.integers(1, 7)),
                c - 25 + 50 * i + float(rng.uniform(-8, 8)),
                c + float(rng.uniform(-25, 25)),
                float(rng.uniform(0, 90)),
            )
        )


def _die_corners(die: DiePlacement, side: float) -> NDArray[np.float64]:
    """The die's footprint in table mm, as the renderer draws it."""
    return np.asarray(cv2.boxPoints(((die.x, die.y), (side, side), -die.angle)), np.float64)


def _overlap(a: NDArray[np.float64], b: NDArray[np.float64]) -> bool:
    """Whether two convex polygons overlap (no edge direction separates them)."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for normal in np.stack([-edges[:, 1], edges[:, 0]], axis=1):
            pa, pb = a @ normal, b @ normal
            if pa.max() <= pb.min() + 1e-9 or pb.max() <= pa.min() + 1e-9:
                return False
    return True


def touching_dice(
    rng: np.random.Generator,
    values: tuple[int, int],
    x: float,
    y: float,
    die_mm: float = 16.0,
    gap_mm: tuple[float, float] = (0.0, 0.8),
) -> list[DiePlacement]:
    """Two dice at rest against each other: the first at (x, y), the second in a random
    direction, each at its own random turn, ``gap_mm`` apart (0: touching)."""
    first = DiePlacement(values[0], x, y, float(rng.uniform(0, 90)))
    turn = float(rng.uniform(0, 90))
    heading = float(rng.uniform(0, 2 * np.pi))
    step = np.array([np.cos(heading), np.sin(heading)])
    gap = float(rng.uniform(*gap_mm))

    def at(d: float) -> DiePlacement:
        return DiePlacement(values[1], x + step[0] * d, y + step[1] * d, turn)

    # The closest distance along the heading at which the two do not overlap (bisection).
    lo, hi = 0.0, die_mm * 1.5
    corners = _die_corners(first, die_mm)
    for _ in range(40):
        mid = (lo + hi) / 2
        if _overlap(corners, _die_corners(at(mid), die_mm)):
            lo = mid
        else:
            hi = mid
    return [first, at(hi + gap)]
