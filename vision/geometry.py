"""The table seen from above, in millimetres: corner markers, tile footprint and zones.

Table frame: origin at the top-left corner of the playing surface as the camera sees it,
x to the right, y down (towards East). East sits at the bottom edge, South on the right,
West at the top, North on the left: play runs anticlockwise seen from above.

Zones are axis-aligned rectangles in that frame; the first zone that contains a point names
it, so the dice tray comes before the discard area it sits in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

SEATS = ("E", "S", "W", "N")


@dataclass(frozen=True)
class Zone:
    name: str  # "dice", "discards", "exposed", "wall"
    seat: str | None  # the seat an exposure area or wall side belongs to
    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x < self.x1 and self.y0 <= y < self.y1


def default_zones(
    size: float = 900.0, rack: float = 80.0, wall: float = 110.0, tray: float = 140.0
) -> tuple[Zone, ...]:
    """Dice tray in the middle, discards around it, a wall ring, each seat's rack strip."""
    c = size / 2
    inner = rack + wall
    zones = [Zone("dice", None, c - tray / 2, c - tray / 2, c + tray / 2, c + tray / 2)]
    zones.append(Zone("discards", None, inner, inner, size - inner, size - inner))
    # Exposures lie on the rack strip along each edge (corners belong to the markers).
    zones += [
        Zone("exposed", "E", rack, size - rack, size - rack, size),
        Zone("exposed", "S", size - rack, rack, size, size - rack),
        Zone("exposed", "W", rack, 0, size - rack, rack),
        Zone("exposed", "N", 0, rack, rack, size - rack),
    ]
    zones += [
        Zone("wall", "E", rack, size - inner, size - rack, size - rack),
        Zone("wall", "S", size - inner, rack, size - rack, size - rack),
        Zone("wall", "W", rack, rack, size - rack, inner),
        Zone("wall", "N", rack, rack, inner, size - rack),
    ]
    return tuple(zones)


@dataclass(frozen=True)
class TableGeometry:
    """What calibration and recognition assume about the physical table."""

    size_mm: float = 900.0  # the square playing surface
    marker_mm: float = 50.0  # side of each printed ArUco marker
    marker_inset_mm: float = 12.0  # from the table edge to the marker's outer edge
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)  # top-left, top-right, bottom-right, -left
    tile_w_mm: float = 22.0  # the face of one tile, short side
    tile_h_mm: float = 30.0  # long side
    die_mm: float = 16.0
    zones: tuple[Zone, ...] = field(default_factory=default_zones)

    def marker_corners(self) -> dict[int, list[tuple[float, float]]]:
        """Each marker's four corners in table mm, in ArUco's order (clockwise from top-left)."""
        s, m, i = self.size_mm, self.marker_mm, self.marker_inset_mm
        origins = [(i, i), (s - i - m, i), (s - i - m, s - i - m), (i, s - i - m)]
        return {
            marker_id: [(x, y), (x + m, y), (x + m, y + m), (x, y + m)]
            for marker_id, (x, y) in zip(self.marker_ids, origins, strict=True)
        }

    def zone_at(self, x: float, y: float) -> Zone | None:
        for zone in self.zones:
            if zone.contains(x, y):
                return zone
        return None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["zones"] = [asdict(z) for z in self.zones]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableGeometry:
        values = dict(data)
        if "zones" in values:
            values["zones"] = tuple(Zone(**z) for z in values["zones"])
        if "marker_ids" in values:
            values["marker_ids"] = tuple(values["marker_ids"])
        return cls(**values)
